/*
 * pfctl_show.c: a node's platform state as an admin reads it (see pfctl.h,
 * sc_pfctl_show; the tool is node_tool.c).
 */
#include "pfctl_call.h"
#include "sc_cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line for job's journal. */
static void sc__show_journal(sc__pfctl_call *r, uint32_t job, sc_kv *out)
{
    char why[512] = "", line[1024];
    sc_journal j;
    int rc = sc_journal_init(&j, job);

    if (rc == 0)
        rc = sc_journal_load(&r->dir, job, &j, why, sizeof(why));
    char *cpus = rc == 0 || rc == -EBADMSG ? sc_cpulist_format(j.cpus) : NULL;
    int n = snprintf(line, sizeof(line), "job %u: ", (unsigned)job);
    if (rc == 0)
        n += snprintf(line + n, sizeof(line) - (size_t)n,
                      "prefetch=%s governor=%s cpus=%s arch=%s, %zu register(s), %zu governor(s);",
                      sc_prefetch_name(j.prefetch), j.governor, cpus ? cpus : "?",
                      *j.arch ? j.arch : "unknown", j.n_msr, j.n_gov);
    else if (rc == -EBADMSG)
        n += snprintf(line + n, sizeof(line) - (size_t)n,
                      "DAMAGED (%s): %zu register(s) and %zu governor(s) readable;",
                      strncmp(why, "streamcard: ", 12) == 0 ? why + 12 : why, j.n_msr, j.n_gov);
    else
        n += snprintf(line + n, sizeof(line) - (size_t)n, "cannot be read: %s;", strerror(-rc));
    for (size_t i = 0; (rc == 0 || rc == -EBADMSG) && i < j.n_holders && n < (int)sizeof(line); i++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " holder %ld %s", (long)j.holders[i].pid,
                      sc_journal_holder_alive(&j.holders[i]) ? "alive" : "dead");
    if ((rc == 0 || rc == -EBADMSG) && j.n_holders == 0)
        snprintf(line + n, sizeof(line) - (size_t)n, " no holder");
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
