/*
 * trace.c: the trace lines of sc_trace_protocol.h (doc/contracts/trace-protocol.md, "The trace
 * protocol"), written so that an observer reading a pipe sees each line whole and without delay.
 */
#include "trace.h"
#include "sc_ready.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

int sct_phase(const char *name)
{
    struct timespec t0;
    double waited_ms;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sct__line(SC_TRACE_PHASE "%s\n", name);
    /* The readiness handshake (sc_ready.h): the observer snapshots us before the loop. */
    if (strcmp(name, SC_TRACE_MAIN_LOOP_BEGIN) == 0 && sc_ready_wait(&t0, &waited_ms))
        sct__line(SC_TRACE_READY_WAIT("%.3f") "\n", waited_ms);
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
