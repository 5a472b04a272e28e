/*
 * test_kernel_ipsearch_scan.c: the single-pass scan of streamcard-ipsearch, every SIMD
 * variant this CPU runs plus the portable one, against the double-precision reference and
 * against the sgemm path: odd dimensions (shorter than a vector, vector tails), every
 * remainder of queries per group of four, one to eight queries (blocks of rows), k larger
 * than the rows of a split, exact ties; and the choice between the two paths, a pure function
 * of its inputs (the same on a busy machine).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
    return (struct sct_ips_path_choice){.path = SCT_IPS_PATH_SCAN, .in.simd = v};
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

/* The rule's cases: inputs, the path, and words of the reason that name the inputs. */
struct choice_case {
    struct sct_ips_path_inputs in;
    enum sct_ips_path want;
    const char *reason;
};

#define KIB(n) ((size_t)(n) << 10)
static const struct choice_case choice_cases[] = {
    {{1, 32, SCT_IPS_SIMD_SCALAR, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SCAN,
     "rule: 1 queries per pass <= 4"},
    {{4, 65536, SCT_IPS_SIMD_SCALAR, KIB(32), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SCAN,
     "rule: 4 queries per pass <= 4"},
    {{5, 32, SCT_IPS_SIMD_SCALAR, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SGEMM,
     "rule: 5 queries per pass (0 KiB) beyond what the scan keeps in the 48 KiB L1d with scalar"},
    {{64, 32, SCT_IPS_SIMD_AVX2, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SCAN,
     "rule: 64 queries per pass <= 64 with avx2-fma, their 8 KiB within the 48 KiB L1d"},
    {{65, 32, SCT_IPS_SIMD_AVX2, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SGEMM,
     "rule: 65 queries per pass (8 KiB) beyond what the scan keeps in the 48 KiB L1d with "
     "avx2-fma"},
    /* The L1d boundary, on the dimension and on the cache: 16 x 768 x 4 = 48 KiB. */
    {{16, 768, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SCAN,
     "their 48 KiB within the 48 KiB L1d"},
    {{16, 769, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SGEMM,
     "beyond what the scan keeps in the 48 KiB L1d with avx512f"},
    {{64, 128, SCT_IPS_SIMD_AVX512, KIB(32), KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SCAN,
     "their 32 KiB within the 32 KiB L1d"},
    {{64, 128, SCT_IPS_SIMD_AVX512, KIB(32) - 1, KIB(2048), SCT_IPS_PATH_AUTO, NULL},
     SCT_IPS_PATH_SGEMM,
     "beyond what the scan keeps in the 31 KiB L1d"},
    {{2, 32, SCT_IPS_SIMD_SCALAR, KIB(48), KIB(2048), SCT_IPS_PATH_SGEMM, NULL},
     SCT_IPS_PATH_SGEMM,
     "forced by --search-path sgemm"},
    {{1000, 128, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_SCAN, NULL},
     SCT_IPS_PATH_SCAN,
     "forced by --search-path scan"},
    /* An OpenBLAS running SSE-only kernels: the SIMD scan while the queries fit half the L2
       (the L1d rule first: its reason is the same with any BLAS). */
    {{1000, 128, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "Prescott"},
     SCT_IPS_PATH_SCAN,
     "rule: 1000 queries per pass with avx512f, their 500 KiB within half the 2048 KiB L2, "
     "OpenBLAS's Prescott kernels SSE-only"},
    {{256, 1024, SCT_IPS_SIMD_AVX2, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "nehalem"},
     SCT_IPS_PATH_SCAN,
     "their 1024 KiB within half the 2048 KiB L2, OpenBLAS's nehalem"},
    {{256, 1024, SCT_IPS_SIMD_AVX2, KIB(48), KIB(2048) - 1, SCT_IPS_PATH_AUTO, "nehalem"},
     SCT_IPS_PATH_SGEMM,
     "rule: 256 queries per pass (1024 KiB) beyond what the scan keeps"},
    {{1000, 960, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "Prescott"},
     SCT_IPS_PATH_SGEMM,
     "rule: 1000 queries per pass (3750 KiB) beyond what the scan keeps in the 48 KiB L1d with "
     "avx512f, or in half the L2"},
    {{37, 24, SCT_IPS_SIMD_AVX2, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "Prescott"},
     SCT_IPS_PATH_SCAN,
     "rule: 37 queries per pass <= 64 with avx2-fma, their 3 KiB within the 48 KiB L1d"},
    {{65, 128, SCT_IPS_SIMD_SCALAR, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "Prescott"},
     SCT_IPS_PATH_SGEMM,
     "with scalar"},
    {{1000, 128, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "SkylakeX"},
     SCT_IPS_PATH_SGEMM,
     "rule: 1000 queries per pass (500 KiB) beyond what the scan keeps in the 48 KiB L1d"},
    {{1000, 128, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_AUTO, "unknown"},
     SCT_IPS_PATH_SGEMM,
     "beyond what the scan keeps"},
    {{2, 128, SCT_IPS_SIMD_AVX512, KIB(48), KIB(2048), SCT_IPS_PATH_SGEMM, "Prescott"},
     SCT_IPS_PATH_SGEMM,
     "forced by --search-path sgemm"},
};

/* 1 when a and b hold the same inputs (member by member: the struct has padding). */
static int inputs_equal(const struct sct_ips_path_inputs *a, const struct sct_ips_path_inputs *b)
{
    return a->queries == b->queries && a->dim == b->dim && a->simd == b->simd &&
           a->l1d_bytes == b->l1d_bytes && a->l2_bytes == b->l2_bytes && a->forced == b->forced &&
           a->blas_core == b->blas_core;
}

/* The rule at its edges, from fixed inputs: the answers do not depend on this machine. */
static void test_path_choice(void)
{
    size_t l1 = sct_ips_cache_bytes(1), l2 = sct_ips_cache_bytes(2);
    long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2s = sysconf(_SC_LEVEL2_CACHE_SIZE);
    enum sct_ips_path p;

    SC_CHECK(l1 == (l1d >= 4096 && l1d <= (64L << 20) ? (size_t)l1d : SCT_IPS_L1D_DEFAULT));
    SC_CHECK(l2 == (l2s >= 4096 && l2s <= (64L << 20) ? (size_t)l2s : SCT_IPS_L2_DEFAULT));
    SC_CHECK(sct_ips_blas_core_sse_only("Prescott") && sct_ips_blas_core_sse_only("core2"));
    SC_CHECK(!sct_ips_blas_core_sse_only("Haswell") && !sct_ips_blas_core_sse_only("Sandybridge"));
    SC_CHECK(!sct_ips_blas_core_sse_only(NULL) && !sct_ips_blas_core_sse_only("unknown"));
    for (size_t i = 0; i < sizeof(choice_cases) / sizeof(choice_cases[0]); i++) {
        const struct choice_case *t = &choice_cases[i];
        struct sct_ips_path_choice c;
        sct_ips_path_choose(&t->in, &c);
        SC_CHECK_MSG(c.path == t->want, "case %zu: %s, expected %s (%s)", i,
                     sct_ips_path_name(c.path), sct_ips_path_name(t->want), c.reason);
        SC_CHECK_MSG(strstr(c.reason, t->reason) != NULL, "case %zu: reason '%s' lacks '%s'", i,
                     c.reason, t->reason);
        SC_CHECK_MSG(inputs_equal(&c.in, &t->in), "case %zu: the choice changed its inputs", i);
    }
    SC_CHECK(sct_ips_path_parse("scan", &p) == 0 && p == SCT_IPS_PATH_SCAN);
    SC_CHECK(sct_ips_path_parse("auto", &p) == 0 && p == SCT_IPS_PATH_AUTO);
    SC_CHECK(sct_ips_path_parse("sgemm", &p) == 0 && p == SCT_IPS_PATH_SGEMM);
    SC_CHECK_INT_EQ(sct_ips_path_parse("SCAN", &p), -EINVAL);
    SC_CHECK_INT_EQ(sct_ips_path_parse("", &p), -EINVAL);
}

/* Every choice for 1..96 queries at a few dimensions, each variant, this CPU's L1d, an
 * SSE-only and an AVX-512 BLAS. */
static void choose_all(struct sct_ips_path_choice *out, size_t n)
{
    static const size_t dims[] = {1, 37, 128, 960};
    static const char *const cores[] = {"Prescott", "SkylakeX"};
    size_t i = 0;

    for (size_t q = 1; q <= 96; q++)
        for (size_t d = 0; d < 4; d++)
            for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++)
                for (int b = 0; b < 2 && i < n; b++, i++) {
                    struct sct_ips_path_inputs in = {
                        .queries = q,
                        .dim = dims[d],
                        .simd = (enum sct_ips_simd)v,
                        .l1d_bytes = sct_ips_cache_bytes(1),
                        .l2_bytes = sct_ips_cache_bytes(2),
                        .forced = SCT_IPS_PATH_AUTO,
                        .blas_core = cores[b],
                    };
                    sct_ips_path_choose(&in, &out[i]);
                }
}

/* Start `n` processes that spin on the CPU (a busy machine); their pids go to pids. */
static void busy_start(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        SC_CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            volatile unsigned long spin = 0;
            for (;;)
                spin++;
        }
    }
}

static void busy_stop(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        if (pids[i] > 0) {
            kill(pids[i], SIGKILL);
            waitpid(pids[i], NULL, 0);
        }
    }
}

/*
 * The choice is a pure function of its recorded inputs: made on an idle moment and again
 * with a busy loop on every cpu, the same paths and reasons; made again from the inputs a
 * choice keeps (what the run records), the same choice.
 */
static void test_path_choice_stable(void)
{
    enum { N = 96 * 4 * SCT_IPS_SIMD_COUNT * 2 };
    static struct sct_ips_path_choice idle[N], busy[N];
    pid_t pids[8] = {0};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nbusy = ncpu >= 1 && ncpu <= 8 ? (int)ncpu : 8;

    choose_all(idle, N);
    busy_start(pids, nbusy);
    usleep(50 * 1000); /* the spinners running before the choice */
    choose_all(busy, N);
    busy_stop(pids, nbusy);
    for (size_t i = 0; i < N; i++) {
        struct sct_ips_path_choice again;
        SC_CHECK_MSG(idle[i].path == busy[i].path && strcmp(idle[i].reason, busy[i].reason) == 0,
                     "choice %zu: idle %s (%s), busy %s (%s)", i, sct_ips_path_name(idle[i].path),
                     idle[i].reason, sct_ips_path_name(busy[i].path), busy[i].reason);
        sct_ips_path_choose(&idle[i].in, &again);
        SC_CHECK(again.path == idle[i].path && strcmp(again.reason, idle[i].reason) == 0);
    }
    /* Both paths occur among these shapes: the comparison above is not of constants. */
    int scans = 0;
    for (size_t i = 0; i < N; i++)
        scans += idle[i].path == SCT_IPS_PATH_SCAN;
    SC_CHECK(scans > 0 && scans < N);
}

int main(void)
{
    SC_TEST_RUN(test_variants);
    SC_TEST_RUN(test_scan_matches_reference);
    SC_TEST_RUN(test_scan_equals_sgemm_exactly);
    SC_TEST_RUN(test_ties);
    SC_TEST_RUN(test_path_choice);
    SC_TEST_RUN(test_path_choice_stable);
    return SC_TEST_RESULT();
}
