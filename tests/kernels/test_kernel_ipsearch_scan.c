/*
 * test_kernel_ipsearch_scan.c: the single-pass scan of streamcard-ipsearch, every SIMD
 * variant this CPU runs plus the portable one, against the double-precision reference and
 * against the sgemm path: odd dimensions (shorter than a vector, vector tails), every
 * remainder of queries per group of four, one to eight queries (blocks of rows), k larger
 * than the rows of a split, exact ties; and the choice between the two paths.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipsearch_engine.h"
#include "ipsearch_path.h"
#include "ipsearch_scan.h"
#include "ipsearch_test_util.h"
#include "sc_test.h"

/* nb, nq, dim, k, queries per block, database splits. */
struct shape {
    size_t nb, nq, dim, k, qb;
    int parts;
};

static const struct shape shapes[] = {
    {1037, 9, 13, 5, 9, 3},
    {7, 3, 5, 7, 2, 3},
    {1, 1, 1, 1, 1, 1},
    {4099, 1, 1, 3, 1, 2},
    {3001, 17, 64, 40, 17, 2},
    {517, 5, 33, 10, 5, 4},
    {300, 6, 127, 12, 6, 3},
    {129, 7, 200, 100, 7, 1},
    {50, 2, 17, 3, 2, 4},
    {1000, 16, 128, 10, 16, 2},
    {333, 64, 31, 10, 32, 2},
    {95, 11, 16, 20, 11, 4},
    /* Few queries: the scan's blocks of rows (16 / QP rows per block, QP 1, 2 or 4), whole
       blocks and the rows left over, vector tails of the dimension. */
    {1001, 1, 128, 10, 1, 2},
    {517, 2, 64, 5, 2, 3},
    {777, 3, 130, 7, 3, 3},
    {1000, 4, 128, 10, 4, 2},
    {37, 4, 9, 30, 4, 1},
    /* 5 to 8 queries: AVX-512's blocks of two rows (odd row counts leave one row over). */
    {1001, 8, 128, 10, 8, 2},
    {203, 8, 37, 9, 8, 3},
    {99, 6, 16, 5, 6, 2},
    /* 16 queries (one full AVX-512 group, two AVX2 groups), odd rows and vector tails. */
    {1003, 16, 37, 10, 16, 3},
    {61, 16, 8, 4, 16, 2},
    {513, 2, 131, 6, 2, 2},
};

/* The scan with variant v, as a path choice. */
static struct sct_ips_path_choice scan_with(enum sct_ips_simd v)
{
    return (struct sct_ips_path_choice){.path = SCT_IPS_PATH_SCAN, .simd = v};
}

/* Small whole numbers (0..7): every dot product of dim <= 200 is exact in float32, so every
 * path must find the same scores and, with the tie rule, the same ids. */
static void fill_exact(struct sct_ips_data *d, uint64_t seed)
{
    for (size_t i = 0; i < d->nb * d->dim; i++)
        d->db[i] = floorf(8.0f * sct_ips_value(seed, SCT_IPS_STREAM_DATABASE, i));
    for (size_t i = 0; i < d->nq * d->dim; i++)
        d->q[i] = floorf(8.0f * sct_ips_value(seed, SCT_IPS_STREAM_QUERIES, i));
}

static void test_variants(void)
{
    SC_CHECK(sct_ips_simd_supported(SCT_IPS_SIMD_SCALAR));
    SC_CHECK(sct_ips_simd_supported(sct_ips_simd_best()));
    SC_CHECK(!sct_ips_simd_supported(SCT_IPS_SIMD_COUNT));
    for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++) {
        int ok = sct_ips_simd_supported((enum sct_ips_simd)v);
        fprintf(stderr, "     scan variant %-9s %s\n", sct_ips_simd_name((enum sct_ips_simd)v),
                ok ? "runs here: tested" : "not supported by this CPU: not tested");
        if (ok)
            SC_CHECK(sct_ips_scan_variant((enum sct_ips_simd)v) != NULL);
        SC_CHECK(v <= (int)sct_ips_simd_best() || !ok);
    }
    SC_CHECK_STR_EQ(sct_ips_simd_name(SCT_IPS_SIMD_AVX2), "avx2-fma");
}

/* Every shape, every variant: recall 1 against the reference, same ids as sgemm on exact
 * data, and the same ids unsplit and split. */
