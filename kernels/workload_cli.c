/*
 * workload_cli.c: usage errors, whole-number options and test-only faults (see
 * workload_cli.h).
 */
#include "workload_cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sct_cli_bad(const char *prog, const char *what, const char *why, const char *valid)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, why, valid);
    return -EINVAL;
}

int sct_cli_common_opt(const char *prog, int c, const char *arg, char **argv,
                       struct sct_cli_common *co)
{
    switch (c) {
    case SCT_OPT_JSON:
        if (!arg || arg[0] == '\0')
            return sct_cli_bad(prog, "--json", "empty path", "a file path to write");
        co->json = arg;
        return 0;
    case SCT_OPT_BUILD_INFO:
        co->build_info = 1;
        return 0;
    case SCT_OPT_HELP:
        co->help = 1;
        return 0;
    case ':':
        return sct_cli_bad(prog, argv[optind - 1], "missing value", "see --help");
    default:
        return sct_cli_bad(prog, argv[optind - 1], "unknown option", "see --help");
    }
}

int sct_cli_no_operands(const char *prog, int argc, char **argv)
{
    if (optind < argc)
        return sct_cli_bad(prog, argv[optind], "unexpected argument", "options only, see --help");
    return 0;
}

FILE *sct_cli_open_json(const char *prog, const char *path)
{
    FILE *f = fopen(path, "w");
    char what[256];

    if (!f) {
        snprintf(what, sizeof(what), "--json %.200s", path);
        sct_cli_bad(prog, what, strerror(errno), "a writable file path");
    }
    return f;
}

int sct_cli_close_json(const char *prog, const char *path, FILE *f)
{
    int failed = ferror(f);

    if (fclose(f) != 0 || failed) {
        char what[256];
        snprintf(what, sizeof(what), "--json %.200s", path);
        sct_cli_bad(prog, what, "could not write all of it", "a writable file path with space");
        return -EIO;
    }
    return 0;
}

int sct_cli_count(const char *prog, const char *opt, const char *s, unsigned long long min,
                  unsigned long long max, const char *valid, unsigned long long *out)
{
    char why[160];
    unsigned long long v;
    char *end;

    if (s[0] < '0' || s[0] > '9') {
        snprintf(why, sizeof(why), "'%.64s' is not a number", s);
        return sct_cli_bad(prog, opt, why, valid);
    }
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0') {
        snprintf(why, sizeof(why), "'%.64s' is not a number", s);
        return sct_cli_bad(prog, opt, why, valid);
    }
    if (errno == ERANGE || v < min || v > max) {
        snprintf(why, sizeof(why), "%.64s is out of range", s);
        return sct_cli_bad(prog, opt, why, valid);
    }
    *out = v;
    return 0;
}

int sct_fault_read(const char *prog, enum sct_fault *out)
{
    const char *v = getenv("STREAMCARD_FAULT");
    char why[160];

    *out = SCT_FAULT_NONE;
    if (!v || !*v)
        return 0;
    if (strcmp(v, "corrupt") == 0)
        *out = SCT_FAULT_CORRUPT;
    else if (strcmp(v, "crash") == 0)
        *out = SCT_FAULT_CRASH;
    else if (strcmp(v, "hang") == 0)
        *out = SCT_FAULT_HANG;
    else {
        snprintf(why, sizeof(why), "'%.64s' is not a fault", v);
        return sct_cli_bad(prog, "STREAMCARD_FAULT", why, "corrupt|crash|hang, test-only");
    }
    return 0;
}

void sct_fault_strike(enum sct_fault fault)
{
    if (fault == SCT_FAULT_CRASH) {
        signal(SIGSEGV, SIG_DFL); /* an inherited SIG_IGN must not defuse the test */
        raise(SIGSEGV);
        abort();
    }
    if (fault == SCT_FAULT_HANG)
        for (;;)
            pause();
}
