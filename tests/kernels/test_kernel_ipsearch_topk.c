/*
 * test_kernel_ipsearch_topk.c: the top-k heaps and the filter of the sgemm path's score
 * tiles, every SIMD variant this CPU runs plus the portable one, against the plain loop
 * "if (s[j] > root) replace the root" written here: the same heap, bit for bit, on
 * adversarial rows (ties everywhere, equal scores of both signs of zero, negative scores,
 * -inf, thresholds rising at every score, k larger than the row, lengths around every
 * block size, unaligned rows, a heap already holding scores); the kept set checked against
 * a sort; and whole sgemm searches with each variant giving the same results.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipsearch_engine.h"
#include "ipsearch_test_util.h"
#include "ipsearch_topk.h"
#include "sc_test.h"

#define MAX_N 4200
#define MAX_K 80

/* 1 when the n floats at a and b are the same bit patterns (+0 and -0 differ). */
static int same_bits(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t x, y;
        memcpy(&x, &a[i], sizeof(x));
        memcpy(&y, &b[i], sizeof(y));
        if (x != y)
            return 0;
    }
    return 1;
}

/* The reference: every score above the root enters, in id order. */
static void plain_filter(const float *s, size_t n, int64_t base, float *hs, int64_t *hi, size_t k)
{
    for (size_t j = 0; j < n; j++)
        if (s[j] > hs[0])
            sct_ips_heap_replace_top(hs, hi, k, s[j], base + (int64_t)j);
}

enum pattern { RANDOM, ALL_EQUAL, ZEROS, ASCENDING, DESCENDING, FEW_VALUES, WITH_INF, NPATTERNS };
static const char *const pattern_names[] = {"random",     "all equal",  "+0/-0",     "ascending",
                                            "descending", "few values", "-inf mixed"};

/* Row j of a pattern: scores of both signs, negative mostly. */
static float pattern_value(enum pattern p, size_t j, size_t n)
{
    float r = 2.0f * sct_ips_value(7, SCT_IPS_STREAM_DATABASE, j + 13 * n) - 1.5f;

    switch (p) {
    case ALL_EQUAL:
        return -0.25f;
    case ZEROS:
        return j % 3 ? 0.0f : -0.0f;
    case ASCENDING:
        return -100.0f + 0.01f * (float)j;
    case DESCENDING:
        return 100.0f - 0.01f * (float)j;
    case FEW_VALUES:
        return (float)((j * 7) % 5) - 2.0f;
    case WITH_INF:
        return j % 4 == 1 ? -INFINITY : r;
    default:
        return r;
    }
}

/* Sorted best first, as the merge orders results. */
struct cand {
    float s;
    int64_t id;
};
static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;

    return sct_ips_worse(y->s, y->id, x->s, x->id) ? -1 : sct_ips_worse(x->s, x->id, y->s, y->id);
}

/*
 * The heap holds exactly the best min(k, entering) of (previous contents + scores above
 * -inf), ties to the smaller id: checked by sorting everything.
 */
static int heap_is_topk(const float *s, size_t n, int64_t base, const float *hs, const int64_t *hi,
                        size_t k)
{
    static struct cand all[MAX_N + MAX_K], kept[MAX_K];
    size_t m = 0;

    for (size_t j = 0; j < n; j++)
        if (s[j] > -INFINITY)
            all[m++] = (struct cand){s[j], base + (int64_t)j};
    for (size_t j = 0; j < k; j++)
        kept[j] = (struct cand){hs[j], hi[j]};
    qsort(all, m, sizeof(all[0]), cand_cmp);
    qsort(kept, k, sizeof(kept[0]), cand_cmp);
    for (size_t j = 0; j < k; j++) {
        struct cand want = j < m ? all[j] : (struct cand){-INFINITY, -1};
        if (!same_bits(&kept[j].s, &want.s, 1) || kept[j].id != want.id)
            return 0;
    }
    return 1;
}

