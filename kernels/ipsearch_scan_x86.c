/*
 * ipsearch_scan_x86.c: the scan's AVX2+FMA and AVX-512F variants (see ipsearch_scan.h).
 *
 * Both read the database strictly row after row, each row once and front to back: one
 * sequential stream is what the hardware prefetchers serve at full speed (interleaving
 * even two rows measured 1.4x slower when the scan is bound by memory). A row is dotted
 * with a group of queries (8 for AVX2, 16 for AVX-512, as many as there are accumulator
 * lanes) while it is in L1: one load of the row feeds one fused multiply-add per query, the
 * queries come from L1, and independent accumulators cover the FMA latency. A transposing
 * reduction turns the group's accumulators into one vector of scores (lane i: query i),
 * compared in one instruction with those queries' thresholds (contiguous in the
 * workspace); the last group takes the nq % 8 (16) queries left. Few queries would leave
 * too few independent sums per row: up to 4 (AVX2) or 8 (AVX-512) queries take blocks of
 * adjacent rows instead, one sum per row and query, 8 (16) in all. A dimension that is not a
 * multiple of the vector length ends with masked loads (no read past a row, no scalar
 * tail).
 *
 * Compiled with target attributes: the rest of the program keeps the build's flags, and
 * sct_ips_simd_supported() decides at run time whether these may run.
 */
#include "ipsearch_scan.h"

#if SCT_IPS_SIMD_X86

#ifdef SCT_IPS_X86_EMULATED
/* The test build (tests/kernels/ipsearch_x86_emulated.h, included first): the same code on
   SIMDe's portable intrinsics, so the AVX-512 variant's logic is tested on any x86 CPU; no
   target attributes (the compiler must not emit AVX-512 for the emulation's loops), and
   names of their own beside the real variants. */
#define SCT__AVX2
#define SCT__AVX2_INLINE static inline
#define SCT__AVX512
#define SCT__AVX512_INLINE static inline
#define sct_ips_scan_avx2 sct_ips_scan_avx2_emulated
#define sct_ips_scan_avx512 sct_ips_scan_avx512_emulated
#else
#include <immintrin.h>

#define SCT__AVX2 __attribute__((target("avx2,fma")))
#define SCT__AVX2_INLINE static inline __attribute__((always_inline, target("avx2,fma")))
#define SCT__AVX512 __attribute__((target("avx512f,avx2,fma")))
#define SCT__AVX512_INLINE static inline __attribute__((always_inline, target("avx512f,avx2,fma")))
#endif

/* Switch cases calling `call` with SCT__Q the case's constant (the last query group's size). */
#define SCT__CASE(n, call)                                                                         \
    case n: {                                                                                      \
        enum { SCT__Q = (n) };                                                                     \
        call;                                                                                      \
        break;                                                                                     \
    }
#define SCT__CASES_1_7(call)                                                                       \
    SCT__CASE(1, call)                                                                             \
    SCT__CASE(2, call)                                                                             \
    SCT__CASE(3, call)                                                                             \
    SCT__CASE(4, call) SCT__CASE(5, call) SCT__CASE(6, call) SCT__CASE(7, call)
#define SCT__CASES_8_15(call)                                                                      \
    SCT__CASE(8, call)                                                                             \
    SCT__CASE(9, call)                                                                             \
    SCT__CASE(10, call)                                                                            \
    SCT__CASE(11, call)                                                                            \
    SCT__CASE(12, call) SCT__CASE(13, call) SCT__CASE(14, call) SCT__CASE(15, call)

/*
 * Offer the lanes set in m of one row's scores s (lane i: query qg + i) to their heaps;
 * each is tested again against its query's threshold, which may have moved since the
 * vector compare (it never does between the lanes of one row: they are different queries).
 */
static void sct__offer(const struct sct_ips_scan_job *j, const float *s, unsigned m, size_t row,
                       size_t qg)
{
    while (m) {
        int lane = __builtin_ctz(m);
        size_t i = qg + (size_t)lane;
        m &= m - 1;
        if (s[lane] > j->thr[i]) {
            sct_ips_heap_replace_top(j->hs + i * j->k, j->hi + i * j->k, j->k, s[lane],
                                     j->base + (int64_t)row);
            j->thr[i] = j->hs[i * j->k];
        }
    }
}

