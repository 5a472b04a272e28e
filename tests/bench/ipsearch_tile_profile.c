/*
 * ipsearch_tile_profile.c: where the sgemm path's time goes, tile by tile. Not part of the
 * CMake build and not a test: tests/bench/ipsearch_tile_profile.sh compiles it against the
 * built kernel libraries and runs it pinned to one cpu.
 *
 *   profile NB NQ DIM K SEED REPS TILES_KIB QUERIES_PER_CALL
 *
 * One thread searches all NQ queries over the whole database the way the kernel's sgemm
 * path does (sct_ips_search_range: an sgemm call per tile of rows, then the top-k filter
 * over each query's row of the tile), for every combination of a tile size (TILES_KIB, a
 * comma list), a number of queries per sgemm call (QUERIES_PER_CALL, a comma list; 0: all
 * NQ, as the kernel does) and a top-k filter variant (the portable one and the widest this
 * CPU runs). The combinations are interleaved, REPS rounds after one warm-up round. Per
 * call the wall clock is read around sgemm and around the filter; per search the thread's
 * CPU time. Printed per combination: the minimum and the median over the rounds of the
 * sgemm seconds, the filter seconds, the rest (thread CPU minus both) and the thread CPU
 * seconds, and the ids' checksum (equal for every combination, or the profile is wrong).
 */
#include <cblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipsearch_engine.h"

#define MAX_CONFIGS 128
#define MAX_REPS 64

