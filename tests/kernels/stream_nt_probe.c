/*
 * stream_nt_probe.c: STREAM copy and triad with non-temporal (streaming) stores, written
 * apart from the workload, the anchor tests/bench/stream_vs_likwid.sh holds streamcard-stream
 * to. Not a test: a bench helper, built with the tests so that it stays warning and
 * static-analysis clean.
 *
 * Written apart from kernels/stream_ops.c on purpose: an anchor sharing the kernel would
 * agree with it by construction. Here the arrays are page aligned and each thread streams
 * whole blocks of four cache lines of its contiguous share (as likwid-bench's *_mem_*
 * kernels unroll), so no store needs a plain head; only the last thread has a plain tail
 * shorter than a block.
 *
 * usage: stream_nt_probe copy|triad N ITERATIONS
 *   copy: c = a; triad: a = b + 3 * c (STREAM's). N doubles per array, three arrays.
 *   Threads are OpenMP's (OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND); each thread first
 *   touches its own share. Each iteration is one parallel region timed around (STREAM's
 *   way); the first is a warm-up, the others are timed (ITERATIONS >= 2).
 * Prints "key value" lines:
 *   stores avx512f|avx|sse2|plain   the widest streaming store the CPU and OS allow
 *   cpu THREAD CPU                  where each thread ran (sched_getcpu), one line each
 *   best_MBps, avg_MBps             bytes over the fastest and over the mean time; MB = 1e6 B;
 *                                   copy counts 16 B per element, triad 24 B (STREAM's)
 *   validates yes                   every element holds the expected value afterwards
 * Exit 0; 2 with a one-line message on a bad argument or no memory; 1 when it does not
 * validate.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define PROBE_BLOCK 32 /* doubles a thread streams per step: four 64-byte lines */
#define PROBE_SCALAR 3.0

enum probe_isa { PROBE_PLAIN, PROBE_SSE2, PROBE_AVX, PROBE_AVX512F };

struct probe {
    double *a, *b, *c;
    size_t n;
    int triad; /* 0: c = a; 1: a = b + s * c */
    enum probe_isa isa;
};

/* [lo, hi) of thread t of nt: whole blocks, the remainder to the last thread. */
static void probe_share(size_t n, int t, int nt, size_t *lo, size_t *hi)
{
    size_t blocks = n / PROBE_BLOCK;

    *lo = blocks * (size_t)t / (size_t)nt * PROBE_BLOCK;
    *hi = t == nt - 1 ? n : blocks * (size_t)(t + 1) / (size_t)nt * PROBE_BLOCK;
}

/* Plain stores: the last thread's tail, and the whole share where nothing streams. */
static void probe_plain(const struct probe *p, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        if (p->triad)
            p->a[i] = p->b[i] + PROBE_SCALAR * p->c[i];
        else
            p->c[i] = p->a[i];
    }
}

#if defined(__x86_64__)
/*
 * The streaming paths over [lo, hi), whole blocks, 64-byte aligned (page-aligned arrays):
 * dst = x (copy) or dst = x + s * y (triad). The pointers come as arguments, not in the
 * struct, which the stores might alias.
 */
__attribute__((target("avx512f"))) static void
probe_avx512f(double *dst, const double *x, const double *y, int triad, size_t lo, size_t hi)
{
    const __m512d s = _mm512_set1_pd(PROBE_SCALAR);

    for (size_t i = lo; i < hi; i += PROBE_BLOCK)
        for (size_t j = i; j < i + PROBE_BLOCK; j += 8) {
            __m512d v = _mm512_load_pd(x + j);
            if (triad)
                v = _mm512_add_pd(v, _mm512_mul_pd(s, _mm512_load_pd(y + j)));
            _mm512_stream_pd(dst + j, v);
        }
}

__attribute__((target("avx"))) static void
probe_avx(double *dst, const double *x, const double *y, int triad, size_t lo, size_t hi)
{
    const __m256d s = _mm256_set1_pd(PROBE_SCALAR);

    for (size_t i = lo; i < hi; i += PROBE_BLOCK)
        for (size_t j = i; j < i + PROBE_BLOCK; j += 4) {
            __m256d v = _mm256_load_pd(x + j);
            if (triad)
                v = _mm256_add_pd(v, _mm256_mul_pd(s, _mm256_load_pd(y + j)));
            _mm256_stream_pd(dst + j, v);
        }
}

static void
probe_sse2(double *dst, const double *x, const double *y, int triad, size_t lo, size_t hi)
{
    const __m128d s = _mm_set1_pd(PROBE_SCALAR);

    for (size_t i = lo; i < hi; i += PROBE_BLOCK)
        for (size_t j = i; j < i + PROBE_BLOCK; j += 2) {
            __m128d v = _mm_load_pd(x + j);
            if (triad)
                v = _mm_add_pd(v, _mm_mul_pd(s, _mm_load_pd(y + j)));
            _mm_stream_pd(dst + j, v);
        }
}
#endif