/*
 * As sct__offer() for a block of rows: lane l is row (row + l / QP)'s score for query
 * l % QP. Lanes go in order, so each query's rows are offered in row order (the tie rule).
 */
static void sct__offer_block(const struct sct_ips_scan_job *j, const float *s, unsigned m,
                             size_t row, int QP)
{
    while (m) {
        int lane = __builtin_ctz(m);
        size_t i = (size_t)(lane % QP), r = row + (size_t)(lane / QP);
        m &= m - 1;
        if (s[lane] > j->thr[i]) {
            sct_ips_heap_replace_top(j->hs + i * j->k, j->hi + i * j->k, j->k, s[lane],
                                     j->base + (int64_t)r);
            j->thr[i] = j->hs[i * j->k];
        }
    }
}

/* ---- AVX2 + FMA: groups of 8 queries, 8 lanes ------------------------------------------- */

/* Lane l of the result: the sum of a[l]'s 8 lanes (two hadd levels, one 128-bit swap). */
SCT__AVX2_INLINE __m256 sct__avx2_sum8(const __m256 a[8])
{
    __m256 t0 = _mm256_hadd_ps(a[0], a[1]), t1 = _mm256_hadd_ps(a[2], a[3]);
    __m256 t2 = _mm256_hadd_ps(a[4], a[5]), t3 = _mm256_hadd_ps(a[6], a[7]);
    __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);

    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20),
                         _mm256_permute2f128_ps(u0, u1, 0x31));
}

/* Row x against the Q (1..8) queries at q: lane i holds query i's score, lanes >= Q zero. */
SCT__AVX2_INLINE __m256 sct__avx2_dots(const float *x, const float *q, size_t dim, int Q,
                                       __m256i tail)
{
    __m256 acc[8];
    size_t t = 0;

#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
        acc[i] = _mm256_setzero_ps();
    for (; t + 8 <= dim; t += 8) {
        __m256 xv = _mm256_loadu_ps(x + t);
#pragma GCC unroll 8
        for (int i = 0; i < Q; i++)
            acc[i] = _mm256_fmadd_ps(xv, _mm256_loadu_ps(q + (size_t)i * dim + t), acc[i]);
    }
    if (t < dim) {
        __m256 xv = _mm256_maskload_ps(x + t, tail);
#pragma GCC unroll 8
        for (int i = 0; i < Q; i++)
            acc[i] = _mm256_fmadd_ps(xv, _mm256_maskload_ps(q + (size_t)i * dim + t, tail), acc[i]);
    }
    return sct__avx2_sum8(acc);
}

/* One row against queries qg..qg+Q-1: scores, one compare with their thresholds, offers. */
SCT__AVX2_INLINE void sct__avx2_group(const struct sct_ips_scan_job *j, size_t row, size_t qg,
                                      int Q, __m256i tail)
{
    __m256 s = sct__avx2_dots(j->rows + row * j->dim, j->q + qg * j->dim, j->dim, Q, tail);
    __m256i lanes =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(Q), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    /* Lanes past Q: score 0, threshold 0, never above. */
    __m256 thr = Q == 8 ? _mm256_loadu_ps(j->thr + qg) : _mm256_maskload_ps(j->thr + qg, lanes);
    unsigned m = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(s, thr, _CMP_GT_OQ)) & ((1u << Q) - 1);

    if (m) {
        float v[8];
        _mm256_storeu_ps(v, s);
        sct__offer(j, v, m, row, qg);
    }
}

/*
 * A block of 8 / QP rows at x (contiguous) against Q <= QP queries at q (QP 1, 2 or 4):
 * lane b * QP + i holds row b's score for query i, lanes of i >= Q zero. Few queries give a
 * row few independent accumulators; a block gives one per row and query, so the FMA latency
 * is covered, and one transposing reduction serves the whole block. The rows are read one
 * after the other, each front to back (the block's 4 KiB as one sequential stream): a row's
 * sums form one chain, and the out-of-order core overlaps the chains of the next rows. (Read
 * across the rows, 8 floats of each in turn, the block cost Zen 3 a quarter of its speed at
 * one query: 0.73 of a plain sequential scan.)
 */
