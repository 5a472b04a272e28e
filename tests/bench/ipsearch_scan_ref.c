/*
 * ipsearch_scan_ref.c: the other side of tests/bench/ipsearch_vs_scan.sh. Not part of the
 * CMake build and not a test: the script compiles it with -O3 -march=native (the compiler
 * free to use every instruction this CPU has) against the built kernel libraries, which
 * provide only the data (generator, checksums) so that both sides search the same vectors.
 *
 *   ref search NB NQ DIM K SEED ITERATIONS   exact top-k by a single-pass scan written
 *                                            independently of the kernel; prints the data
 *                                            checksums, the best search (wall seconds, and
 *                                            the threads' CPU seconds of scan and merge) and
 *                                            its ids' checksum
 *   ref peak N REPS                          OpenBLAS sgemm N x N x N with OPENBLAS_NUM_THREADS
 *                                            threads: the best GFLOP/s, per wall and per CPU
 *                                            second (the machine's sgemm ceiling)
 *   ref gemm NB NQ DIM K SEED REPS           OpenBLAS sgemm on the search's own shapes, the
 *                                            same data, no top-k: (a) the whole score matrix
 *                                            (NQ x NB, inner dimension DIM) in one call with
 *                                            OPENBLAS_NUM_THREADS threads; (b) the kernel's
 *                                            own calls, its tiles of rows and queries per
 *                                            call (from the engine's workspace for NQ
 *                                            queries), each of the OpenMP
 *                                            threads its slice of the rows with one BLAS
 *                                            thread. The best GFLOP/s of each, per wall and
 *                                            per CPU second: the sgemm peak a search of these
 *                                            shapes can reach, the top-k and merge excluded
 *   ref read NB DIM SEED ITERATIONS          the same database read once by the same threads,
 *                                            each its slice, only summed: the best GB/s, the
 *                                            ceiling of any scan bound by memory
 *
 * The scan: OpenMP threads (OMP_NUM_THREADS, pinned by OMP_PLACES/OMP_PROC_BIND) each take a
 * contiguous slice of the rows; every row is dotted with every query while it is in L1, eight
 * queries at a time (eight independent sums sharing each load of the row, vectorised by the
 * compiler with `omp simd`); a score reaches its query's sorted top-k list only if it beats
 * the list's last score (the threshold test); the lists of the threads are merged at the end.
 * Ties: the smaller id first, as faiss and the kernel order them.
 */
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipsearch_engine.h"

/* CPU seconds of the whole process: every thread, BLAS workers included. */
static double cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One query's best k so far, sorted best first; last[] is the threshold. */
struct topk {
    float *s;
    int64_t *id;
};

/* Insert (s, id) into a sorted list of k that it beats (s > list's last score). Rows come
 * in ascending id order, so an equal score stays behind the one already kept. */
static void insert(struct topk *t, size_t k, float s, int64_t id)
{
    size_t pos = k - 1;

    while (pos > 0 && s > t->s[pos - 1]) {
        t->s[pos] = t->s[pos - 1];
        t->id[pos] = t->id[pos - 1];
        pos--;
    }
    t->s[pos] = s;
    t->id[pos] = id;
}

static inline void offer(struct topk *t, size_t k, float s, int64_t id)
{
    if (s > t->s[k - 1])
        insert(t, k, s, id);
}

/* Row x against the n (<= 8) queries at q: scores into s. n independent sums share each
 * load of the row (the compiler keeps each in a vector register and adds them up at the
 * end); n is a constant where it is called, so the loop is specialised for it. */
static inline __attribute__((always_inline)) void dots(const float *x, const float *q, size_t dim,
                                                       int n, float *s)
{
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    const float *q0 = q, *q1 = q0 + dim, *q2 = q1 + dim, *q3 = q2 + dim, *q4 = q3 + dim,
                *q5 = q4 + dim, *q6 = q5 + dim, *q7 = q6 + dim;

    if (n == 8) {
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4, s5, s6, s7)
        for (size_t t = 0; t < dim; t++) {
            s0 += x[t] * q0[t];
            s1 += x[t] * q1[t];
            s2 += x[t] * q2[t];
            s3 += x[t] * q3[t];
            s4 += x[t] * q4[t];
            s5 += x[t] * q5[t];
            s6 += x[t] * q6[t];
            s7 += x[t] * q7[t];
        }
    } else if (n == 4) {
#pragma omp simd reduction(+ : s0, s1, s2, s3)
        for (size_t t = 0; t < dim; t++) {
            s0 += x[t] * q0[t];
            s1 += x[t] * q1[t];
            s2 += x[t] * q2[t];
            s3 += x[t] * q3[t];
        }
    } else {
#pragma omp simd reduction(+ : s0)
        for (size_t t = 0; t < dim; t++)
            s0 += x[t] * q0[t];
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3, s[4] = s4, s[5] = s5, s[6] = s6, s[7] = s7;
}

