/*
 * cacheprobe.c: the cache probe of streamcard-stream (see cacheprobe.h). One buffer of the
 * largest size is first touched by the pinned threads (each its own static chunk, as STREAM
 * places its arrays); every working set is then read, each thread its chunk, until 20 ms
 * and at least 3 passes have gone by and the two fastest agree, and the fastest gives the
 * rate. A read is the
 * plainest loop a cache can serve faster than memory: 64-bit integer sums (no floating-point
 * order to respect), several accumulators wide, on the widest vectors the CPU has.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include "cacheprobe.h"
#include "harness.h"
#include "sc_trace_protocol.h"
#include "workload_cli.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define SCT__GRANULE 512             /* 4 KiB of words: thread chunks start on pages */
#define SCT__MIN_SECONDS 0.02        /* per working set, at least */
#define SCT__MIN_PASSES 3            /* per working set, at least */
#define SCT__MAX_SECONDS 0.25        /* per working set, at most (unless one pass is longer) */
#define SCT__HUGE ((size_t)2 << 20)  /* the buffer is 2 MiB aligned, as STREAM's arrays */
#define SCT__STEP 1.4142135623730951 /* sqrt(2): two points per doubling */

typedef uint64_t (*sct__sum_fn)(const uint64_t *a, size_t n);

/* The read loops measure the memory system: in a sanitized build, AddressSanitizer's check of
   every load would be measured instead (its probe then saw no cache edge in 1 run of 3 on a
   Zen 3 VM: 14-24 GB/s, flat). They read only a[0..n), n from the caller's buffer. */
#define SCT__MEASURED __attribute__((no_sanitize_address))

SCT__MEASURED static uint64_t sct__sum_portable(const uint64_t *a, size_t n)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;

    for (; i + 4 <= n; i += 4) {
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i];
    return s0 + s1 + s2 + s3;
}

#if defined(__x86_64__)
SCT__MEASURED __attribute__((target("avx2"))) static uint64_t sct__sum_avx2(const uint64_t *a,
                                                                            size_t n)
{
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    uint64_t out[4];
    size_t i = 0;

    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_add_epi64(s0, _mm256_loadu_si256((const __m256i *)(a + i)));
        s1 = _mm256_add_epi64(s1, _mm256_loadu_si256((const __m256i *)(a + i + 4)));
        s2 = _mm256_add_epi64(s2, _mm256_loadu_si256((const __m256i *)(a + i + 8)));
        s3 = _mm256_add_epi64(s3, _mm256_loadu_si256((const __m256i *)(a + i + 12)));
    }
    s0 = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
    _mm256_storeu_si256((__m256i *)out, s0);
    return out[0] + out[1] + out[2] + out[3] + sct__sum_portable(a + i, n - i);
}

SCT__MEASURED __attribute__((target("avx512f"))) static uint64_t sct__sum_avx512(const uint64_t *a,
                                                                                 size_t n)
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;

    for (; i + 32 <= n; i += 32) {
        s0 = _mm512_add_epi64(s0, _mm512_loadu_si512(a + i));
        s1 = _mm512_add_epi64(s1, _mm512_loadu_si512(a + i + 8));
        s2 = _mm512_add_epi64(s2, _mm512_loadu_si512(a + i + 16));
        s3 = _mm512_add_epi64(s3, _mm512_loadu_si512(a + i + 24));
    }
    s0 = _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3));
    return (uint64_t)_mm512_reduce_add_epi64(s0) + sct__sum_portable(a + i, n - i);
}
#endif

/* The widest read loop this CPU runs, and its name for the set-up line. */
static sct__sum_fn sct__pick_sum(const char **isa)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        *isa = "avx512f";
        return sct__sum_avx512;
    }
    if (__builtin_cpu_supports("avx2")) {
        *isa = "avx2";
        return sct__sum_avx2;
    }
#endif
    *isa = "portable";
    return sct__sum_portable;
}

int sct_probe_parse_cpus(const char *prog, const char *list, struct sct_probe_opts *o)
{
    const char *p = list;

    o->n_cpus = 0;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            break;
        errno = 0;
        long cpu = strtol(p, &end, 10);
        if (errno || cpu >= CPU_SETSIZE || o->n_cpus == SCT_PROBE_MAX_CPUS)
            break;
        o->cpus[o->n_cpus++] = (int)cpu;
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            break;
    }
    if (*p || !o->n_cpus)
        return sct_cli_bad(prog, "--probe-cpus", "not a comma-separated list of CPU numbers",
                           "e.g. 0,1,5");
    return 0;
}