static double clock_of(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct config {
    size_t tile_kib, qs;
    enum sct_ips_simd simd;
    double sgemm[MAX_REPS], topk[MAX_REPS], cpu[MAX_REPS];
    uint64_t checksum;
};

/* One search of all queries by config c: the per-call sums into round rep of c. */
static void profile_search(const struct sct_ips_data *d, struct config *c, int rep,
                           struct sct_ips_workspace *w, float *tile, struct sct_ips_results *res)
{
    size_t qs = c->qs ? c->qs : d->nq, k = w->k;
    size_t rows = c->tile_kib * 1024 / sizeof(float) / qs;
    sct_ips_topk_fn topk = sct_ips_topk_variant(c->simd);
    double sg = 0, tk = 0, cpu0 = clock_of(CLOCK_THREAD_CPUTIME_ID);

    rows = rows < 16 ? 16 : rows / 16 * 16;
    sct_ips_heaps_reset(w, d->nq);
    for (size_t t0 = 0; t0 < d->nb; t0 += rows) {
        size_t nt = d->nb - t0 < rows ? d->nb - t0 : rows;
        for (size_t q0 = 0; q0 < d->nq; q0 += qs) {
            size_t nq = d->nq - q0 < qs ? d->nq - q0 : qs;
            double a = clock_of(CLOCK_THREAD_CPUTIME_ID);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nq, (int)nt, (int)d->dim,
                        1.0f, d->q + q0 * d->dim, (int)d->dim, d->db + t0 * d->dim, (int)d->dim,
                        0.0f, tile, (int)nt);
            double b = clock_of(CLOCK_THREAD_CPUTIME_ID);
            for (size_t i = 0; i < nq; i++)
                topk(tile + i * nt, nt, (int64_t)t0, w->heap_s + (q0 + i) * k,
                     w->heap_id + (q0 + i) * k, k);
            tk += clock_of(CLOCK_THREAD_CPUTIME_ID) - b;
            sg += b - a;
        }
    }
    c->cpu[rep] = clock_of(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    c->sgemm[rep] = sg;
    c->topk[rep] = tk;
    sct_ips_merge(&w, 1, 0, 0, d->nq, res);
    c->checksum = sct_ips_results_checksum(res);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* "min median" of v[1..n-1] (round 0 warms up). */
static void min_median(const double *v, int n, double *min, double *med)
{
    double s[MAX_REPS];
    int m = n - 1;

    memcpy(s, v + 1, (size_t)m * sizeof(double));
    qsort(s, (size_t)m, sizeof(double), cmp_double);
    *min = s[0];
    *med = m % 2 ? s[m / 2] : (s[m / 2 - 1] + s[m / 2]) / 2;
}

/* Parse a comma list of whole numbers into out (at most max); the count, or -1. */
static int parse_list(const char *text, size_t *out, int max)
{
    int n = 0;
    char *end;

    for (const char *p = text; *p; p = *end ? end + 1 : end) {
        if (n == max)
            return -1;
        out[n++] = strtoull(p, &end, 10);
        if (end == p || (*end && *end != ','))
            return -1;
    }
    return n;
}

int main(int argc, char **argv)
{
    static struct config cfg[MAX_CONFIGS];
    size_t tiles[8], qss[8];
    int nt, nqs, n = 0, reps, rc = 1;
    struct sct_ips_data d;
    struct sct_ips_workspace w;
    struct sct_ips_results res;
    float *tile;

    if (argc != 10 || strcmp(argv[1], "profile") != 0 || (nt = parse_list(argv[8], tiles, 8)) < 1 ||
        (nqs = parse_list(argv[9], qss, 8)) < 1 || (reps = atoi(argv[7])) < 2 || reps >= MAX_REPS) {
        fprintf(stderr, "usage: ipsearch_tile_profile profile NB NQ DIM K SEED REPS(2-63) "
                        "TILES_KIB,... QUERIES_PER_CALL,...\n");
        return 2;
    }
    size_t nb = strtoull(argv[2], NULL, 10), nq = strtoull(argv[3], NULL, 10);
    size_t dim = strtoull(argv[4], NULL, 10), k = strtoull(argv[5], NULL, 10);
    openblas_set_num_threads(1);
    if (sct_ips_data_alloc(&d, nb, nq, dim) != 0)
        return 1;
    sct_ips_data_fill(&d, strtoull(argv[6], NULL, 10), 1);
    size_t max_kib = 0;
    for (int t = 0; t < nt; t++)
        for (int q = 0; q < nqs; q++)
            for (int v = 0; v < 2; v++) {
                enum sct_ips_simd simd = v ? sct_ips_simd_best() : SCT_IPS_SIMD_SCALAR;
                if (v && simd == SCT_IPS_SIMD_SCALAR)
                    continue;
                cfg[n++] = (struct config){.tile_kib = tiles[t], .qs = qss[q], .simd = simd};
                max_kib = tiles[t] > max_kib ? tiles[t] : max_kib;
            }
    tile = malloc((max_kib * 1024 / sizeof(float) + 16 * nq) * sizeof(float));
    if (!tile || sct_ips_workspace_alloc_tile(&w, nq, k, 64 * 1024) != 0 ||
        sct_ips_results_alloc(&res, nq, k) != 0)
        goto out;
    for (int rep = 0; rep <= reps; rep++)
        for (int c = 0; c < n; c++)
            profile_search(&d, &cfg[(c + rep) % n], rep, &w, tile, &res);
    printf("nb=%zu nq=%zu dim=%zu k=%zu rounds=%d (min / median seconds per search)\n", nb, nq, dim,
           k, reps);
    printf("%8s %6s %-9s %17s %17s %17s %17s %s\n", "tile_KiB", "q/call", "filter", "sgemm",
           "top-k", "rest", "thread_cpu", "ids");
    for (int c = 0; c < n; c++) {
        double rest[MAX_REPS], a[8];
        for (int r = 0; r <= reps; r++)
            rest[r] = cfg[c].cpu[r] - cfg[c].sgemm[r] - cfg[c].topk[r];
        min_median(cfg[c].sgemm, reps + 1, &a[0], &a[1]);
        min_median(cfg[c].topk, reps + 1, &a[2], &a[3]);
        min_median(rest, reps + 1, &a[4], &a[5]);
        min_median(cfg[c].cpu, reps + 1, &a[6], &a[7]);
        printf("%8zu %6zu %-9s %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %016llx\n",
               cfg[c].tile_kib, cfg[c].qs ? cfg[c].qs : nq, sct_ips_simd_name(cfg[c].simd), a[0],
               a[1], a[2], a[3], a[4], a[5], a[6], a[7], (unsigned long long)cfg[c].checksum);
    }
    rc = 0;
out:
    free(tile);
    sct_ips_workspace_free(&w);
    sct_ips_results_free(&res);
    sct_ips_data_free(&d);
    return rc;
}
