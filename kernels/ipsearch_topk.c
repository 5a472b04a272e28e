/*
 * ipsearch_topk.c: the portable top-k filter and the variant table (see ipsearch_topk.h;
 * the heaps are in ipsearch_heap.c, called by every variant).
 */
#include "ipsearch_topk.h"

#include <string.h>

typedef float sct__v4f __attribute__((vector_size(16)));
typedef int sct__v4i __attribute__((vector_size(16)));

/* True when any of the 16 scores at p exceeds thr: four vector compares, one test. */
static int sct__any_above16(const float *p, float thr)
{
    sct__v4f a, b, c, d, t = {thr, thr, thr, thr};

    memcpy(&a, p, sizeof(a));
    memcpy(&b, p + 4, sizeof(b));
    memcpy(&c, p + 8, sizeof(c));
    memcpy(&d, p + 12, sizeof(d));
    sct__v4i m = (a > t) | (b > t) | (c > t) | (d > t);
    return (m[0] | m[1] | m[2] | m[3]) != 0;
}

/* The portable filter: blocks of 16 scores, then the tail one by one. */
static void sct__topk_portable(const float *s, size_t n, int64_t base, float *hs, int64_t *hi,
                               size_t k)
{
    float thr = hs[0];
    size_t j = 0;

    for (; j + 16 <= n; j += 16) {
        if (!sct__any_above16(s + j, thr))
            continue;
        for (size_t t = j; t < j + 16; t++) {
            if (s[t] > thr) {
                sct_ips_heap_replace_top(hs, hi, k, s[t], base + (int64_t)t);
                thr = hs[0];
            }
        }
    }
    for (; j < n; j++) {
        if (s[j] > thr) {
            sct_ips_heap_replace_top(hs, hi, k, s[j], base + (int64_t)j);
            thr = hs[0];
        }
    }
}

sct_ips_topk_fn sct_ips_topk_variant(enum sct_ips_simd v)
{
    switch (v) {
#if SCT_IPS_SIMD_X86
    case SCT_IPS_SIMD_AVX2:
        return sct_ips_topk_avx2;
    case SCT_IPS_SIMD_AVX512:
        return sct_ips_topk_avx512;
#endif
    default:
        return sct__topk_portable;
    }
}
