/*
 * ipsearch_topk_x86.c: the top-k filter's AVX2 and AVX-512F variants (see ipsearch_topk.h).
 *
 * A block of 32 (AVX2) or 64 (AVX-512F) scores is four vector compares against the root
 * broadcast; their masks are combined into one integer, and a zero (the common case) moves
 * on to the next block. Otherwise the set bits are the candidates, taken lowest first (id
 * order), each compared again with the root, which may have risen. A shorter run of scores
 * goes through one vector at a time, and the last few (fewer than a vector) one by one.
 * Compiled with target attributes; sct_ips_simd_supported() decides whether these run.
 */
#include "ipsearch_topk.h"

#if SCT_IPS_SIMD_X86

#ifdef SCT_IPS_X86_EMULATED
/* The test build on SIMDe's portable intrinsics: as in ipsearch_scan_x86.c. */
#define SCT__AVX2
#define SCT__AVX2_INLINE static inline
#define SCT__AVX512
#define sct_ips_topk_avx2 sct_ips_topk_avx2_emulated
#define sct_ips_topk_avx512 sct_ips_topk_avx512_emulated
#else
#include <immintrin.h>

#define SCT__AVX2 __attribute__((target("avx2")))
#define SCT__AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))
#define SCT__AVX512 __attribute__((target("avx512f,avx2")))
#endif

/*
 * Offer the scores of s whose bits are set in m (bit i: s[i], id base + i) to the heap,
 * lowest bit first, each only if it still beats the root. Returns the new root score.
 */
static float sct__offer(const float *s, uint64_t m, int64_t base, float *hs, int64_t *hi, size_t k,
                        float thr)
{
    while (m) {
        int i = __builtin_ctzll(m);
        m &= m - 1;
        if (s[i] > thr) {
            sct_ips_heap_replace_top(hs, hi, k, s[i], base + i);
            thr = hs[0];
        }
    }
    return thr;
}

/* The last n (< one vector) scores, one by one. */
static void sct__tail(const float *s, size_t n, int64_t base, float *hs, int64_t *hi, size_t k,
                      float thr)
{
    for (size_t j = 0; j < n; j++) {
        if (s[j] > thr) {
            sct_ips_heap_replace_top(hs, hi, k, s[j], base + (int64_t)j);
            thr = hs[0];
        }
    }
}

/* The bits of the 8 lanes of s above t. */
SCT__AVX2_INLINE unsigned sct__above8(const float *s, __m256 t)
{
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(s), t, _CMP_GT_OQ));
}

SCT__AVX2 void sct_ips_topk_avx2(const float *s, size_t n, int64_t base, float *hs, int64_t *hi,
                                 size_t k)
{
    float thr = hs[0];
    __m256 t = _mm256_set1_ps(thr);
    size_t j = 0;

    for (; j + 32 <= n; j += 32) {
        __m256 c0 = _mm256_cmp_ps(_mm256_loadu_ps(s + j), t, _CMP_GT_OQ);
        __m256 c1 = _mm256_cmp_ps(_mm256_loadu_ps(s + j + 8), t, _CMP_GT_OQ);
        __m256 c2 = _mm256_cmp_ps(_mm256_loadu_ps(s + j + 16), t, _CMP_GT_OQ);
        __m256 c3 = _mm256_cmp_ps(_mm256_loadu_ps(s + j + 24), t, _CMP_GT_OQ);
        __m256 any = _mm256_or_ps(_mm256_or_ps(c0, c1), _mm256_or_ps(c2, c3));
        if (_mm256_testz_ps(any, any)) /* a true lane is all ones: its sign bit is set */
            continue;
        uint64_t m = (uint64_t)_mm256_movemask_ps(c0) | (uint64_t)_mm256_movemask_ps(c1) << 8 |
                     (uint64_t)_mm256_movemask_ps(c2) << 16 |
                     (uint64_t)_mm256_movemask_ps(c3) << 24;
        thr = sct__offer(s + j, m, base + (int64_t)j, hs, hi, k, thr);
        t = _mm256_set1_ps(thr);
    }
    for (; j + 8 <= n; j += 8) {
        unsigned m = sct__above8(s + j, t);
        if (!m)
            continue;
        thr = sct__offer(s + j, m, base + (int64_t)j, hs, hi, k, thr);
        t = _mm256_set1_ps(thr);
    }
    sct__tail(s + j, n - j, base + (int64_t)j, hs, hi, k, thr);
}

SCT__AVX512 void sct_ips_topk_avx512(const float *s, size_t n, int64_t base, float *hs, int64_t *hi,
                                     size_t k)
{
    float thr = hs[0];
    __m512 t = _mm512_set1_ps(thr);
    size_t j = 0;

    for (; j + 64 <= n; j += 64) {
        uint64_t m0 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + j), t, _CMP_GT_OQ);
        uint64_t m1 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + j + 16), t, _CMP_GT_OQ);
        uint64_t m2 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + j + 32), t, _CMP_GT_OQ);
        uint64_t m3 = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + j + 48), t, _CMP_GT_OQ);
        uint64_t m = m0 | m1 << 16 | m2 << 32 | m3 << 48;
        if (!m)
            continue;
        thr = sct__offer(s + j, m, base + (int64_t)j, hs, hi, k, thr);
        t = _mm512_set1_ps(thr);
    }
    for (; j + 16 <= n; j += 16) {
        uint64_t m = _mm512_cmp_ps_mask(_mm512_loadu_ps(s + j), t, _CMP_GT_OQ);
        if (!m)
            continue;
        thr = sct__offer(s + j, m, base + (int64_t)j, hs, hi, k, thr);
        t = _mm512_set1_ps(thr);
    }
    sct__tail(s + j, n - j, base + (int64_t)j, hs, hi, k, thr);
}

#endif /* SCT_IPS_SIMD_X86 */