static void test_scan_matches_reference(void)
{
    char msg[256];

    for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++) {
        if (!sct_ips_simd_supported((enum sct_ips_simd)v))
            continue;
        struct sct_ips_path_choice scan = scan_with((enum sct_ips_simd)v);
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            const struct shape *c = &shapes[s];
            struct sct_ips_data d;
            struct sct_ips_results one, split;
            SC_CHECK(sct_ips_data_alloc(&d, c->nb, c->nq, c->dim) == 0);
            SC_CHECK(sct_ips_results_alloc(&one, c->nq, c->k) == 0);
            SC_CHECK(sct_ips_results_alloc(&split, c->nq, c->k) == 0);
            sct_ips_data_fill(&d, 100 + s, 2);
            SC_CHECK(ips_search_all(&d, c->k, c->qb, 1, &scan, &one) == 0);
            SC_CHECK(ips_search_all(&d, c->k, c->qb, c->parts, &scan, &split) == 0);
            SC_CHECK_MSG(ips_all_valid(&d, &one, msg, sizeof(msg)), "%s shape %zu: %s",
                         sct_ips_simd_name((enum sct_ips_simd)v), s, msg);
            SC_CHECK_MSG(ips_all_valid(&d, &split, msg, sizeof(msg)), "%s shape %zu split: %s",
                         sct_ips_simd_name((enum sct_ips_simd)v), s, msg);
            SC_CHECK_MSG(sct_ips_results_checksum(&one) == sct_ips_results_checksum(&split),
                         "%s shape %zu: a split database changed the ids",
                         sct_ips_simd_name((enum sct_ips_simd)v), s);
            sct_ips_results_free(&one);
            sct_ips_results_free(&split);
            sct_ips_data_free(&d);
        }
    }
}

/* Exact data, many exact ties: every variant, split or not, reports exactly the reference's
 * ids and scores, as the sgemm path does. */
static void test_scan_equals_sgemm_exactly(void)
{
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        const struct shape *c = &shapes[s];
        struct sct_ips_data d;
        struct sct_ips_results gemm, scan;
        double *ref_s = malloc(c->k * sizeof(double));
        int64_t *ref_id = malloc(c->k * sizeof(int64_t));
        SC_CHECK(ref_s && ref_id);
        SC_CHECK(sct_ips_data_alloc(&d, c->nb, c->nq, c->dim) == 0);
        SC_CHECK(sct_ips_results_alloc(&gemm, c->nq, c->k) == 0);
        SC_CHECK(sct_ips_results_alloc(&scan, c->nq, c->k) == 0);
        fill_exact(&d, 7 + s);
        SC_CHECK(ips_search_all(&d, c->k, c->qb, c->parts, NULL, &gemm) == 0);
        for (size_t q = 0; q < c->nq; q++) {
            sct_ips_reference(&d, q, c->k, ref_s, ref_id);
            for (size_t j = 0; j < c->k; j++)
                SC_CHECK_MSG(gemm.id[q * c->k + j] == ref_id[j] &&
                                 gemm.score[q * c->k + j] == (float)ref_s[j],
                             "sgemm shape %zu query %zu rank %zu: id %lld, reference %lld", s, q, j,
                             (long long)gemm.id[q * c->k + j], (long long)ref_id[j]);
        }
        for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++) {
            struct sct_ips_path_choice path = scan_with((enum sct_ips_simd)v);
            if (!sct_ips_simd_supported((enum sct_ips_simd)v))
                continue;
            for (int parts = 1; parts <= c->parts; parts += c->parts > 1 ? c->parts - 1 : 1) {
                SC_CHECK(ips_search_all(&d, c->k, c->qb, parts, &path, &scan) == 0);
                for (size_t j = 0; j < c->nq * c->k; j++)
                    SC_CHECK_MSG(scan.id[j] == gemm.id[j] && scan.score[j] == gemm.score[j],
                                 "%s shape %zu, %d parts, query %zu rank %zu: id %lld score %g, "
                                 "sgemm id %lld score %g",
                                 sct_ips_simd_name((enum sct_ips_simd)v), s, parts, j / c->k,
                                 j % c->k, (long long)scan.id[j], (double)scan.score[j],
                                 (long long)gemm.id[j], (double)gemm.score[j]);
            }
        }
        free(ref_s);
        free(ref_id);
        sct_ips_results_free(&gemm);
        sct_ips_results_free(&scan);
        sct_ips_data_free(&d);
    }
}

/* Ties across register blocks: row r holds (r % 3) in every dimension, so rows 2, 5, 8, ...
 * tie for the top; with one query and with five (two groups, one of a single query) the
 * smallest ids win, whichever split holds them, and k beyond the database's tied rows takes
 * the next class in id order. */