/* Rows [lo, hi) against every query into the thread's lists (nq of them): queries in
 * groups of 8, then of 4, then one by one. */
static void scan_slice(const struct sct_ips_data *d, size_t lo, size_t hi, size_t k,
                       struct topk *lists)
{
    const size_t dim = d->dim, nq = d->nq;
    float s[8];

    for (size_t r = lo; r < hi; r++) {
        const float *x = d->db + r * dim;
        size_t i = 0;
        for (; i + 8 <= nq; i += 8) {
            dots(x, d->q + i * dim, dim, 8, s);
            for (int j = 0; j < 8; j++)
                offer(&lists[i + (size_t)j], k, s[j], (int64_t)r);
        }
        for (; i + 4 <= nq; i += 4) {
            dots(x, d->q + i * dim, dim, 4, s);
            for (int j = 0; j < 4; j++)
                offer(&lists[i + (size_t)j], k, s[j], (int64_t)r);
        }
        for (; i < nq; i++) {
            dots(x, d->q + i * dim, dim, 1, s);
            offer(&lists[i], k, s[0], (int64_t)r);
        }
    }
}

static double thread_cpu_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*
 * One search: every thread scans its slice, then the threads merge the lists into res,
 * each a share of the queries. Returns the CPU seconds the threads spent working (scan and
 * merge, not the barrier between them), summed.
 */
static double search(const struct sct_ips_data *d, size_t k, int threads, struct topk *lists,
                     struct sct_ips_results *res)
{
    double cpu = 0;

#pragma omp parallel num_threads(threads) reduction(+ : cpu)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t lo = d->nb * (size_t)t / (size_t)nt, hi = d->nb * (size_t)(t + 1) / (size_t)nt;
        struct topk *mine = lists + (size_t)t * d->nq;
        double c0 = thread_cpu_now();
        for (size_t i = 0; i < d->nq; i++)
            for (size_t j = 0; j < k; j++) {
                mine[i].s[j] = -INFINITY;
                mine[i].id[j] = -1;
            }
        scan_slice(d, lo, hi, k, mine);
        cpu += thread_cpu_now() - c0;
#pragma omp barrier
        c0 = thread_cpu_now();
#pragma omp for schedule(static) nowait
        for (size_t i = 0; i < d->nq; i++) {
            struct topk out = {res->score + i * k, res->id + i * k};
            for (size_t j = 0; j < k; j++) {
                out.s[j] = -INFINITY;
                out.id[j] = -1;
            }
            /* Threads in slice order: ids ascend, so equal scores keep the smaller id. */
            for (int p = 0; p < nt; p++)
                for (size_t j = 0; j < k && lists[(size_t)p * d->nq + i].id[j] >= 0; j++)
                    offer(&out, k, lists[(size_t)p * d->nq + i].s[j],
                          lists[(size_t)p * d->nq + i].id[j]);
        }
        cpu += thread_cpu_now() - c0;
    }
    return cpu;
}

