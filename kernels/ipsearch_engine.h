/*
 * ipsearch_engine.h: exact top-k by inner product, the "index" streamcard-ipsearch calls.
 *
 * Data: a database of nb vectors and nq queries, dim float32 each, row-major, generated
 * from a seed by a counter-based generator (every element is a function of seed and index
 * alone, so any thread count produces the same data and a benchmark driver can rebuild it).
 * Search: for a block of queries and a range of database rows, scores come from OpenBLAS's
 * sgemm in tiles of a few MiB, and each tile is scanned for the per-query top-k right after
 * sgemm wrote it, while it is still in cache (a SIMD compare against the current k-th score
 * skips almost every element). Memory is the data, one tile and k results per query:
 * nothing grows with nq * nb.
 *
 * Results order: score descending, ties by id ascending (the smaller id wins), as faiss
 * IndexFlatIP reports them.
 */
#ifndef SC_KERNELS_IPSEARCH_ENGINE_H
#define SC_KERNELS_IPSEARCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ipsearch_simd.h"
#include "ipsearch_topk.h"

/* The vectors. */
struct sct_ips_data {
    size_t nb, nq, dim;
    float *db; /* nb x dim */
    float *q;  /* nq x dim */
};

/* Per-query results: k (score, id) pairs per query, best first. */
struct sct_ips_results {
    size_t nq, k;
    float *score; /* nq x k */
    int64_t *id;  /* nq x k; -1 where fewer than k database rows were searched */
};

/* One searching thread's scratch: a score tile and k partial results per block query. */
struct sct_ips_workspace {
    size_t qb, tile_rows, k;
    size_t qcall;           /* queries per sgemm call: the tile is qcall x tile_rows */
    enum sct_ips_simd simd; /* the top-k filter's variant (the widest this CPU runs) */
    float *tile;            /* qcall x tile_rows scores (the sgemm path) */
    float *heap_s;          /* qb x k */
    int64_t *heap_id;       /* qb x k */
    float *thr;             /* qb: each query's heap root, contiguous for SIMD (the scan path) */
};

/* The generator's streams, one per array. */
enum sct_ips_stream { SCT_IPS_STREAM_DATABASE = 1, SCT_IPS_STREAM_QUERIES = 2 };

/*
 * Element i of a stream: uniform in [0, 1) with 24 random bits, from splitmix64's mixer:
 * key = mix(seed ^ stream), value = (mix(key + (i + 1) * 0x9e3779b97f4a7c15) >> 40) / 2^24.
 */
float sct_ips_value(uint64_t seed, enum sct_ips_stream stream, uint64_t i);

/* Allocate (page aligned, untouched) the data; 0 or -ENOMEM. sct_ips_data_free takes NULL. */
int sct_ips_data_alloc(struct sct_ips_data *d, size_t nb, size_t nq, size_t dim);
void sct_ips_data_free(struct sct_ips_data *d);

/* Fill both arrays from seed, in parallel over `threads` OpenMP threads (first touch). */
void sct_ips_data_fill(struct sct_ips_data *d, uint64_t seed, int threads);

/* Order-independent 64-bit hash of an array's contents, in parallel. */
uint64_t sct_ips_checksum(const float *v, size_t n, int threads);

int sct_ips_results_alloc(struct sct_ips_results *r, size_t nq, size_t k);
void sct_ips_results_free(struct sct_ips_results *r);

/* Hash of every query's ids in rank order: equal results, equal hash (faiss comparisons). */
uint64_t sct_ips_results_checksum(const struct sct_ips_results *r);

/*
 * Bytes of one score tile by default: twice the core's L2 as the C library reports it
 * (sysconf(_SC_LEVEL2_CACHE_SIZE), CPUID on x86), so that a pass of up to a thousand
 * queries is one sgemm call per tile of 256 rows and more (the database tile packed once
 * for every query); the top-k filter reads the tile right after sgemm wrote it, from L2
 * and L3. 512 KiB where the size is unknown; at least 64 KiB, at most 4 MiB.
 */
