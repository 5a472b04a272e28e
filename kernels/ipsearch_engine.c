/*
 * ipsearch_engine.c: the data, the fused sgemm + top-k search, the merge and the naive
 * double-precision reference (see ipsearch_engine.h).
 */
#include "ipsearch_engine.h"

#include <cblas.h>
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define SCT_IPS_GOLDEN 0x9e3779b97f4a7c15ULL
#define SCT_IPS_ALIGN 4096
/* Score tile bounds (see sct_ips_tile_bytes_default()). */
#define SCT_IPS_TILE_FALLBACK (512 * 1024)
#define SCT_IPS_TILE_MIN (64 * 1024)
#define SCT_IPS_TILE_MAX (4 * 1024 * 1024)
/* ---- data ------------------------------------------------------------------------------ */

/* splitmix64's output function (Steele, Lea, Flood): a bijective 64-bit mixer. */
static uint64_t sct__mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

float sct_ips_value(uint64_t seed, enum sct_ips_stream stream, uint64_t i)
{
    uint64_t key = sct__mix(seed ^ (uint64_t)stream);

    return (float)(sct__mix(key + (i + 1) * SCT_IPS_GOLDEN) >> 40) * (1.0f / 16777216.0f);
}

static void *sct__alloc(size_t bytes)
{
    void *p = NULL;

    if (posix_memalign(&p, SCT_IPS_ALIGN, bytes ? bytes : 1) != 0)
        return NULL;
    return p;
}

int sct_ips_data_alloc(struct sct_ips_data *d, size_t nb, size_t nq, size_t dim)
{
    *d = (struct sct_ips_data){.nb = nb, .nq = nq, .dim = dim};
    d->db = sct__alloc(nb * dim * sizeof(float));
    d->q = sct__alloc(nq * dim * sizeof(float));
    if (!d->db || !d->q) {
        sct_ips_data_free(d);
        return -ENOMEM;
    }
    return 0;
}

void sct_ips_data_free(struct sct_ips_data *d)
{
    if (!d)
        return;
    free(d->db);
    free(d->q);
    d->db = d->q = NULL;
}

/* v[i] = value(seed, stream, i), each thread writing its static chunk. */
static void sct__fill(float *v, size_t n, uint64_t seed, enum sct_ips_stream stream, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        size_t lo, hi;
        sct_static_chunk(n, 1024, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        for (size_t i = lo; i < hi; i++)
            v[i] = sct_ips_value(seed, stream, i);
    }
}

void sct_ips_data_fill(struct sct_ips_data *d, uint64_t seed, int threads)
{
    sct__fill(d->db, d->nb * d->dim, seed, SCT_IPS_STREAM_DATABASE, threads);
    sct__fill(d->q, d->nq * d->dim, seed, SCT_IPS_STREAM_QUERIES, threads);
}

uint64_t sct_ips_checksum(const float *v, size_t n, int threads)
{
    uint64_t h = 0;

#pragma omp parallel for num_threads(threads) reduction(^ : h) schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &v[i], sizeof(bits));
        h ^= sct__mix(i * SCT_IPS_GOLDEN ^ bits);
    }
    return h;
}

int sct_ips_results_alloc(struct sct_ips_results *r, size_t nq, size_t k)
{
    *r = (struct sct_ips_results){.nq = nq, .k = k};
    r->score = sct__alloc(nq * k * sizeof(float));
    r->id = sct__alloc(nq * k * sizeof(int64_t));
    if (!r->score || !r->id) {
        sct_ips_results_free(r);
        return -ENOMEM;
    }
    return 0;
}

void sct_ips_results_free(struct sct_ips_results *r)
{
    if (!r)
        return;
    free(r->score);
    free(r->id);
    r->score = NULL;
    r->id = NULL;
}

uint64_t sct_ips_results_checksum(const struct sct_ips_results *r)
{
    uint64_t h = 0;

    for (size_t q = 0; q < r->nq; q++) {
        uint64_t chain = sct__mix(q + 1);
        for (size_t j = 0; j < r->k; j++)
            chain = sct__mix(chain ^ (uint64_t)r->id[q * r->k + j]);
        h ^= chain;
    }
    return h;
}

void sct_ips_heaps_reset(struct sct_ips_workspace *w, size_t nq)
{
    for (size_t i = 0; i < nq; i++)
        sct_ips_heap_reset(w->heap_s + i * w->k, w->heap_id + i * w->k, w->k);
}

/* ---- search ------------------------------------------------------------------------------ */