SCT__AVX2_INLINE __m256 sct__avx2_block(const float *x, const float *q, size_t dim, int QP, int Q,
                                        __m256i tail)
{
    __m256 acc[8];

#pragma GCC unroll 8
    for (int l = 0; l < 8; l++)
        acc[l] = _mm256_setzero_ps();
    for (int b = 0; b < 8 / QP; b++) {
        const float *row = x + (size_t)b * dim;
        size_t t = 0;
        for (; t + 8 <= dim; t += 8) {
            __m256 xv = _mm256_loadu_ps(row + t);
#pragma GCC unroll 4
            for (int i = 0; i < Q; i++)
                acc[b * QP + i] =
                    _mm256_fmadd_ps(xv, _mm256_loadu_ps(q + (size_t)i * dim + t), acc[b * QP + i]);
        }
        if (t < dim) {
            __m256 xv = _mm256_maskload_ps(row + t, tail);
#pragma GCC unroll 4
            for (int i = 0; i < Q; i++)
                acc[b * QP + i] = _mm256_fmadd_ps(
                    xv, _mm256_maskload_ps(q + (size_t)i * dim + t, tail), acc[b * QP + i]);
        }
    }
    return sct__avx2_sum8(acc);
}

/* The block of 8 / QP rows from row against all Q (<= QP) queries: one compare, offers. */
SCT__AVX2_INLINE void sct__avx2_rows(const struct sct_ips_scan_job *j, size_t row, int QP, int Q,
                                     __m256i tail)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i query = _mm256_and_si256(lane, _mm256_set1_epi32(QP - 1)); /* lane % QP */
    __m256i used = _mm256_cmpgt_epi32(_mm256_set1_epi32(Q), query);
    __m256 s = sct__avx2_block(j->rows + row * j->dim, j->q, j->dim, QP, Q, tail);
    /* Each lane's threshold: its query's (lanes of i >= Q: score 0, threshold 0). */
    __m256 thr = _mm256_permutevar8x32_ps(
        _mm256_maskload_ps(j->thr, _mm256_cmpgt_epi32(_mm256_set1_epi32(Q), lane)), query);
    unsigned m = (unsigned)_mm256_movemask_ps(
        _mm256_and_ps(_mm256_cmp_ps(s, thr, _CMP_GT_OQ), _mm256_castsi256_ps(used)));

    if (m) {
        float v[8];
        _mm256_storeu_ps(v, s);
        sct__offer_block(j, v, m, row, QP);
    }
}

/* Every row in blocks of 8 / QP against the nq (<= QP) queries; the last rows one by one. */
#define SCT__AVX2_BLOCKS(QP)                                                                       \
    do {                                                                                           \
        size_t rows_b = j->nrows / (8 / (QP)) * (8 / (QP)), row = 0;                               \
        for (; row < rows_b; row += 8 / (QP))                                                      \
            sct__avx2_rows(j, row, QP, SCT__Q, tail);                                              \
        for (; row < j->nrows; row++)                                                              \
            sct__avx2_group(j, row, 0, SCT__Q, tail);                                              \
    } while (0)

SCT__AVX2 void sct_ips_scan_avx2(const struct sct_ips_scan_job *j)
{
    __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(j->dim % 8)),
                                      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    size_t nq8 = j->nq / 8 * 8;

    switch (j->nq) { /* few queries: blocks of rows, Q and QP constants per instance */
        SCT__CASE(1, SCT__AVX2_BLOCKS(1))
        SCT__CASE(2, SCT__AVX2_BLOCKS(2))
        SCT__CASE(3, SCT__AVX2_BLOCKS(4))
        SCT__CASE(4, SCT__AVX2_BLOCKS(4))
    default:
        break;
    }
    if (j->nq <= 4)
        return;
    for (size_t row = 0; row < j->nrows; row++) {
        for (size_t qg = 0; qg < nq8; qg += 8)
            sct__avx2_group(j, row, qg, 8, tail);
        switch (j->nq % 8) { /* one instance per group size: Q stays a constant */
            SCT__CASES_1_7(sct__avx2_group(j, row, nq8, SCT__Q, tail))
        default:
            break;
        }
    }
}

/* ---- AVX-512F: groups of 16 queries, 16 lanes -------------------------------------------- */

