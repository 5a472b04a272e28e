/*
 * marker-triad.c: a program of the kind streamcard did not write, instrumented with the
 * marker library (streamcard/marker.h; doc/markers.md): a triad a[i] = b[i] + s * c[i] over
 * arrays of n doubles, repeated reps times. Its main loop is bounded by sc_marker_begin and
 * sc_marker_end, its rate reported with sc_marker_figure and printed for a reader too; it
 * checks its own result and prints "Solution Validates" (contrib/cards/exec-marker.yaml).
 *
 * Usage: streamcard-marker-triad [n [reps]]   (default 4000000 elements, 20 repetitions)
 * Without streamcard around it, the markers do nothing and it runs as any program.
 */
#include <streamcard/marker.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A positive count from argv, or -1 with a line on stderr. */
static long count_arg(const char *text, const char *what)
{
    char *end = NULL;

    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < 1 || v > 1L << 32) {
        fprintf(stderr, "marker-triad: %s \"%s\" is not a count (valid: 1 to 2^32)\n", what, text);
        return -1;
    }
    return v;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? count_arg(argv[1], "n") : 4000000;
    long reps = argc > 2 ? count_arg(argv[2], "reps") : 20;
    const double s = 3.0;
    int rc;

    if (n < 0 || reps < 0)
        return 2;
    /* Said before the set-up, and flushed: a capture at the first output would see the
       arrays not yet in memory (tests/marker/run.sh tells the two captures apart so). */
    printf("marker-triad: %ld elements, %ld repetitions, markers %s\n", n, reps,
           sc_marker_active() ? "on" : "off (no streamcard observer)");
    fflush(stdout);
    double *a = malloc((size_t)n * sizeof(*a)), *b = malloc((size_t)n * sizeof(*b));
    double *c = malloc((size_t)n * sizeof(*c));
    if (!a || !b || !c) {
        fprintf(stderr, "marker-triad: %ld elements: out of memory\n", n);
        free(a);
        free(b);
        free(c);
        return 1;
    }
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
    if ((rc = sc_marker_begin(SC_MARKER_MAIN_LOOP)) < 0)
        fprintf(stderr, "marker-triad: sc_marker_begin: %s\n", strerror(-rc));
    double t0 = now_s();
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
    double seconds = now_s() - t0;
    if ((rc = sc_marker_end(SC_MARKER_MAIN_LOOP)) < 0)
        fprintf(stderr, "marker-triad: sc_marker_end: %s\n", strerror(-rc));

    /* Three arrays of n doubles move per repetition (two read, one written). */
    double mbps = 3.0 * 8.0 * (double)n * (double)reps / seconds / 1e6;
    printf("Triad rate: %.3f MB/s over %.6f s\n", mbps, seconds);
    if ((rc = sc_marker_figure("triad_rate", mbps, "MB/s")) < 0)
        fprintf(stderr, "marker-triad: sc_marker_figure: %s\n", strerror(-rc));

    long wrong = 0;
    for (long i = 0; i < n; i++)
        wrong += fabs(a[i] - (1.0 + s * 2.0)) > 0.0;
    if (wrong)
        printf("Failed Validation: %ld of %ld elements are wrong\n", wrong, n);
    else
        printf("Solution Validates: every element is %.1f\n", 1.0 + s * 2.0);
    free(a);
    free(b);
    free(c);
    return wrong ? 1 : 0;
}