static int run_search(size_t nb, size_t nq, size_t dim, size_t k, uint64_t seed, int iterations)
{
    int threads = omp_get_max_threads();
    struct sct_ips_data d;
    struct sct_ips_results res;
    /* Each thread's lists start on a cache line of their own: no line shared between
       threads that write them. */
    size_t nl = (size_t)threads * nq, per = (nq * k + 15) / 16 * 16;
    struct topk *lists = calloc(nl, sizeof(*lists));
    float *ls = aligned_alloc(64, (size_t)threads * per * sizeof(float));
    int64_t *lid = aligned_alloc(64, (size_t)threads * per * sizeof(int64_t));
    double best = 0, best_cpu = 0;

    if (!lists || !ls || !lid || sct_ips_data_alloc(&d, nb, nq, dim) != 0 ||
        sct_ips_results_alloc(&res, nq, k) != 0) {
        fprintf(stderr, "ipsearch_scan_ref: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < nl; i++)
        lists[i] = (struct topk){ls + i / nq * per + i % nq * k, lid + i / nq * per + i % nq * k};
    sct_ips_data_fill(&d, seed, threads);
    printf("database_checksum=0x%016llx\nqueries_checksum=0x%016llx\n",
           (unsigned long long)sct_ips_checksum(d.db, nb * dim, threads),
           (unsigned long long)sct_ips_checksum(d.q, nq * dim, threads));
    for (int it = 0; it < iterations; it++) { /* the first is a warm-up, as in the kernel */
        double t0 = now();
        double c = search(&d, k, threads, lists, &res);
        double t = now() - t0;
        if (it == 1 || (it > 1 && t < best))
            best = t;
        if (it == 1 || (it > 1 && c < best_cpu))
            best_cpu = c;
    }
    printf("threads=%d\nwall_seconds=%.6f\ncpu_seconds=%.6f\nqps=%.1f\ngflops=%.2f\n", threads,
           best, best_cpu, (double)nq / best, 2e-9 * (double)nb * (double)nq * (double)dim / best);
    printf("results_checksum=0x%016llx\n", (unsigned long long)sct_ips_results_checksum(&res));
    sct_ips_results_free(&res);
    sct_ips_data_free(&d);
    free(lists);
    free(ls);
    free(lid);
    return 0;
}

static int run_read(size_t nb, size_t dim, uint64_t seed, int iterations)
{
    int threads = omp_get_max_threads();
    struct sct_ips_data d;
    double best = 0, sum = 0;

    if (sct_ips_data_alloc(&d, nb, 1, dim) != 0) {
        fprintf(stderr, "ipsearch_scan_ref: out of memory\n");
        return 1;
    }
    sct_ips_data_fill(&d, seed, threads); /* first touch by the same threads */
    for (int it = 0; it < iterations; it++) {
        double t0 = now(), s = 0;
#pragma omp parallel num_threads(threads) reduction(+ : s)
        {
            /* 32 partial sums: four vector chains, so adds never wait on each other. */
            float acc[32] = {0};
            size_t n = nb * dim / 32, lo, hi;
            lo = n * (size_t)omp_get_thread_num() / (size_t)omp_get_num_threads() * 32;
            hi = n * (size_t)(omp_get_thread_num() + 1) / (size_t)omp_get_num_threads() * 32;
            for (size_t i = lo; i < hi; i += 32)
#pragma omp simd
                for (int j = 0; j < 32; j++)
                    acc[j] += d.db[i + (size_t)j];
            for (int j = 0; j < 32; j++)
                s += acc[j];
        }
        double t = now() - t0;
        sum += s;
        if (it == 1 || (it > 1 && t < best))
            best = t;
    }
    printf("threads=%d\nread_seconds=%.6f\nread_GBps=%.2f\nsum=%.1f\n", threads, best,
           1e-9 * (double)(nb * dim * sizeof(float)) / best, sum);
    sct_ips_data_free(&d);
    return 0;
}

static int run_peak(int n, int reps)
{
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(nn * sizeof(float)), *b = malloc(nn * sizeof(float));
    float *c = malloc(nn * sizeof(float));
    double best = 0, best_cpu = 0;

    if (!a || !b || !c) {
        fprintf(stderr, "ipsearch_scan_ref: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)(i % 7) * 0.25f;
        b[i] = (float)(i % 5) * 0.5f;
    }
    for (int r = 0; r <= reps; r++) { /* r = 0 warms up */
        double t0 = now(), c0 = cpu_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                    n);
        double t = now() - t0, tc = cpu_now() - c0;
        if (r == 1 || (r > 1 && t < best))
            best = t;
        if (r == 1 || (r > 1 && tc < best_cpu))
            best_cpu = tc;
    }
    printf("sgemm_threads=%d\nsgemm_peak_gflops=%.2f\nsgemm_peak_gflops_per_cpu_second=%.2f\n",
           openblas_get_num_threads(), 2e-9 * (double)n * (double)n * (double)n / best,
           2e-9 * (double)n * (double)n * (double)n / best_cpu);
    free(a);
    free(b);
    free(c);
    return 0;
}

/* Wall and CPU seconds of the best repetition of one way to compute the scores. */
struct gemm_best {
    double wall, cpu;
};

static void gemm_keep(struct gemm_best *b, int rep, double wall, double cpu)
{
    if (rep == 1 || (rep > 1 && wall < b->wall))
        b->wall = wall;
    if (rep == 1 || (rep > 1 && cpu < b->cpu))
        b->cpu = cpu;
}

static int run_gemm(size_t nb, size_t nq, size_t dim, size_t k, uint64_t seed, int reps)
{
    int threads = omp_get_max_threads();
    struct sct_ips_data d;
    struct sct_ips_workspace *ws = calloc((size_t)threads, sizeof(*ws));
    float *all = NULL;
    struct gemm_best whole = {0, 0}, tiles = {0, 0};
    int rc = 1, blas = openblas_get_num_threads();
    size_t tile_rows = 0;

    if (!ws || sct_ips_data_alloc(&d, nb, nq, dim) != 0)
        goto out;
    for (int t = 0; t < threads; t++)
        if (sct_ips_workspace_alloc(&ws[t], nq, k) != 0)
            goto out_data;
    tile_rows = ws[0].tile_rows;
    all = malloc(nq * nb * sizeof(float));
    if (!all)
        goto out_data;
    sct_ips_data_fill(&d, seed, threads);
    for (int r = 0; r <= reps; r++) { /* r = 0 warms up (and touches every page of all) */
        double t0 = now(), c0 = cpu_now();
        /* (a) S = Q DB^T in one call, OpenBLAS's own threads. */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nq, (int)nb, (int)dim, 1.0f, d.q,
                    (int)dim, d.db, (int)dim, 0.0f, all, (int)nb);
        gemm_keep(&whole, r, now() - t0, cpu_now() - c0);
        /* (b) the kernel's calls: one BLAS thread each, the rows split across the threads. */
        openblas_set_num_threads(1);
        t0 = now(), c0 = cpu_now();
#pragma omp parallel num_threads(threads)
        {
            int t = omp_get_thread_num(), nt = omp_get_num_threads();
            size_t lo = nb * (size_t)t / (size_t)nt, hi = nb * (size_t)(t + 1) / (size_t)nt;
            for (size_t r0 = lo; r0 < hi; r0 += tile_rows) {
                size_t n = hi - r0 < tile_rows ? hi - r0 : tile_rows;
                for (size_t c0 = 0; c0 < nq; c0 += ws[t].qcall) {
                    size_t nc = nq - c0 < ws[t].qcall ? nq - c0 : ws[t].qcall;
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nc, (int)n, (int)dim,
                                1.0f, d.q + c0 * dim, (int)dim, d.db + r0 * dim, (int)dim, 0.0f,
                                ws[t].tile, (int)n);
                }
            }
        }
        gemm_keep(&tiles, r, now() - t0, cpu_now() - c0);
        openblas_set_num_threads(blas);
    }
    double flop = 2.0 * (double)nb * (double)nq * (double)dim;
    printf("gemm_threads=%d\nomp_threads=%d\ntile_rows=%zu\nqueries_per_call=%zu\n", blas, threads,
           tile_rows, ws[0].qcall);
    printf("sgemm_whole_gflops=%.2f\nsgemm_whole_gflops_per_cpu_second=%.2f\n",
           1e-9 * flop / whole.wall, 1e-9 * flop / whole.cpu);
    printf("sgemm_tiles_gflops=%.2f\nsgemm_tiles_gflops_per_cpu_second=%.2f\n",
           1e-9 * flop / tiles.wall, 1e-9 * flop / tiles.cpu);
    printf("sgemm_tiles_cpu_seconds=%.6f\n", tiles.cpu);
    rc = 0;
out_data:
    free(all);
    for (int t = 0; t < threads; t++)
        sct_ips_workspace_free(&ws[t]);
    sct_ips_data_free(&d);
out:
    free(ws);
    if (rc)
        fprintf(stderr, "ipsearch_scan_ref: out of memory\n");
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 8 && strcmp(argv[1], "search") == 0)
        return run_search(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10),
                          strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10),
                          strtoull(argv[6], NULL, 10), atoi(argv[7]));
    if (argc == 4 && strcmp(argv[1], "peak") == 0)
        return run_peak(atoi(argv[2]), atoi(argv[3]));
    if (argc == 8 && strcmp(argv[1], "gemm") == 0)
        return run_gemm(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10),
                        strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10),
                        strtoull(argv[6], NULL, 10), atoi(argv[7]));
    if (argc == 6 && strcmp(argv[1], "read") == 0)
        return run_read(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10),
                        strtoull(argv[4], NULL, 10), atoi(argv[5]));
    fprintf(stderr, "usage: ipsearch_scan_ref search NB NQ DIM K SEED ITERATIONS | peak N REPS | "
                    "gemm NB NQ DIM K SEED REPS | read NB DIM SEED ITERATIONS\n");
    return 2;
}
