/*
 * test_kernel_ipsearch_scan_emulated.c: the scan's AVX2 and AVX-512 code on SIMDe's portable
 * intrinsics (kernels/ipsearch_scan_x86.c built with ipsearch_scan_emulated.h), against the
 * portable variant, on every CPU: the AVX-512 variant runs nowhere else on a machine without
 * AVX-512. Whole-number data (every dot product exact in float32), so every variant must
 * leave the same heaps, entry for entry: one to 40 queries (blocks of 16 / QP rows for up to
 * 8, groups of 16 and 8 with every remainder beyond), dimensions shorter than a vector and
 * with every kind of tail, rows that fill no block, exact ties. Rows and queries are
 * allocated to their last float, so a sanitized build also holds the code to never reading
 * past a row. Correctness only: the emulation says nothing of speed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipsearch_engine.h"
#include "ipsearch_scan.h"
#include "ipsearch_topk.h"
#include "sc_test.h"

void sct_ips_scan_avx2_emulated(const struct sct_ips_scan_job *job);
void sct_ips_scan_avx512_emulated(const struct sct_ips_scan_job *job);

static const struct {
    const char *name;
    sct_ips_scan_fn fn;
} emulated[] = {
    {"avx2-fma (emulated)", sct_ips_scan_avx2_emulated},
    {"avx512f (emulated)", sct_ips_scan_avx512_emulated},
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
        scan(emulated[v].fn, q, rows, nq, nrows, dim, k, hs, hi, thr);
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

int main(void)
{
    SC_TEST_RUN(test_query_counts);
    SC_TEST_RUN(test_dimensions);
    SC_TEST_RUN(test_rows_and_k);
    SC_TEST_RUN(test_ties);
    return SC_TEST_RESULT();
}