static void test_ties(void)
{
    static const size_t nqs[] = {1, 5};

    for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++) {
        struct sct_ips_path_choice path = scan_with((enum sct_ips_simd)v);
        if (!sct_ips_simd_supported((enum sct_ips_simd)v))
            continue;
        for (size_t n = 0; n < 2; n++) {
            struct sct_ips_data d;
            struct sct_ips_results r;
            SC_CHECK(sct_ips_data_alloc(&d, 61, nqs[n], 19) == 0);
            SC_CHECK(sct_ips_results_alloc(&r, nqs[n], 24) == 0);
            for (size_t i = 0; i < 61 * 19; i++)
                d.db[i] = (float)(i / 19 % 3);
            for (size_t i = 0; i < nqs[n] * 19; i++)
                d.q[i] = 1.0f;
            for (int parts = 1; parts <= 4; parts += 3) {
                SC_CHECK(ips_search_all(&d, 24, nqs[n], parts, &path, &r) == 0);
                for (size_t q = 0; q < nqs[n]; q++) {
                    for (size_t j = 0; j < 24; j++) {
                        /* 20 rows of class 2 (2, 5, ..., 59), then class 1 (1, 4, ...). */
                        int64_t want = j < 20 ? (int64_t)(2 + 3 * j) : (int64_t)(1 + 3 * (j - 20));
                        SC_CHECK_MSG(r.id[q * 24 + j] == want,
                                     "%s, %zu queries, %d parts: query %zu rank %zu: id %lld, "
                                     "expected %lld",
                                     sct_ips_simd_name((enum sct_ips_simd)v), nqs[n], parts, q, j,
                                     (long long)r.id[q * 24 + j], (long long)want);
                    }
                }
            }
            sct_ips_results_free(&r);
            sct_ips_data_free(&d);
        }
    }
}

/* The rule at both ends, a forced path, and a measured choice that follows its figures. */
static void test_path_choice(void)
{
    struct sct_ips_data d, wide;
    struct sct_ips_path_choice c, again;
    enum sct_ips_path p;
    long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    size_t l1 = l1d >= 4096 && l1d <= (64L << 20) ? (size_t)l1d : SCT_IPS_L1D_DEFAULT;

    SC_CHECK(sct_ips_data_alloc(&d, 5000, 64, 32) == 0);
    sct_ips_data_fill(&d, 5, 1);
    /* dim such that 16 queries need more than the L1d: the scan's queries would not fit. */
    SC_CHECK(sct_ips_data_alloc(&wide, 50, 16, l1 / 4 / 16 + 1) == 0);

    sct_ips_path_choose(&d, 1, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_SCALAR, &c);
    SC_CHECK(c.path == SCT_IPS_PATH_SCAN);
    SC_CHECK_STR_CONTAINS(c.reason, "rule: 1 queries per pass <= 4");
    sct_ips_path_choose(&d, 64, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_AVX2, &c);
    SC_CHECK(c.path == SCT_IPS_PATH_SCAN && c.l1d_bytes == l1);
    SC_CHECK_STR_CONTAINS(c.reason, "rule: 64 queries per pass <= 64 with avx2-fma, their 8 KiB");
    sct_ips_path_choose(&d, 65, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_AVX2, &c);
    SC_CHECK(c.path == SCT_IPS_PATH_SGEMM);
    SC_CHECK_STR_CONTAINS(c.reason, "rule: 65 queries per pass (8 KiB) beyond what the scan keeps");
    /* The portable scan past 4 queries, and queries too wide for the L1d: sgemm. */
    sct_ips_path_choose(&d, 5, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_SCALAR, &c);
    SC_CHECK(c.path == SCT_IPS_PATH_SGEMM);
    sct_ips_path_choose(&wide, 16, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_AVX512, &c);
    SC_CHECK_MSG(c.path == SCT_IPS_PATH_SGEMM, "wide queries: %s", c.reason);
    sct_ips_path_choose(&d, 2, SCT_IPS_PATH_SGEMM, SCT_IPS_SIMD_SCALAR, &c);
    SC_CHECK(c.path == SCT_IPS_PATH_SGEMM);
    SC_CHECK_STR_CONTAINS(c.reason, "forced by --search-path sgemm");
    /* The shapes alone decide: the same question gives the same answer, every time. */
    for (size_t q = 1; q <= 64; q++) {
        sct_ips_path_choose(&d, q, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_AVX512, &c);
        sct_ips_path_choose(&d, q, SCT_IPS_PATH_AUTO, SCT_IPS_SIMD_AVX512, &again);
        SC_CHECK(c.path == again.path && strcmp(c.reason, again.reason) == 0);
    }

    SC_CHECK(sct_ips_path_parse("scan", &p) == 0 && p == SCT_IPS_PATH_SCAN);
    SC_CHECK(sct_ips_path_parse("auto", &p) == 0 && p == SCT_IPS_PATH_AUTO);
    SC_CHECK(sct_ips_path_parse("sgemm", &p) == 0 && p == SCT_IPS_PATH_SGEMM);
    SC_CHECK_INT_EQ(sct_ips_path_parse("SCAN", &p), -EINVAL);
    SC_CHECK_INT_EQ(sct_ips_path_parse("", &p), -EINVAL);
    sct_ips_data_free(&wide);
    sct_ips_data_free(&d);
}

int main(void)
{
    SC_TEST_RUN(test_variants);
    SC_TEST_RUN(test_scan_matches_reference);
    SC_TEST_RUN(test_scan_equals_sgemm_exactly);
    SC_TEST_RUN(test_ties);
    SC_TEST_RUN(test_path_choice);
    return SC_TEST_RESULT();
}
