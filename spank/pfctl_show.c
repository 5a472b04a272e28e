/*
 * pfctl_show.c: a node's platform state as an admin reads it (see pfctl.h,
 * sc_pfctl_show; the tool is node_tool.c).
 */
#include "pfctl_call.h"
#include "sc_cpulist.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC__SHOW_CPUS 256 /* characters of a journal's CPU list shown; "..." past them */

/* Appends to line (size bytes, *n used), cut at its end: a long CPU list or many holders
   shorten the line, never write past it. */
static void sc__linef(char *line, size_t size, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void sc__linef(char *line, size_t size, size_t *n, const char *fmt, ...)
{
    va_list ap;

    if (*n + 1 >= size)
        return;
    va_start(ap, fmt);
    int w = vsnprintf(line + *n, size - *n, fmt, ap);
    va_end(ap);
    if (w > 0)
        *n = *n + (size_t)w < size ? *n + (size_t)w : size - 1;
}

/* One line for job's journal. */
static void sc__show_journal(sc__pfctl_call *r, uint32_t job, sc_kv *out)
{
    char why[512] = "", line[1024];
    size_t n = 0;
    sc_journal j;
    int rc = sc_journal_init(&j, job);

    if (rc == 0)
        rc = sc_journal_load(&r->dir, job, &j, why, sizeof(why));
    bool read = rc == 0 || rc == -EBADMSG;
    char *cpus = read ? sc_cpulist_format(j.cpus) : NULL;
    sc__linef(line, sizeof(line), &n, "job %u: ", (unsigned)job);
    if (rc == 0)
        sc__linef(line, sizeof(line), &n,
                  "prefetch=%s governor=%s cpus=%.*s%s arch=%s, %zu register(s), %zu "
                  "governor(s);",
                  sc_prefetch_name(j.prefetch), j.governor, SC__SHOW_CPUS, cpus ? cpus : "?",
                  cpus && strlen(cpus) > SC__SHOW_CPUS ? "..." : "", *j.arch ? j.arch : "unknown",
                  j.n_msr, j.n_gov);
    else if (rc == -EBADMSG)
        sc__linef(line, sizeof(line), &n,
                  "DAMAGED (%s): %zu register(s) and %zu governor(s) readable;",
                  strncmp(why, "streamcard: ", 12) == 0 ? why + 12 : why, j.n_msr, j.n_gov);
    else
        sc__linef(line, sizeof(line), &n, "cannot be read: %s;", strerror(-rc));
    for (size_t i = 0; read && i < j.n_holders; i++)
        sc__linef(line, sizeof(line), &n, " holder %ld %s", (long)j.holders[i].pid,
                  sc_journal_holder_alive(&j.holders[i]) ? "alive" : "dead");
    if (read && j.n_holders == 0)
        sc__linef(line, sizeof(line), &n, " no holder");
    sc_kv_append(out, line);
    sc_kv_append(out, "\n");
    free(cpus);
    sc_journal_free(&j);
}

int sc_pfctl_show(const sc_pfctl_config *cfg, char **text, uint32_t **jobs, size_t *njobs)
{
    char why[512] = "", **damaged = NULL;
    size_t ndamaged = 0;
    sc__pfctl_call r;
    sc_kv out;

    *text = NULL;
    *jobs = NULL;
    *njobs = 0;
    sc_kv_init(&out);
    sc__pfctl_call_init(&r, cfg);
    int rc = sc__pfctl_call_lock(&r, why, sizeof(why));
    if (rc == 0)
        rc = sc_journal_list(&r.dir, jobs, njobs);
    if (rc == 0)
        rc = sc_journal_list_damaged(&r.dir, &damaged, &ndamaged);
    if (rc == 0 && *njobs == 0) {
        sc_kv_append(&out, "no platform change is journaled in ");
        sc_kv_append(&out, r.dir.path);
        sc_kv_append(&out, "\n");
    }
    for (size_t i = 0; rc == 0 && i < *njobs; i++)
        sc__show_journal(&r, (*jobs)[i], &out);
    for (size_t i = 0; i < ndamaged; i++) {
        if (rc == 0) {
            sc_kv_append(&out, "damaged journal set aside: ");
            sc_kv_append(&out, damaged[i]);
            sc_kv_append(&out, "\n");
        }
        free(damaged[i]);
    }
    free(damaged);
    if (rc == 0 && out.failed)
        rc = -ENOMEM;
    if (rc == 0) {
        *text = out.text;
        sc_kv_init(&out);
    } else {
        free(*jobs);
        *jobs = NULL;
        *njobs = 0;
        *text = strdup(*why ? why : strerror(-rc));
    }
    sc_kv_free(&out);
    sc__pfctl_call_end(&r, NULL);
    return rc;
}