/*
 * Twice the L2 (ipsearch_engine.h). Measured on a Zen 3 VM (512 KiB L2, 32 MiB L3, one
 * thread, tests/bench/ipsearch_tile_profile.sh, minima of 9 rounds, CPU seconds per search):
 * nq = 1000 in one call per 256 rows (1 MiB) 0.674-0.719 against 0.720-0.737 in four calls
 * of 250 queries (the former half-L2 tile, 256 KiB) and 0.732 in one call per 512 rows
 * (2 MiB); nq = 256 over 1024 rows (1 MiB) 0.192 against 0.198 over 256 (256 KiB). The
 * filter costs the same either way (0.025-0.029 s per search at nq = 1000: it streams the
 * scores at 8 per ns, wherever they are). tests/bench/ipsearch_vs_scan.sh, 7 pairs: the
 * search 1418 against 1199 q/s at nq = 1000 on one thread. Earlier, with queries split
 * into calls of at most 500: on a loaded Zen 5 VM (1 MiB L2) 512 KiB tiles beat 4 MiB
 * ones of 1040 rows (0.94-0.99 against 1.12-1.25 s per search); on a quiet Zen 4 4 MiB was
 * 2-4% faster than 1 MiB.
 */
size_t sct_ips_tile_bytes_default(void)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    size_t bytes = l2 > 0 ? (size_t)l2 * 2 : SCT_IPS_TILE_FALLBACK;

    return bytes < SCT_IPS_TILE_MIN   ? SCT_IPS_TILE_MIN
           : bytes > SCT_IPS_TILE_MAX ? SCT_IPS_TILE_MAX
                                      : bytes;
}

void sct_ips_tile_shape(size_t qb, size_t tile_bytes, size_t *qcall, size_t *rows)
{
    size_t floats = tile_bytes / sizeof(float), most = floats / SCT_IPS_TILE_MIN_ROWS;
    size_t calls, r;

    most = most ? most : 1;
    calls = qb > most ? (qb + most - 1) / most : 1;
    *qcall = qb ? (qb + calls - 1) / calls : 1;
    r = floats / *qcall;
    r = r < 64 ? 64 : r > 4096 ? 4096 : r;
    *rows = r / 16 * 16; /* whole SIMD groups per row */
}

int sct_ips_workspace_alloc_tile(struct sct_ips_workspace *w, size_t qb, size_t k,
                                 size_t tile_bytes)
{
    *w = (struct sct_ips_workspace){.qb = qb, .k = k, .simd = sct_ips_simd_best()};
    sct_ips_tile_shape(qb, tile_bytes, &w->qcall, &w->tile_rows);
    w->tile = sct__alloc(w->qcall * w->tile_rows * sizeof(float));
    w->heap_s = sct__alloc(qb * k * sizeof(float));
    w->heap_id = sct__alloc(qb * k * sizeof(int64_t));
    w->thr = sct__alloc(qb * sizeof(float));
    if (!w->tile || !w->heap_s || !w->heap_id || !w->thr) {
        sct_ips_workspace_free(w);
        return -ENOMEM;
    }
    return 0;
}

int sct_ips_workspace_alloc(struct sct_ips_workspace *w, size_t qb, size_t k)
{
    return sct_ips_workspace_alloc_tile(w, qb, k, sct_ips_tile_bytes_default());
}

void sct_ips_workspace_free(struct sct_ips_workspace *w)
{
    if (!w)
        return;
    free(w->tile);
    free(w->heap_s);
    free(w->heap_id);
    free(w->thr);
    w->tile = w->heap_s = w->thr = NULL;
    w->heap_id = NULL;
}

void sct_ips_search_range(const struct sct_ips_data *d, size_t q0, size_t q1, size_t d0, size_t d1,
                          struct sct_ips_workspace *w)
{
    size_t nq = q1 - q0, k = w->k;
    sct_ips_topk_fn topk = sct_ips_topk_variant(w->simd);

    sct_ips_heaps_reset(w, nq);
    for (size_t t0 = d0; t0 < d1; t0 += w->tile_rows) {
        size_t nt = d1 - t0 < w->tile_rows ? d1 - t0 : w->tile_rows;
        for (size_t c0 = 0; c0 < nq; c0 += w->qcall) {
            size_t nc = nq - c0 < w->qcall ? nq - c0 : w->qcall;
            /* tile[i][j] = <query q0 + c0 + i, row t0 + j>: Q (nc x dim) times rows^T. */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nc, (int)nt, (int)d->dim,
                        1.0f, d->q + (q0 + c0) * d->dim, (int)d->dim, d->db + t0 * d->dim,
                        (int)d->dim, 0.0f, w->tile, (int)nt);
            for (size_t i = 0; i < nc; i++)
                topk(w->tile + i * nt, nt, (int64_t)t0, w->heap_s + (c0 + i) * k,
                     w->heap_id + (c0 + i) * k, k);
        }
    }
}

struct sct__cand {
    float s;
    int64_t id;
};

/* qsort order: best first (score descending, then id ascending; empty slots last). */
static int sct__cand_cmp(const void *a, const void *b)
{
    const struct sct__cand *x = a, *y = b;

    if (sct_ips_worse(y->s, y->id, x->s, x->id))
        return -1;
    if (sct_ips_worse(x->s, x->id, y->s, y->id))
        return 1;
    return 0;
}