size_t sct_ips_tile_bytes_default(void);

/* Rows per tile below which a block's queries are split into several sgemm calls (Zen 3
 * VM, 256 KiB tiles, nq = 1000, AVX2 filter: one call of 64 rows 0.93-0.95 CPU seconds per
 * search, four of 250 queries x 256 rows 0.84-0.88; tests/bench/ipsearch_tile_profile.sh). */
#define SCT_IPS_TILE_MIN_ROWS 256

/*
 * The shape of a score tile of about tile_bytes for blocks of qb queries: one sgemm call
 * per tile of rows for the whole block while that leaves at least SCT_IPS_TILE_MIN_ROWS
 * rows, else the block's queries split evenly into calls that do (each call packs its
 * queries again, so short tiles pay that copy over few rows); rows a multiple of 16, 64 to
 * 4096 of them.
 */
void sct_ips_tile_shape(size_t qb, size_t tile_bytes, size_t *qcall, size_t *rows);

/*
 * Scratch for blocks of up to qb queries with score tiles of about tile_bytes (shaped by
 * sct_ips_tile_shape()); 0 or -ENOMEM. sct_ips_workspace_alloc() takes the default tile.
 * The free takes NULL members.
 */
int sct_ips_workspace_alloc_tile(struct sct_ips_workspace *w, size_t qb, size_t k,
                                 size_t tile_bytes);
int sct_ips_workspace_alloc(struct sct_ips_workspace *w, size_t qb, size_t k);
void sct_ips_workspace_free(struct sct_ips_workspace *w);

/* Reset the heaps (ipsearch_topk.h) of the first nq block queries of w. */
void sct_ips_heaps_reset(struct sct_ips_workspace *w, size_t nq);

/*
 * Search queries [q0, q1) (at most w->qb) against database rows [d0, d1), keeping each
 * query's best k in w's partial results (reset first). Single-threaded: the caller owns w,
 * and sgemm runs on the caller's thread as far as the BLAS library's own threading allows.
 */
void sct_ips_search_range(const struct sct_ips_data *d, size_t q0, size_t q1, size_t d0, size_t d1,
                          struct sct_ips_workspace *w);

/*
 * Merge the partial results of nparts workspaces (each searched a different database range
 * for the same queries [q0, q0 + nq_block)) for queries [lo, hi) of the block, sorted best
 * first, into r.
 */
void sct_ips_merge(struct sct_ips_workspace *const parts[], int nparts, size_t q0, size_t lo,
                   size_t hi, struct sct_ips_results *r);

/* The naive reference for one query, in double precision: best k ids and scores. */
void sct_ips_reference(const struct sct_ips_data *d, size_t query, size_t k, double *score,
                       int64_t *id);

/* The exact inner product of query and database row, in double precision, and the sum of
 * the absolute products (what float32 rounding error scales with). */
double sct_ips_dot_ref(const struct sct_ips_data *d, size_t query, int64_t row, double *abs_sum);

/* The tolerance stated in the output: a float32 sum of dim products is within
 * dim * FLT_EPSILON * sum|q_i * x_i| of the exact value (twice the usual gamma_dim bound). */
#define SCT_IPS_TOLERANCE_TEXT "dim*FLT_EPSILON*sum|q_i*x_i|"

/*
 * Check one query's results against the reference (ref_score, ref_id from
 * sct_ips_reference): every id in range and distinct, each reported score within tolerance
 * of that id's exact score and of the reference score at the same rank, and each id either
 * in the reference top-k or tied within tolerance with the reference's k-th score.
 * *accepted counts the ids that pass the last test (recall@k = accepted / k). Returns 1
 * when all checks pass; otherwise 0 with a one-line reason in msg.
 */
int sct_ips_check_query(const struct sct_ips_data *d, const struct sct_ips_results *r, size_t query,
                        const double *ref_score, const int64_t *ref_id, size_t *accepted, char *msg,
                        size_t len);

#endif
