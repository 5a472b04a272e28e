/* rankbind.c: where each rank runs, and the readiness pipe's guard (rankbind.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu, sched_getaffinity */
#endif
#include "rankbind.h"
#include "sc_trace_protocol.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void scm_ready_fd_guard(struct scm_ready_guard *g)
{
    const char *text = getenv(SC_TRACE_READY_FD_ENV), *pid = getenv(SC_TRACE_READY_PID_ENV);
    struct stat st;
    char *end = NULL;

    memset(g, 0, sizeof(*g));
    if (!text)
        return;
    g->asked = 1;
    g->fd = strtol(text, &end, 10);
    if (!*text || *end || g->fd < 3 || g->fd > INT_MAX)
        g->why = "invalid";
    else if (fstat((int)g->fd, &st) != 0)
        g->why = "not-open";
    else if (!S_ISFIFO(st.st_mode))
        g->why = "not-a-pipe";
    else if ((fcntl((int)g->fd, F_GETFL) & O_ACCMODE) != O_RDONLY)
        g->why = "not-a-read-end";
    else if (pid && strtol(pid, NULL, 10) != (long)getpid())
        g->why = "other-process";
    else
        g->why = "pipe";
    if (strcmp(g->why, "pipe") != 0) {
        unsetenv(SC_TRACE_READY_FD_ENV);
        return;
    }
    /* fi_info and the library's helpers must not hold it */
    fcntl((int)g->fd, F_SETFD, FD_CLOEXEC);
}

/* "0-3,8": a cpu set as a Linux cpulist. */
static void scm__cpulist(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set) || (c > 0 && CPU_ISSET(c - 1, set)))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, last)
                         : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

void scm_bindings_report(MPI_Comm comm, int rank, int size, struct scm_binding *all)
{
    struct scm_binding me = {.valid = 1, .rank = rank, .cpu = sched_getcpu(), .pid = getpid()};
    cpu_set_t set;
    int counted = 0;

    if (gethostname(me.host, sizeof(me.host) - 1) != 0)
        snprintf(me.host, sizeof(me.host), "unknown");
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        scm__cpulist(&set, me.allowed, sizeof(me.allowed));
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0, comm);
    if (rank != 0)
        return;
    for (int r = 0; r < size; r++) {
        const struct scm_binding *b = &all[r];
        if (!b->valid || b->rank != r)
            continue;
        counted++;
        printf(SC_TRACE_RANK_BINDING("%d", "%s", "%d", "%ld", "%s") "\n", b->rank, b->host, b->cpu,
               b->pid, b->allowed[0] ? b->allowed : "unknown");
    }
    printf(SC_TRACE_RANKS_COUNTED("%d") "\n", counted);
}
