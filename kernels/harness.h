/*
 * harness.h: the one benchmark harness every workload uses.
 *
 * A workload describes each kernel once (name, bytes and flops per element, a run
 * function) and hands the list to sct_harness_run(), which runs the kernels one after the
 * other, `iterations` times (STREAM's order: copy, scale, add, triad, copy, ...), times each
 * run with a monotonic clock and keeps STREAM's statistics: the first repetition is a
 * warm-up and does not count; best rate = 1e-6 * bytes / min time, in MB/s.
 */
#ifndef SC_KERNELS_HARNESS_H
#define SC_KERNELS_HARNESS_H

#include <stddef.h>

/* One kernel: what it is called, what it moves, how to run it once over all elements. */
struct sct_kernel {
    const char *name;         /* CLI and JSON key, e.g. "copy" */
    const char *label;        /* table row label, e.g. "Copy:" */
    double bytes_per_element; /* bytes moved per element as STREAM counts them (words * 8) */
    double flops_per_element; /* floating-point operations per element */
    void (*run)(void *ctx);   /* one repetition over all elements; may use OpenMP inside */
};

/* Statistics over repetitions 1..iterations-1 (repetition 0 is the warm-up). */
struct sct_kernel_stats {
    double min_s, avg_s, max_s; /* seconds per repetition */
    double best_rate_MBps;      /* 1e-6 * bytes / min_s (0 when min_s is 0) */
    double best_gflops;         /* 1e-9 * flops / min_s (0 when min_s is 0) */
    int samples;                /* repetitions counted: iterations - 1 */
};

/* How to run: sizes, context, and optional hooks. */
struct sct_harness {
    size_t elements; /* elements per repetition (bytes = elements * bytes_per_element) */
    int iterations;  /* repetitions of every kernel, >= 2 */
    void *ctx;       /* passed to run(), clock() and after_repetition() */
    /* Seconds from a monotonic clock; NULL means sct_clock_monotonic. Tests inject one. */
    double (*clock)(void *ctx);
    /* Called after every repetition of the whole kernel list, outside the timed region
     * (workloads use it for test-only faults); NULL for none. rep counts from 0. */
    void (*after_repetition)(int rep, void *ctx);
    /* When not NULL: iterations * nkernels seconds, rep_seconds[rep * nkernels + k], every
     * repetition's time including the warm-up (rep 0), for per-repetition reports. */
    double *rep_seconds;
};

/*
 * Run every kernel h->iterations times and fill stats[i] for kernels[i].
 * Returns 0, or -EINVAL when iterations < 2, nkernels is 0 or a kernel has no run().
 */
int sct_harness_run(const struct sct_harness *h, const struct sct_kernel *const kernels[],
                    size_t nkernels, struct sct_kernel_stats stats[]);

/* CLOCK_MONOTONIC in seconds; ctx is unused. */
double sct_clock_monotonic(void *ctx);

/*
 * The granularity of clock (NULL: sct_clock_monotonic) in whole microseconds, as STREAM's
 * checktick() measures it: the smallest step between 20 successive readings that differ
 * by at least a microsecond. At least 1.
 */
long sct_clock_granularity_us(double (*clock)(void *ctx), void *ctx);

/*
 * The static schedule all workloads share: split [0, n) into nthreads contiguous chunks
 * whose boundaries fall on multiples of granule elements (except the end, n), as evenly
 * as the granules allow, earlier threads getting the extra granule. Thread tid gets
 * [*lo, *hi), possibly empty. Initialisation, kernels and validation use the same split,
 * so each page is first touched by the thread that later works on it.
 */
void sct_static_chunk(size_t n, size_t granule, int nthreads, int tid, size_t *lo, size_t *hi);

#endif
