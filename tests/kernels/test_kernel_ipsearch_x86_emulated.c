/*
 * test_kernel_ipsearch_x86_emulated.c: the scan's and the top-k filter's AVX2 and AVX-512
 * code on SIMDe's portable intrinsics (kernels/ipsearch_scan_x86.c and ipsearch_topk_x86.c
 * built with ipsearch_x86_emulated.h), against the portable variants, on every x86 CPU: the
 * AVX-512 variants run nowhere else on a machine without AVX-512. The scan: Whole-number data
 * (every dot product exact in float32), so every variant must leave the same heaps, entry for
 * entry: one to 40 queries (blocks of 16 / QP rows for up to 8, groups of 16 and 8 with every
 * remainder beyond), dimensions shorter than a vector and with every kind of tail, rows that fill
 * no block, exact ties. Rows and queries are allocated to their last float, so a sanitized build
 * also holds the code to never reading past a row. Correctness only: the emulation says nothing of
 * speed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipsearch_engine.h"
#include "ipsearch_scan.h"
#include "ipsearch_topk.h"
#include "ipsearch_x86_emulated.h"
#include "sc_test.h"

/* The emulated variants: their scan and their top-k filter. */
static const struct {
    const char *name;
    sct_ips_scan_fn scan;
    sct_ips_topk_fn topk;
} emulated[] = {
    {"avx2-fma (emulated)", sct_ips_scan_avx2_emulated, sct_ips_topk_avx2_emulated},
    {"avx512f (emulated)", sct_ips_scan_avx512_emulated, sct_ips_topk_avx512_emulated},
};

/* One variant's heaps for queries q against rows, k each, thresholds as the range search
 * sets them. hs and hi: nq * k entries, reset here. */
static void scan(sct_ips_scan_fn fn, const float *q, const float *rows, size_t nq, size_t nrows,
                 size_t dim, size_t k, float *hs, int64_t *hi, float *thr)
{
    struct sct_ips_scan_job job = {.q = q,
                                   .rows = rows,
                                   .nq = nq,
                                   .nrows = nrows,
                                   .dim = dim,
                                   .k = k,
                                   .base = 1000,
                                   .hs = hs,
                                   .thr = thr,
                                   .hi = hi};

    for (size_t i = 0; i < nq; i++) {
        sct_ips_heap_reset(hs + i * k, hi + i * k, k);
        thr[i] = -INFINITY;
    }
    fn(&job);
}

/* Every emulated variant leaves the portable variant's heaps for this shape; ties: every row
 * of one of three classes, so most scores tie. */
static void check_shape(size_t nrows, size_t nq, size_t dim, size_t k, int ties)
{
    float *rows = malloc(nrows * dim * sizeof(float)), *q = malloc(nq * dim * sizeof(float));
    float *hs_ref = malloc(nq * k * sizeof(float)), *hs = malloc(nq * k * sizeof(float));
    int64_t *hi_ref = malloc(nq * k * sizeof(int64_t)), *hi = malloc(nq * k * sizeof(int64_t));
    float *thr = malloc(nq * sizeof(float));

    SC_CHECK(rows && q && hs_ref && hs && hi_ref && hi && thr);
    for (size_t i = 0; i < nrows * dim; i++)
        rows[i] = ties ? (float)(i / dim % 3)
                       : floorf(8.0f * sct_ips_value(nrows + dim, SCT_IPS_STREAM_DATABASE, i)) - 3;
    for (size_t i = 0; i < nq * dim; i++)
        q[i] = ties ? 1.0f : floorf(8.0f * sct_ips_value(nq + k, SCT_IPS_STREAM_QUERIES, i)) - 2;
    scan(sct_ips_scan_variant(SCT_IPS_SIMD_SCALAR), q, rows, nq, nrows, dim, k, hs_ref, hi_ref,
         thr);
    for (size_t v = 0; v < sizeof(emulated) / sizeof(emulated[0]); v++) {
        scan(emulated[v].scan, q, rows, nq, nrows, dim, k, hs, hi, thr);
        for (size_t j = 0; j < nq * k; j++)
            SC_CHECK_MSG(hs[j] == hs_ref[j] && hi[j] == hi_ref[j],
                         "%s, %zu rows, %zu queries, dim %zu, k %zu%s: query %zu heap entry %zu: "
                         "id %lld score %g, portable id %lld score %g",
                         emulated[v].name, nrows, nq, dim, k, ties ? ", ties" : "", j / k, j % k,
                         (long long)hi[j], (double)hs[j], (long long)hi_ref[j], (double)hs_ref[j]);
        for (size_t i = 0; i < nq; i++)
            SC_CHECK_MSG(thr[i] == hs[i * k], "%s: query %zu's threshold is not its heap's root",
                         emulated[v].name, i);
    }
    free(rows);
    free(q);
    free(hs_ref);
    free(hs);
    free(hi_ref);
    free(hi);
    free(thr);
}

