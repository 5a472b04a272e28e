/* rankadopt.c: srun's ranks an observer may count as the job's own (see sc_rankadopt.h). */
#include "sc_rankadopt.h"
#include "sc_file.h"
#include "sc_trace_protocol.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this much of a process's environment is read. */
#define SC__ENVIRON_MAX (256u << 10)

/* Whether the NUL-separated environment text (len bytes) holds the entry want. */
static bool sc__env_has(const char *text, size_t len, const char *want)
{
    size_t n = strlen(want);

    for (size_t at = 0; at < len; at += strnlen(text + at, len - at) + 1)
        if (strnlen(text + at, len - at) == n && !memcmp(text + at, want, n))
            return true;
    return false;
}

/* Whether process pid's environment names the observer and, when asked, the job. */
static bool sc__names_run(const sc_rankadopt *a, pid_t pid)
{
    char rel[32], observer[128], job[96];
    char *text = NULL;
    size_t len = 0;
    int n = snprintf(observer, sizeof(observer), SC_TRACE_OBSERVER_ENV "=%d@%s", (int)a->observer,
                     a->host);
    int m = a->job_id ? snprintf(job, sizeof(job), "SLURM_JOB_ID=%s", a->job_id) : 0;

    snprintf(rel, sizeof(rel), "%d/environ", (int)pid);
    if (n <= 0 || (size_t)n >= sizeof(observer) || m < 0 || (size_t)m >= sizeof(job) ||
        sc_file_read_at(a->proc_root, rel, 0, SC__ENVIRON_MAX, &text, &len) < 0)
        return false;
    bool named = sc__env_has(text, len, observer) && (!a->job_id || sc__env_has(text, len, job));
    free(text);
    return named;
}

unsigned long long sc_rankadopt_start_ticks(int dirfd, const char *rel)
{
    char *text = NULL, *end;
    unsigned long long start = 0;

    if (sc_file_read_at(dirfd, rel, 0, 4096, &text, NULL) < 0)
        return 0;
    if ((end = strrchr(text, ')'))) /* the name may hold spaces and ')' itself */
        sscanf(end + 1,
               " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
               "%*d %*d %llu",
               &start);
    free(text);
    return start;
}

pid_t sc_rankadopt_line(const sc_rankadopt *a, const char *line)
{
    char host[64], rel[32];
    long pid = 0;
    int used = 0;

    if (strncmp(line, SC_TRACE_TAG_RANK_BINDING, strlen(SC_TRACE_TAG_RANK_BINDING)) != 0 ||
        sscanf(line, SC_TRACE_RANK_BINDING("%*d", "%63s", "%*d", "%ld", "%*s") "%n", host, &pid,
               &used) != 2 ||
        line[used] != '\0' || pid <= 0 || pid > INT_MAX || strcmp(host, a->host) != 0)
        return 0;
    snprintf(rel, sizeof(rel), "%ld/stat", pid);
    unsigned long long start = sc_rankadopt_start_ticks(a->proc_root, rel);
    if (!a->workload_start || !start || start < a->workload_start || !sc__names_run(a, (pid_t)pid))
        return 0;
    return (pid_t)pid;
}
