/* timings.c: the phase trace of `streamcard run` (see timings.h). */
#include "timings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sc_timings {
    int fd;
};

sc_timings *sc_timings_open(void)
{
    const char *path = getenv(SC_TIMINGS_ENV);
    sc_timings *t;

    if (!path || !*path)
        return NULL;
    /* O_APPEND: every line one write, whole, even from a forked guardian. */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "streamcard: %s=%s: cannot open it: %s (the run goes on untraced)\n",
                SC_TIMINGS_ENV, path, strerror(errno));
        return NULL;
    }
    if (!(t = malloc(sizeof(*t)))) {
        close(fd);
        return NULL;
    }
    t->fd = fd;
    return t;
}

void sc_timings_at(sc_timings *t, const char *phase, const struct timespec *at)
{
    if (t && (at->tv_sec || at->tv_nsec))
        dprintf(t->fd, "%lld.%09ld %s -\n", (long long)at->tv_sec, at->tv_nsec, phase);
}

void sc_timings_mark(sc_timings *t, const char *phase)
{
    struct timespec now, cpu;

    if (!t)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    dprintf(t->fd, "%lld.%09ld %s %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec, phase,
            (long long)cpu.tv_sec, cpu.tv_nsec);
}

void sc_timings_close(sc_timings *t)
{
    if (!t)
        return;
    close(t->fd);
    free(t);
}