/*
 * Lane l of the result: the sum of a[l]'s 16 lanes, by a tree of full-width shuffles and
 * adds: each level adds pairs of vectors after two shuffles that line up their halves
 * (128-bit blocks, then floats), 30 shuffles and 15 adds in all, where halving each vector
 * and two AVX2 trees take 44 and 30 (the shuffles share a port with the FMAs). The tree
 * leaves sum(x[4 * e + k]) in lane 4 * k + e, so it is fed the vectors in that transposed
 * order (x[i] = a[4 * (i % 4) + i / 4]) and its lanes come out in order.
 */
static const int sct__sum16_order[16] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};

SCT__AVX512_INLINE __m512 sct__avx512_sum16(const __m512 a[16])
{
    __m512 s[8], w[4], y[2];

#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        __m512 x0 = a[sct__sum16_order[2 * j]], x1 = a[sct__sum16_order[2 * j + 1]];
        /* lanes 0-7: x0's halves added, lanes 8-15: x1's */
        s[j] = _mm512_add_ps(_mm512_shuffle_f32x4(x0, x1, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(x0, x1, _MM_SHUFFLE(3, 2, 3, 2)));
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) /* 128-bit block b: one vector's four partial sums */
        w[j] = _mm512_add_ps(_mm512_shuffle_f32x4(s[2 * j], s[2 * j + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(s[2 * j], s[2 * j + 1], _MM_SHUFFLE(3, 1, 3, 1)));
#pragma GCC unroll 2
    for (int j = 0; j < 2; j++) /* in each block: two vectors' two partial sums */
        y[j] = _mm512_add_ps(_mm512_shuffle_ps(w[2 * j], w[2 * j + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_ps(w[2 * j], w[2 * j + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_ps(_mm512_shuffle_ps(y[0], y[1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_ps(y[0], y[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

/* Row x against the Q (1..16) queries at q: lane i holds query i's score, lanes >= Q zero. */
SCT__AVX512_INLINE __m512 sct__avx512_dots(const float *x, const float *q, size_t dim, int Q,
                                           __mmask16 tail)
{
    __m512 acc[16];
    size_t t = 0;

#pragma GCC unroll 16
    for (int i = 0; i < 16; i++)
        acc[i] = _mm512_setzero_ps();
    for (; t + 16 <= dim; t += 16) {
        __m512 xv = _mm512_loadu_ps(x + t);
#pragma GCC unroll 16
        for (int i = 0; i < Q; i++)
            acc[i] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(q + (size_t)i * dim + t), acc[i]);
    }
    if (t < dim) {
        __m512 xv = _mm512_maskz_loadu_ps(tail, x + t);
#pragma GCC unroll 16
        for (int i = 0; i < Q; i++)
            acc[i] =
                _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(tail, q + (size_t)i * dim + t), acc[i]);
    }
    return sct__avx512_sum16(acc);
}

SCT__AVX512_INLINE void sct__avx512_group(const struct sct_ips_scan_job *j, size_t row, size_t qg,
                                          int Q, __mmask16 tail)
{
    __mmask16 lanes = (__mmask16)((1u << Q) - 1);
    __m512 s = sct__avx512_dots(j->rows + row * j->dim, j->q + qg * j->dim, j->dim, Q, tail);
    __m512 thr = _mm512_maskz_loadu_ps(lanes, j->thr + qg);
    unsigned m = (unsigned)_mm512_mask_cmp_ps_mask(lanes, s, thr, _CMP_GT_OQ);

    if (m) {
        float v[16];
        _mm512_storeu_ps(v, s);
        sct__offer(j, v, m, row, qg);
    }
}

/*
 * As sct__avx2_block(): 16 / QP rows against Q <= QP queries (QP 1, 2, 4 or 8), 16 lanes,
 * the rows read one after the other, each front to back (one sequential stream: read across
 * its rows, 32 bytes of each in turn, the AVX2 block ran at 0.73 of a plain scan at one
 * query on Zen 3; this block read 64 bytes of each in turn, not measured on an AVX-512
 * machine since). A row's sums are Q chains; the out-of-order core overlaps the next rows'.
 * QP 8 (5 to 8 queries) is two rows: 16 sums where one row would give 5 to 8, and one
 * reduction per two rows.
 */
SCT__AVX512_INLINE __m512 sct__avx512_block(const float *x, const float *q, size_t dim, int QP,
                                            int Q, __mmask16 tail)
{
    __m512 acc[16];

#pragma GCC unroll 16
    for (int l = 0; l < 16; l++)
        acc[l] = _mm512_setzero_ps();
    for (int b = 0; b < 16 / QP; b++) {
        const float *row = x + (size_t)b * dim;
        size_t t = 0;
        for (; t + 16 <= dim; t += 16) {
            __m512 xv = _mm512_loadu_ps(row + t);
#pragma GCC unroll 8
            for (int i = 0; i < Q; i++)
                acc[b * QP + i] =
                    _mm512_fmadd_ps(xv, _mm512_loadu_ps(q + (size_t)i * dim + t), acc[b * QP + i]);
        }
        if (t < dim) {
            __m512 xv = _mm512_maskz_loadu_ps(tail, row + t);
#pragma GCC unroll 8
            for (int i = 0; i < Q; i++)
                acc[b * QP + i] = _mm512_fmadd_ps(
                    xv, _mm512_maskz_loadu_ps(tail, q + (size_t)i * dim + t), acc[b * QP + i]);
        }
    }
    return sct__avx512_sum16(acc);
}

/* The block of 16 / QP rows from row against all Q (<= QP) queries: one compare, offers
 * (QP a power of two: lane & (QP - 1) is the lane's query). */
SCT__AVX512_INLINE void sct__avx512_rows(const struct sct_ips_scan_job *j, size_t row, int QP,
                                         int Q, __mmask16 tail)
{
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i query = _mm512_and_si512(lane, _mm512_set1_epi32(QP - 1)); /* lane % QP */
    __mmask16 used = _mm512_cmplt_epi32_mask(query, _mm512_set1_epi32(Q));
    __m512 s = sct__avx512_block(j->rows + row * j->dim, j->q, j->dim, QP, Q, tail);
    __m512 thr =
        _mm512_permutexvar_ps(query, _mm512_maskz_loadu_ps((__mmask16)((1u << Q) - 1), j->thr));
    unsigned m = (unsigned)_mm512_mask_cmp_ps_mask(used, s, thr, _CMP_GT_OQ);

    if (m) {
        float v[16];
        _mm512_storeu_ps(v, s);
        sct__offer_block(j, v, m, row, QP);
    }
}

/* Every row in blocks of 16 / QP against the nq (<= QP) queries; the last rows one by one. */
#define SCT__AVX512_BLOCKS(QP)                                                                     \
    do {                                                                                           \
        size_t rows_b = j->nrows / (16 / (QP)) * (16 / (QP)), row = 0;                             \
        for (; row < rows_b; row += 16 / (QP))                                                     \
            sct__avx512_rows(j, row, QP, SCT__Q, tail);                                            \
        for (; row < j->nrows; row++)                                                              \
            sct__avx512_group(j, row, 0, SCT__Q, tail);                                            \
    } while (0)

SCT__AVX512 void sct_ips_scan_avx512(const struct sct_ips_scan_job *j)
{
    __mmask16 tail = (__mmask16)((1u << (j->dim % 16)) - 1);
    size_t nq16 = j->nq / 16 * 16;

    switch (j->nq) { /* few queries: blocks of rows, Q and QP constants per instance */
        SCT__CASE(1, SCT__AVX512_BLOCKS(1))
        SCT__CASE(2, SCT__AVX512_BLOCKS(2))
        SCT__CASE(3, SCT__AVX512_BLOCKS(4))
        SCT__CASE(4, SCT__AVX512_BLOCKS(4))
        SCT__CASE(5, SCT__AVX512_BLOCKS(8))
        SCT__CASE(6, SCT__AVX512_BLOCKS(8))
        SCT__CASE(7, SCT__AVX512_BLOCKS(8))
        SCT__CASE(8, SCT__AVX512_BLOCKS(8))
    default:
        break;
    }
    if (j->nq <= 8)
        return;
    for (size_t row = 0; row < j->nrows; row++) {
        for (size_t qg = 0; qg < nq16; qg += 16)
            sct__avx512_group(j, row, qg, 16, tail);
        switch (j->nq % 16) { /* one instance per group size: Q stays a constant */
            SCT__CASES_1_7(sct__avx512_group(j, row, nq16, SCT__Q, tail))
            SCT__CASES_8_15(sct__avx512_group(j, row, nq16, SCT__Q, tail))
        default:
            break;
        }
    }
}

#endif /* SCT_IPS_SIMD_X86 */
