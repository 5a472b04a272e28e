/*
 * exec.c: any program the card names (command: [path, args...]), run without a shell under
 * the card's CPUs, memory node and environment. It prints no trace lines: the whole process
 * is its main loop, and the bundle says the capture is less precise (doc/design.md,
 * "Workloads as modules").
 */
#include "sc_card_schema.h"
#include "sc_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sc_card_field sc__keys[] = {SC_CF_COMMAND, SC_CF_MEMORY_NODE};

/* The program's name without its directory, for messages and the run name. */
static const char *sc__base(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* command: given, its program named (not empty), by an absolute path or a bare name. */
static void sc__check(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];
    const char *prog = card->n_command ? card->command[0] : NULL;

    sc__card_where(card, SC_CF_COMMAND, where, sizeof(where));
    if (card->invalid[SC_CF_COMMAND])
        return;
    if (!prog) {
        sc_diag_addf(diag,
                     "%s: command: missing (valid: a list, the program then its arguments: "
                     "[/usr/bin/dd, if=/dev/zero, of=/dev/null])",
                     where);
        (*errors)++;
    } else if (!*prog) {
        sc_diag_addf(diag,
                     "%s: command: the program is empty (valid: an absolute path, or a name found "
                     "on PATH)",
                     where);
        (*errors)++;
    } else if (prog[0] != '/' && strchr(prog, '/')) {
        sc_diag_addf(diag,
                     "%s: command: \"%s\" is a relative path (valid: an absolute path, or a name "
                     "found on PATH such as \"%s\")",
                     where, prog, sc__base(prog));
        (*errors)++;
    }
}

/* "exec_<program>_<threads>thread", the program's name kept to the characters of a name. */
static void sc__layout_name(const sc_card *card, char *buf, size_t len)
{
    char prog[41] = "program";
    size_t n = 0;

    for (const char *p = card->n_command ? sc__base(card->command[0]) : ""; *p && n < 40; p++)
        prog[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p)
                        ? *p
                        : '_';
    if (n)
        prog[n] = '\0';
    snprintf(buf, len, "exec_%s_%ldthread", prog, card->threads);
}

/* The program's arguments, as the card lists them. */
static void sc__args(const sc_card *card, sc_strv *argv)
{
    for (size_t i = 1; i < card->n_command; i++)
        sc_strv_addf(argv, "%s", card->command[i]);
}

static void sc__describe(const sc_card *card, FILE *out)
{
    (void)card;
    fputs("  capture:     no phase markers: the whole process is the main loop (less precise)\n",
          out);
}

/* The card's program as an absolute path: as given, or the first on PATH with that name. */
static int sc__program_path(const sc_card *card, char **path, sc_diag *diag)
{
    const char *prog = card->n_command ? card->command[0] : "";

    *path = NULL;
    if (prog[0] == '/') {
        int rc = sc_file_is_program(prog);
        if (rc == 0)
            return (*path = strdup(prog)) ? 0 : -ENOMEM;
        sc_diag_addf(diag, "command: %s: %s (valid: an executable regular file)", prog,
                     rc == -EACCES ? "not an executable regular file" : strerror(-rc));
        return -ENOENT;
    }
    if (*prog && !strchr(prog, '/') && (*path = sc_file_which(prog)))
        return 0;
    if (errno == ENOMEM)
        return -ENOMEM;
    sc_diag_addf(diag,
                 "command: \"%s\" is not an executable file in any absolute directory of PATH "
                 "(valid: an absolute path, or a name found on PATH)",
                 prog);
    return -ENOENT;
}

/* The card declares no figures of the program: results.json holds none. */
static void sc__verify_results(json_object *metrics, const sc_tracelog *t, sc_diag *problems)
{
    (void)t;
    json_object_object_foreach(metrics, key, value)
    {
        (void)value;
        sc_diag_addf(problems,
                     "results.json: metric %s, but the card declares no figure of the "
                     "program",
                     key);
    }
}

const sc_workload_ops sc__workload_exec = {
    .id = SC_WORKLOAD_EXEC,
    .name = "exec",
    .program = NULL,
    .foreign = true,
    .program_path = sc__program_path,
    .keys = sc__keys,
    .n_keys = sizeof(sc__keys) / sizeof(sc__keys[0]),
    .check = sc__check,
    .layout_name = sc__layout_name,
    .args = sc__args,
    .describe = sc__describe,
    .verify_results = sc__verify_results,
};