static void test_filter_variants(void)
{
    static const size_t lengths[] = {0,  1,  7,  8,  9,   15,  16,  17,   31,  32,
                                     33, 63, 64, 65, 100, 127, 129, 1000, 4099};
    static const size_t ks[] = {1, 3, 10, 64};
    static float buf[MAX_N + 1];
    float hs[3][MAX_K];
    int64_t hi[3][MAX_K];

    for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++) {
        enum sct_ips_simd simd = (enum sct_ips_simd)v;
        if (!sct_ips_simd_supported(simd)) {
            fprintf(stderr, "     filter %-9s not supported by this CPU: not tested\n",
                    sct_ips_simd_name(simd));
            continue;
        }
        sct_ips_topk_fn f = sct_ips_topk_variant(simd);
        for (int p = 0; p < NPATTERNS; p++)
            for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++)
                for (size_t kk = 0; kk < sizeof(ks) / sizeof(ks[0]); kk++)
                    for (int off = 0; off < 2; off++) { /* aligned and one float off */
                        size_t n = lengths[l], k = ks[kk], half = n / 2;
                        float *s = buf + off;
                        for (size_t j = 0; j < n; j++)
                            s[j] = pattern_value((enum pattern)p, j, n);
                        sct_ips_heap_reset(hs[0], hi[0], k);
                        sct_ips_heap_reset(hs[1], hi[1], k);
                        /* Two calls, the second on a heap that already holds scores. */
                        f(s, half, 1000, hs[0], hi[0], k);
                        f(s + half, n - half, 1000 + (int64_t)half, hs[0], hi[0], k);
                        plain_filter(s, n, 1000, hs[1], hi[1], k);
                        SC_CHECK_MSG(same_bits(hs[0], hs[1], k) &&
                                         memcmp(hi[0], hi[1], k * sizeof(int64_t)) == 0,
                                     "%s, %s, n %zu, k %zu, offset %d: heap differs from the "
                                     "plain loop's",
                                     sct_ips_simd_name(simd), pattern_names[p], n, k, off);
                        SC_CHECK_MSG(heap_is_topk(s, n, 1000, hs[0], hi[0], k),
                                     "%s, %s, n %zu, k %zu: not the top-k", sct_ips_simd_name(simd),
                                     pattern_names[p], n, k);
                    }
    }
}

/* Ties: the smallest ids of the k-th score stay, whatever the block they fall in. */
static void test_filter_ties(void)
{
    float s[96], hs[4];
    int64_t hi[4];

    for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++) {
        if (!sct_ips_simd_supported((enum sct_ips_simd)v))
            continue;
        for (size_t j = 0; j < 96; j++)
            s[j] = j == 40 ? 2.0f : 1.0f; /* 40 beats all; ids 0, 1, 2 are the smallest ties */
        sct_ips_heap_reset(hs, hi, 4);
        sct_ips_topk_variant((enum sct_ips_simd)v)(s, 96, 0, hs, hi, 4);
        struct cand c[4];
        for (int j = 0; j < 4; j++)
            c[j] = (struct cand){hs[j], hi[j]};
        qsort(c, 4, sizeof(c[0]), cand_cmp);
        SC_CHECK_MSG(c[0].id == 40 && c[1].id == 0 && c[2].id == 1 && c[3].id == 2,
                     "%s: ids %lld %lld %lld %lld", sct_ips_simd_name((enum sct_ips_simd)v),
                     (long long)c[0].id, (long long)c[1].id, (long long)c[2].id,
                     (long long)c[3].id);
    }
}

/*
 * Whole sgemm-path searches in small tiles (16 KiB: 150 queries take several sgemm calls per
 * tile): valid against the double-precision reference, the same ids as one call per tile
 * (the default tile), and every variant the same scores and ids as the portable one.
 */
