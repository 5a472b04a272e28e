/*
 * marker_bench.c: the cost of one marker call (tests/bench/marker_cost.sh). Calls
 * sc_marker_figure() and sc_marker_end() n times each, timed with CLOCK_MONOTONIC, and prints
 * "figure_ns=<ns per call> end_ns=<ns per call>". Whether the calls write is the caller's
 * environment's (STREAMCARD_TRACE_FD): unset, the cost of a call that does nothing.
 *
 * Usage: marker_bench [n]   (default 200000)
 */
#include "streamcard/marker.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;

    if (n < 1) {
        fprintf(stderr, "marker_bench: n \"%s\" is not a count (valid: 1 or more)\n", argv[1]);
        return 2;
    }
    sc_marker_active(); /* the environment is read once: not part of a call's cost */
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        if (sc_marker_figure("bench_figure", (double)i, "1") != 0)
            return 1;
    double t1 = now_ns();
    for (long i = 0; i < n; i++)
        if (sc_marker_end(SC_MARKER_MAIN_LOOP) != 0)
            return 1;
    double t2 = now_ns();
    printf("figure_ns=%.1f end_ns=%.1f\n", (t1 - t0) / (double)n, (t2 - t1) / (double)n);
    return 0;
}