void sct_ips_merge(struct sct_ips_workspace *const parts[], int nparts, size_t q0, size_t lo,
                   size_t hi, struct sct_ips_results *r)
{
    size_t k = r->k, n = (size_t)nparts * k;
    struct sct__cand *c = malloc(n * sizeof(*c));

    if (!c) { /* cannot happen at these sizes; leave a visibly wrong result, not a crash */
        for (size_t i = lo; i < hi; i++)
            for (size_t j = 0; j < k; j++)
                r->id[(q0 + i) * k + j] = -1;
        return;
    }
    for (size_t i = lo; i < hi; i++) {
        for (int p = 0; p < nparts; p++)
            for (size_t j = 0; j < k; j++)
                c[(size_t)p * k + j] =
                    (struct sct__cand){parts[p]->heap_s[i * k + j], parts[p]->heap_id[i * k + j]};
        qsort(c, n, sizeof(*c), sct__cand_cmp);
        for (size_t j = 0; j < k; j++) {
            r->score[(q0 + i) * k + j] = c[j].s;
            r->id[(q0 + i) * k + j] = c[j].id;
        }
    }
    free(c);
}

/* ---- the reference ------------------------------------------------------------------------ */

double sct_ips_dot_ref(const struct sct_ips_data *d, size_t query, int64_t row, double *abs_sum)
{
    const float *x = d->q + query * d->dim, *y = d->db + (size_t)row * d->dim;
    double s = 0, a = 0;

    for (size_t i = 0; i < d->dim; i++) {
        double p = (double)x[i] * (double)y[i];
        s += p;
        a += fabs(p);
    }
    if (abs_sum)
        *abs_sum = a;
    return s;
}

/*
 * A different algorithm from the kernel on purpose: every score in double, kept in a
 * sorted array by insertion (ties: the earlier, smaller id stays ahead).
 */
void sct_ips_reference(const struct sct_ips_data *d, size_t query, size_t k, double *score,
                       int64_t *id)
{
    size_t kept = 0;

    for (size_t row = 0; row < d->nb; row++) {
        double s = sct_ips_dot_ref(d, query, (int64_t)row, NULL);
        if (kept == k && !(s > score[k - 1]))
            continue;
        size_t pos = kept < k ? kept++ : k - 1;
        while (pos > 0 && s > score[pos - 1]) {
            score[pos] = score[pos - 1];
            id[pos] = id[pos - 1];
            pos--;
        }
        score[pos] = s;
        id[pos] = (int64_t)row;
    }
    for (; kept < k; kept++) {
        score[kept] = -INFINITY;
        id[kept] = -1;
    }
}

int sct_ips_check_query(const struct sct_ips_data *d, const struct sct_ips_results *r, size_t query,
                        const double *ref_score, const int64_t *ref_id, size_t *accepted, char *msg,
                        size_t len)
{
    const float *score = r->score + query * r->k;
    const int64_t *id = r->id + query * r->k;
    size_t k = r->k;
    int ok = 1;

    *accepted = 0;
    msg[0] = '\0';
    for (size_t j = 0; j < k; j++) {
        double abs_sum, exact, tol;
        int dup = 0, in_ref = 0;
        if (id[j] < 0 || (size_t)id[j] >= d->nb) {
            snprintf(msg, len, "query %zu rank %zu: id %lld is not a database row", query, j,
                     (long long)id[j]);
            return 0;
        }
        for (size_t i = 0; i < j; i++)
            dup |= id[i] == id[j];
        for (size_t i = 0; i < k; i++)
            in_ref |= ref_id[i] == id[j];
        exact = sct_ips_dot_ref(d, query, id[j], &abs_sum);
        tol = (double)d->dim * FLT_EPSILON * abs_sum;
        if (dup) {
            snprintf(msg, len, "query %zu rank %zu: id %lld reported twice", query, j,
                     (long long)id[j]);
            return 0;
        }
        if (ok && !(fabs((double)score[j] - exact) <= tol)) {
            snprintf(msg, len, "query %zu rank %zu: id %lld scored %.9g, its exact score is %.9g",
                     query, j, (long long)id[j], (double)score[j], exact);
            ok = 0;
        }
        if (ok && !(fabs((double)score[j] - ref_score[j]) <= tol)) {
            snprintf(msg, len,
                     "query %zu rank %zu: id %lld score %.9g, expected id %lld score %.9g", query,
                     j, (long long)id[j], (double)score[j], (long long)ref_id[j], ref_score[j]);
            ok = 0;
        }
        /* A tie with the k-th reference score may stand in for a reference id. */
        if (in_ref || exact >= ref_score[k - 1] - tol)
            (*accepted)++;
    }
    if (ok && *accepted < k) {
        snprintf(msg, len, "query %zu: %zu of %zu ids are not in the exact top-k", query,
                 k - *accepted, k);
        ok = 0;
    }
    return ok;
}