static void test_search_with_each_filter(void)
{
    static const struct {
        size_t nb, nq, dim, k;
    } shapes[] = {{5000, 7, 16, 10}, {3001, 33, 24, 70}, {100, 3, 8, 40}, {2003, 150, 12, 10}};
    char msg[256];

    for (size_t c = 0; c < sizeof(shapes) / sizeof(shapes[0]); c++) {
        struct sct_ips_data d;
        struct sct_ips_workspace w;
        struct sct_ips_results ref, got;
        SC_CHECK(sct_ips_data_alloc(&d, shapes[c].nb, shapes[c].nq, shapes[c].dim) == 0);
        sct_ips_data_fill(&d, 5 + c, 1);
        for (size_t i = 0; i < d.nb * d.dim; i += 5)
            d.db[i] = -d.db[i]; /* negative scores too */
        SC_CHECK(sct_ips_workspace_alloc_tile(&w, d.nq, shapes[c].k, 16 * 1024) == 0);
        SC_CHECK(sct_ips_results_alloc(&ref, d.nq, shapes[c].k) == 0);
        SC_CHECK(sct_ips_results_alloc(&got, d.nq, shapes[c].k) == 0);
        struct sct_ips_workspace *parts[1] = {&w};
        w.simd = SCT_IPS_SIMD_SCALAR;
        sct_ips_search_range(&d, 0, d.nq, 0, d.nb, &w);
        sct_ips_merge(parts, 1, 0, 0, d.nq, &ref);
        SC_CHECK_MSG(ips_all_valid(&d, &ref, msg, sizeof(msg)), "shape %zu: %s", c, msg);
        SC_CHECK(ips_search_all(&d, shapes[c].k, d.nq, 1, NULL, &got) == 0);
        SC_CHECK_MSG(sct_ips_results_checksum(&got) == sct_ips_results_checksum(&ref),
                     "shape %zu: the ids depend on the tile", c);
        for (int v = 1; v < SCT_IPS_SIMD_COUNT; v++) {
            if (!sct_ips_simd_supported((enum sct_ips_simd)v))
                continue;
            w.simd = (enum sct_ips_simd)v;
            sct_ips_search_range(&d, 0, d.nq, 0, d.nb, &w);
            sct_ips_merge(parts, 1, 0, 0, d.nq, &got);
            size_t n = d.nq * shapes[c].k;
            SC_CHECK_MSG(memcmp(ref.id, got.id, n * sizeof(int64_t)) == 0 &&
                             same_bits(ref.score, got.score, n),
                         "shape %zu, %s: results differ from the portable filter's", c,
                         sct_ips_simd_name((enum sct_ips_simd)v));
        }
        sct_ips_results_free(&ref);
        sct_ips_results_free(&got);
        sct_ips_workspace_free(&w);
        sct_ips_data_free(&d);
    }
}

/*
 * The default tile is within its bounds. Tile shapes: rows a multiple of 16, 64 to 4096;
 * the whole block in one sgemm call while that leaves SCT_IPS_TILE_MIN_ROWS rows, else the
 * fewest even calls that do; the tile about the bytes asked for.
 */
static void test_tile_shapes(void)
{
    static const size_t qbs[] = {1, 3, 16, 100, 255, 256, 257, 1000, 1024, 4096};
    static const size_t kib[] = {64, 100, 256, 512, 1024, 4096};
    size_t def = sct_ips_tile_bytes_default();

    SC_CHECK_MSG(def >= 64 * 1024 && def <= 4 * 1024 * 1024, "default tile %zu bytes", def);
    for (size_t a = 0; a < sizeof(qbs) / sizeof(qbs[0]); a++)
        for (size_t b = 0; b < sizeof(kib) / sizeof(kib[0]); b++) {
            size_t qb = qbs[a], floats = kib[b] * 1024 / sizeof(float), qcall, rows;
            size_t most = floats / SCT_IPS_TILE_MIN_ROWS;
            size_t calls = (qb + most - 1) / most;
            sct_ips_tile_shape(qb, kib[b] * 1024, &qcall, &rows);
            SC_CHECK_MSG(rows % 16 == 0 && rows >= 64 && rows <= 4096, "qb %zu, %zu KiB: %zu rows",
                         qb, kib[b], rows);
            SC_CHECK_MSG(qcall == (qb + calls - 1) / calls && qcall <= most,
                         "qb %zu, %zu KiB: %zu queries per call", qb, kib[b], qcall);
            SC_CHECK_MSG(rows == 4096 || rows == 64 ||
                             (qcall * rows <= floats && qcall * (rows + 16) > floats),
                         "qb %zu, %zu KiB: %zu x %zu is not the tile", qb, kib[b], qcall, rows);
        }
    /* The workspace takes that shape; one query gets the longest tile. */
    size_t qcall, rows;
    struct sct_ips_workspace w;
    sct_ips_tile_shape(1000, 512 * 1024, &qcall, &rows);
    SC_CHECK(sct_ips_workspace_alloc_tile(&w, 1000, 10, 512 * 1024) == 0);
    SC_CHECK(w.qcall == qcall && w.tile_rows == rows && w.qb == 1000);
    SC_CHECK(w.simd == sct_ips_simd_best() && w.tile && w.heap_s && w.heap_id);
    sct_ips_tile_shape(1, 512 * 1024, &qcall, &rows);
    SC_CHECK(qcall == 1 && rows == 4096);
    sct_ips_workspace_free(&w);
}

int main(void)
{
    SC_TEST_RUN(test_filter_variants);
    SC_TEST_RUN(test_filter_ties);
    SC_TEST_RUN(test_search_with_each_filter);
    SC_TEST_RUN(test_tile_shapes);
    return SC_TEST_RESULT();
}