/* Pins the calling thread to one CPU; the probe goes on unpinned when it cannot. */
static void sct__pin(const struct sct_probe_opts *o, int tid)
{
    cpu_set_t set;

    if (!o->n_cpus)
        return;
    CPU_ZERO(&set);
    CPU_SET(o->cpus[tid % o->n_cpus], &set);
    (void)sched_setaffinity(0, sizeof(set), &set);
}

/* One pass over the first n words, each thread its chunk; the sum keeps the loads alive. */
static uint64_t sct__pass(sct__sum_fn sum, const uint64_t *a, size_t n)
{
    uint64_t total = 0;

#pragma omp parallel reduction(+ : total)
    {
        size_t lo, hi;
        sct_static_chunk(n, SCT__GRANULE, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        total += sum(a + lo, hi - lo);
    }
    return total;
}

/*
 * The best rate (MB/s) of reading the first n words: passes until SCT__MIN_SECONDS and
 * SCT__MIN_PASSES have gone by and the two fastest agree within 10% (a pass that waited for
 * a descheduled thread is no rate of the caches), or SCT__MAX_SECONDS.
 */
static double sct__measure(sct__sum_fn sum, const uint64_t *a, size_t n, volatile uint64_t *sink)
{
    double start = sct_clock_monotonic(NULL), best = 0, second = 0;

    for (int pass = 0;; pass++) {
        double t0 = sct_clock_monotonic(NULL);
        *sink += sct__pass(sum, a, n);
        double now = sct_clock_monotonic(NULL), t = now - t0;
        if (t > 0 && (best == 0 || t < best)) {
            second = best;
            best = t;
        } else if (t > 0 && (second == 0 || t < second)) {
            second = t;
        }
        bool enough = pass + 1 >= SCT__MIN_PASSES && now - start >= SCT__MIN_SECONDS;
        if ((enough && second > 0 && second <= 1.1 * best) || now - start >= SCT__MAX_SECONDS)
            break;
    }
    return best > 0 ? (double)n * sizeof(uint64_t) / best / 1e6 : 0;
}

/* The CPUs as the set-up line names them: a comma list, "-" when not pinned. */
static void sct__cpus_text(const struct sct_probe_opts *o, char *buf, size_t len)
{
    size_t used = 0;

    snprintf(buf, len, "-");
    for (int i = 0; i < o->n_cpus && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "", o->cpus[i]);
}

int sct_probe_run(const char *prog, const struct sct_probe_opts *o)
{
    size_t words = o->max_bytes / sizeof(uint64_t), bytes = words * sizeof(uint64_t);
    const char *isa;
    sct__sum_fn sum = sct__pick_sum(&isa);
    uint64_t *a = NULL;
    volatile uint64_t sink = 0; /* the sums are kept, so no pass is optimised away */
    char cpus[8192];

    if (posix_memalign((void **)&a, SCT__HUGE, (bytes + SCT__HUGE - 1) / SCT__HUGE * SCT__HUGE)) {
        fprintf(stderr, "%s: --cache-probe: allocating %zu bytes: %s (a smaller size)\n", prog,
                bytes, strerror(ENOMEM));
        return 1;
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(a, bytes, MADV_HUGEPAGE); /* as STREAM's arrays: best effort */
#endif
    omp_set_num_threads(o->threads);
#pragma omp parallel
    {
        size_t lo, hi;
        sct__pin(o, omp_get_thread_num());
        sct_static_chunk(words, SCT__GRANULE, omp_get_num_threads(), omp_get_thread_num(), &lo,
                         &hi);
        for (size_t i = lo; i < hi; i++)
            a[i] = i;
    }
    sct__cpus_text(o, cpus, sizeof(cpus));
    printf(SC_PROBE_SETUP("%d", "%s", "%s") "\n", o->threads, isa, cpus);
    /* Point k: 256 KiB x sqrt(2)^k, up to the buffer (an integer counter: k, not the size). */
    for (int k = 0;; k++) {
        double size = SCT_PROBE_MIN_BYTES * pow(SCT__STEP, k);
        if (size > (double)bytes * 1.0001)
            break;
        /* Whole 4 KiB pages per thread, so every thread reads its own pages. */
        size_t n = (size_t)size / sizeof(uint64_t) / SCT__GRANULE * SCT__GRANULE;
        if (n > words)
            n = words;
        printf(SC_PROBE_POINT("%zu", "%.1f") "\n", n * sizeof(uint64_t),
               sct__measure(sum, a, n, &sink));
    }
    free(a);
    return 0;
}