static void test_query_counts(void)
{
    /* 1-8: blocks of rows (AVX-512: 16 / QP rows, QP 1, 2, 4, 8; AVX2: 8 / QP, QP up to 4);
       9-40: groups of 16 (8) queries and every remainder. */
    for (size_t nq = 1; nq <= 40; nq++)
        check_shape(nq <= 8 ? 1003 : 211, nq, 128, 10, 0);
}

static void test_dimensions(void)
{
    static const size_t dims[] = {1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 130};
    static const size_t nqs[] = {1, 2, 3, 5, 8, 13, 16, 21};

    for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++)
        for (size_t n = 0; n < sizeof(nqs) / sizeof(nqs[0]); n++)
            check_shape(77, nqs[n], dims[d], 6, 0);
}

static void test_rows_and_k(void)
{
    /* No whole block (1, 7, 15 rows), one row over, k beyond the rows. */
    static const size_t nrows[] = {1, 2, 7, 15, 16, 17, 33};

    for (size_t r = 0; r < sizeof(nrows) / sizeof(nrows[0]); r++)
        for (size_t nq = 1; nq <= 9; nq += 2) {
            check_shape(nrows[r], nq, 19, 3, 0);
            check_shape(nrows[r], nq, 19, 40, 0);
        }
}

static void test_ties(void)
{
    for (size_t nq = 1; nq <= 17; nq += 4)
        check_shape(301, nq, 19, 24, 1);
}

/* The top-k filter: n scores offered to a heap of k that already holds some (a root of
 * `floor`), every emulated variant against the portable one, entry for entry; runs of scores
 * that fill whole blocks of 64 and 32, single vectors and a tail, rising scores (every one
 * enters: the root moves within a block) and ties. The scores are allocated to their last
 * float (a read past them is the sanitized build's finding). */
static void check_topk(size_t n, size_t k, int kind)
{
    float *s = malloc((n ? n : 1) * sizeof(float));
    float *hs_ref = malloc(k * sizeof(float)), *hs = malloc(k * sizeof(float));
    int64_t *hi_ref = malloc(k * sizeof(int64_t)), *hi = malloc(k * sizeof(int64_t));

    SC_CHECK(s && hs_ref && hs && hi_ref && hi);
    for (size_t i = 0; i < n; i++)
        s[i] = kind == 0   ? floorf(64.0f * sct_ips_value(n + k, SCT_IPS_STREAM_DATABASE, i))
               : kind == 1 ? (float)i
                           : (float)(i % 3);
    sct_ips_heap_reset(hs_ref, hi_ref, k);
    sct_ips_heap_replace_top(hs_ref, hi_ref, k, 20.0f, 5); /* a heap already in use */
    memcpy(hs, hs_ref, k * sizeof(float));
    memcpy(hi, hi_ref, k * sizeof(int64_t));
    sct_ips_topk_variant(SCT_IPS_SIMD_SCALAR)(s, n, 100, hs_ref, hi_ref, k);
    for (size_t v = 0; v < sizeof(emulated) / sizeof(emulated[0]); v++) {
        float hs_v[64];
        int64_t hi_v[64];
        memcpy(hs_v, hs, k * sizeof(float));
        memcpy(hi_v, hi, k * sizeof(int64_t));
        emulated[v].topk(s, n, 100, hs_v, hi_v, k);
        for (size_t j = 0; j < k; j++)
            SC_CHECK_MSG(hs_v[j] == hs_ref[j] && hi_v[j] == hi_ref[j],
                         "%s top-k, %zu scores, k %zu, kind %d: heap entry %zu: id %lld score %g, "
                         "portable id %lld score %g",
                         emulated[v].name, n, k, kind, j, (long long)hi_v[j], (double)hs_v[j],
                         (long long)hi_ref[j], (double)hs_ref[j]);
    }
    free(s);
    free(hs_ref);
    free(hs);
    free(hi_ref);
    free(hi);
}

static void test_topk(void)
{
    static const size_t ns[] = {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129, 1000};
    static const size_t ks[] = {1, 3, 10, 64};

    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++)
        for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++)
            for (int kind = 0; kind < 3; kind++)
                check_topk(ns[a], ks[b], kind);
}

int main(void)
{
    SC_TEST_RUN(test_query_counts);
    SC_TEST_RUN(test_dimensions);
    SC_TEST_RUN(test_rows_and_k);
    SC_TEST_RUN(test_ties);
    SC_TEST_RUN(test_topk);
    return SC_TEST_RESULT();
}