/* The widest streaming store this CPU and its OS allow (__builtin_cpu_supports checks the
 * OS's saved state too). */
static enum probe_isa probe_widest(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return PROBE_AVX512F;
    if (__builtin_cpu_supports("avx"))
        return PROBE_AVX;
    return PROBE_SSE2;
#else
    return PROBE_PLAIN;
#endif
}

/* The calling thread's share, streamed where it can be; its stores fenced before the join. */
static void probe_step(const struct probe *p, int t, int nt)
{
    size_t lo, hi;

    probe_share(p->n, t, nt, &lo, &hi);
#if defined(__x86_64__)
    size_t mid = lo + (hi - lo) / PROBE_BLOCK * PROBE_BLOCK;
    double *dst = p->triad ? p->a : p->c;
    const double *x = p->triad ? p->b : p->a;

    if (p->isa == PROBE_AVX512F)
        probe_avx512f(dst, x, p->c, p->triad, lo, mid);
    else if (p->isa == PROBE_AVX)
        probe_avx(dst, x, p->c, p->triad, lo, mid);
    else
        probe_sse2(dst, x, p->c, p->triad, lo, mid);
    probe_plain(p, mid, hi);
    _mm_sfence();
#else
    probe_plain(p, lo, hi);
#endif
}

/* A whole number in [min, max] from text, or 0 (below every min here). */
static size_t probe_count(const char *text, size_t min, size_t max)
{
    char *end = NULL;

    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < min || v > max)
        return 0;
    return (size_t)v;
}

/* Page-aligned arrays, each thread setting its own share first (first touch). 0 or -ENOMEM. */
static int probe_alloc(struct probe *p)
{
    size_t bytes = (p->n * sizeof(double) + 4095) / 4096 * 4096;

    p->a = aligned_alloc(4096, bytes);
    p->b = aligned_alloc(4096, bytes);
    p->c = aligned_alloc(4096, bytes);
    if (!p->a || !p->b || !p->c)
        return -ENOMEM;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t lo, hi;

        probe_share(p->n, t, nt, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            p->a[i] = 1.0;
            p->b[i] = 2.0;
            p->c[i] = 0.5;
        }
#pragma omp critical
        printf("cpu %d %d\n", t, sched_getcpu());
    }
    return 0;
}

/* Elements that do not hold what the kernel stores: copy 1.0, triad 2 + 3 * 0.5. */
static size_t probe_wrong(const struct probe *p)
{
    const double *out = p->triad ? p->a : p->c;
    double want = p->triad ? 2.0 + PROBE_SCALAR * 0.5 : 1.0;
    size_t wrong = 0;

    for (size_t i = 0; i < p->n; i++)
        wrong += out[i] != want;
    return wrong;
}

int main(int argc, char **argv)
{
    static const char *const isa_names[] = {"plain", "sse2", "avx", "avx512f"};
    struct probe p = {.isa = probe_widest()};
    size_t iterations = 0;

    if (argc == 4) {
        p.triad = !strcmp(argv[1], "triad");
        p.n = probe_count(argv[2], 1, (size_t)1 << 34);
        iterations = probe_count(argv[3], 2, 100000);
    }
    if (argc != 4 || (!p.triad && strcmp(argv[1], "copy")) || !p.n || !iterations) {
        fprintf(stderr, "stream_nt_probe: bad arguments (valid: copy|triad N ITERATIONS, "
                        "N 1..2^34 doubles, ITERATIONS 2..100000)\n");
        return 2;
    }
    printf("stores %s\n", isa_names[p.isa]);
    int rc = probe_alloc(&p);
    double best = 0, sum = 0;
    for (size_t it = 0; !rc && it < iterations; it++) {
        double t0 = omp_get_wtime();
#pragma omp parallel
        probe_step(&p, omp_get_thread_num(), omp_get_num_threads());
        double t = omp_get_wtime() - t0;
        if (it > 0) { /* the first is the warm-up */
            sum += t;
            best = it == 1 || t < best ? t : best;
        }
    }
    if (rc) {
        fprintf(stderr, "stream_nt_probe: 3 arrays of %zu doubles: %s (valid: a size that fits "
                        "in memory)\n",
                p.n, strerror(-rc));
        rc = 2;
    } else {
        double bytes = (p.triad ? 24.0 : 16.0) * (double)p.n;
        size_t wrong = probe_wrong(&p);
        printf("best_MBps %.1f\navg_MBps %.1f\n", bytes / best / 1e6,
               bytes / (sum / (double)(iterations - 1)) / 1e6);
        printf("validates %s\n", wrong ? "no" : "yes");
        if (wrong)
            fprintf(stderr, "stream_nt_probe: %zu of %zu elements wrong\n", wrong, p.n);
        rc = wrong ? 1 : 0;
    }
    free(p.a);
    free(p.b);
    free(p.c);
    return rc;
}
