/*
 * ipsearch_scan.h: the single-pass scan, streamcard-ipsearch's path for small batches.
 *
 * The sgemm path (ipsearch_engine.h) repacks every database tile for a product that is
 * only as tall as the batch: for a few queries it reads the database at a fraction of what
 * a core can stream. The scan reads each database row once: every query of the batch is
 * dotted with a few rows while they are in L1 (register blocks of rows x queries, SIMD
 * along the dimension), and each score block is compared at once with the queries' current
 * k-th scores (the heap roots, kept contiguous in the workspace): only a score that beats
 * its query's threshold reaches the heap. Results: the same heaps, order and tie rule as the
 * sgemm path, so the merge and the checks are shared.
 *
 * SIMD: the variant is chosen by the CPU at run time (ipsearch_simd.h).
 */
#ifndef SC_KERNELS_IPSEARCH_SCAN_H
#define SC_KERNELS_IPSEARCH_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "ipsearch_engine.h"
#include "ipsearch_simd.h"

/*
 * One variant's work on a range of rows (all pointers valid for the whole call):
 * queries q (nq x dim) against rows (nrows x dim, ids base..base+nrows-1), every score
 * that beats thr[i] offered to query i's heap (hs + i * k, hi + i * k), thr[i] kept equal
 * to hs[i * k]. The x86 variants live in ipsearch_scan_x86.c.
 */
struct sct_ips_scan_job {
    const float *q, *rows;
    size_t nq, nrows, dim, k;
    int64_t base;
    float *hs, *thr;
    int64_t *hi;
};
typedef void (*sct_ips_scan_fn)(const struct sct_ips_scan_job *job);

/* The variant's function, or NULL when it is not compiled in (non-x86 builds). */
sct_ips_scan_fn sct_ips_scan_variant(enum sct_ips_simd v);

#if SCT_IPS_SIMD_X86
void sct_ips_scan_avx2(const struct sct_ips_scan_job *job);
void sct_ips_scan_avx512(const struct sct_ips_scan_job *job);
#endif

/*
 * Search queries [q0, q1) (at most w->qb) against database rows [d0, d1) with variant v
 * (which must be supported), keeping each query's best k in w's partial results (reset
 * first), exactly as sct_ips_search_range() does with sgemm. Single-threaded.
 */
void sct_ips_scan_range(const struct sct_ips_data *d, size_t q0, size_t q1, size_t d0, size_t d1,
                        struct sct_ips_workspace *w, enum sct_ips_simd v);

#endif
