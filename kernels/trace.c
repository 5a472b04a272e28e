/*
 * trace.c: the trace lines of DESIGN.md, written so that an observer reading a pipe sees
 * each line whole and without delay.
 */
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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
    return sct__line("TRACE_THREAD_BINDING thread=%d cpu=%d\n", thread, cpu);
}

int sct_phase(const char *name)
{
    return sct__line("TRACE_WORKLOAD_PHASE=%s\n", name);
}

int sct_threads_requested(int n)
{
    return sct__line("Number of Threads requested = %d\n", n);
}

int sct_threads_counted(int n)
{
    return sct__line("Number of Threads counted = %d\n", n);
}
