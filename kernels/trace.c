/*
 * trace.c: the trace lines of sc_trace_protocol.h (doc/contracts/trace-protocol.md, "The trace
 * protocol"), written so that an observer reading a pipe sees each line whole and without delay.
 */
#include "trace.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Write one formatted line to stdout and flush it. The stream lock is held across the
 * write and the flush so that a line from another thread can neither split this one nor
 * sit unflushed behind it; the line itself is one vfprintf call.
 */
__attribute__((format(printf, 1, 2))) static int sct__line(const char *fmt, ...)
{
    va_list ap;
    int rc = 0;

    flockfile(stdout);
    va_start(ap, fmt);
    if (vfprintf(stdout, fmt, ap) < 0)
        rc = -EIO;
    va_end(ap);
    if (fflush(stdout) != 0)
        rc = -EIO;
    funlockfile(stdout);
    return rc;
}

int sct_thread_binding(int thread, int cpu)
{
    return sct__line(SC_TRACE_THREAD_BINDING("%d", "%d") "\n", thread, cpu);
}

/*
 * The readiness handshake: an observer that starts the workload with STREAMCARD_READY_FD
 * (a pipe it holds the other end of) wants to snapshot the process the moment its main
 * loop begins, and a short run could otherwise end before the snapshot is taken. So at
 * main_loop_begin the workload waits, before its first timed repetition, for one byte
 * (the snapshots are written) or EOF (the observer went away), at most 10 s.
 * Returns 1 when it waited, 0 when no observer asked for it.
 */
static int sct__wait_for_observer(void)
{
    const char *text = getenv(SC_TRACE_READY_FD_ENV);
    char *end = NULL, byte;

    if (!text || !*text)
        return 0;
    long fd = strtol(text, &end, 10);
    if (*end || fd < 3 || fd > 1 << 20)
        return 0;
    struct pollfd p = {(int)fd, POLLIN, 0};
    while (poll(&p, 1, SC_TRACE_READY_WAIT_MAX_MS) < 0 && errno == EINTR)
        ;
    if (p.revents & (POLLIN | POLLHUP))
        while (read((int)fd, &byte, 1) < 0 && errno == EINTR)
            ;
    close((int)fd);
    unsetenv(SC_TRACE_READY_FD_ENV); /* not inherited by anything the workload starts */
    return 1;
}

static double sct__ms_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

int sct_phase(const char *name)
{
    struct timespec t0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sct__line(SC_TRACE_PHASE "%s\n", name);
    /* The workload's own view of the capture: from writing the marker to being released,
       which includes the observer's wake-up that its own clock cannot see. */
    if (strcmp(name, SC_TRACE_MAIN_LOOP_BEGIN) == 0 && sct__wait_for_observer())
        sct__line(SC_TRACE_READY_WAIT("%.3f") "\n", sct__ms_since(&t0));
    return rc;
}

int sct_threads_requested(int n)
{
    return sct__line(SC_TRACE_THREADS_REQUESTED("%d") "\n", n);
}

int sct_threads_counted(int n)
{
    return sct__line(SC_TRACE_THREADS_COUNTED("%d") "\n", n);
}
