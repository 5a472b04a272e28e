/*
 * ipsearch_topk.h: each query's partial top-k, and the filter that feeds it from the sgemm
 * path's score tiles.
 *
 * One query's partial results are a min-heap of k (score, id) pairs, hs[0] the worst kept
 * (lowest score; among equal scores the largest id); empty slots hold -inf and id -1.
 * Candidates are offered in ascending id order, so a score equal to the root's, whose id is
 * larger than every kept one, never enters: only a score above the root does.
 *
 * The filter reads one query's row of a score tile and compares a block of scores at once
 * with the heap's root (the current k-th best score): past the first few thousand rows
 * almost every block is below it, and the block costs a few vector compares and one test.
 * Only a block with a score above the root is looked at lane by lane, each survivor tested
 * again against the root (which rises as survivors enter) in id order. Every variant thus
 * makes exactly the heap updates of the plain loop "if (s[j] > hs[0]) replace the root",
 * in the same order: the heaps come out identical, bit for bit. Variants (ipsearch_simd.h):
 * AVX-512F (64 scores a block: four 16-lane compares into mask registers), AVX2 (32: four
 * 8-lane compares, one movemask each), portable C (16: the compiler's generic vectors).
 */
#ifndef SC_KERNELS_IPSEARCH_TOPK_H
#define SC_KERNELS_IPSEARCH_TOPK_H

#include <stddef.h>
#include <stdint.h>

#include "ipsearch_simd.h"

/* 1 when (sa, ia) ranks below (sb, ib): a lower score, or an equal one with a larger id. */
static inline int sct_ips_worse(float sa, int64_t ia, float sb, int64_t ib)
{
    return sa < sb || (sa == sb && ia > ib);
}

/* Empty one heap: k slots of -inf and id -1. */
void sct_ips_heap_reset(float *hs, int64_t *hi, size_t k);

/*
 * Replace the root of one query's heap (hs, hi, k) with (s, id) and restore the order. For
 * a candidate that beats the root (s > hs[0]).
 */
void sct_ips_heap_replace_top(float *hs, int64_t *hi, size_t k, float s, int64_t id);

/*
 * A filter variant: offer one query's n scores s (database ids base..base+n-1) to its heap
 * (hs, hi, k); every score above the root enters, in id order.
 */
typedef void (*sct_ips_topk_fn)(const float *s, size_t n, int64_t base, float *hs, int64_t *hi,
                                size_t k);

/* The variant's filter; the portable one for a variant not compiled in (non-x86 builds).
 * The caller checks sct_ips_simd_supported() first. */
sct_ips_topk_fn sct_ips_topk_variant(enum sct_ips_simd v);

#if SCT_IPS_SIMD_X86
/* In ipsearch_topk_x86.c. */
void sct_ips_topk_avx2(const float *s, size_t n, int64_t base, float *hs, int64_t *hi, size_t k);
void sct_ips_topk_avx512(const float *s, size_t n, int64_t base, float *hs, int64_t *hi, size_t k);
#endif

#endif
