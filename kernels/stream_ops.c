/*
 * stream_ops.c: the STREAM hot loops. Each loop is branch-free per element: the operation
 * and the store path are chosen once per chunk. Pointers are restrict-qualified so the
 * compiler need not fear aliasing; `omp simd` asks it to vectorise the plain loops even
 * at -O2.
 */
#include "stream_ops.h"

#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Plain stores: also the head and tail of the streaming paths. */
static void sct__plain(enum sct_stream_op op, double *restrict dst, const double *restrict x,
                       const double *restrict y, double s, size_t lo, size_t hi)
{
    switch (op) {
    case SCT_OP_COPY:
#pragma omp simd
        for (size_t i = lo; i < hi; i++)
            dst[i] = x[i];
        break;
    case SCT_OP_SCALE:
#pragma omp simd
        for (size_t i = lo; i < hi; i++)
            dst[i] = s * x[i];
        break;
    case SCT_OP_ADD:
#pragma omp simd
        for (size_t i = lo; i < hi; i++)
            dst[i] = x[i] + y[i];
        break;
    case SCT_OP_TRIAD:
#pragma omp simd
        for (size_t i = lo; i < hi; i++)
            dst[i] = x[i] + s * y[i];
        break;
    }
}

#if defined(__x86_64__)

/*
 * Split [lo, hi) into a plain head [lo, *mid_lo), a middle [*mid_lo, *mid_hi) whose every
 * store of `width` doubles starts at a multiple of width * 8 bytes (streaming stores
 * require it), and a plain tail [*mid_hi, hi).
 */
static void sct__nt_split(const double *dst, size_t lo, size_t hi, size_t width, size_t *mid_lo,
                          size_t *mid_hi)
{
    uintptr_t bytes = width * sizeof(double);
    uintptr_t mis = (uintptr_t)(dst + lo) % bytes;
    size_t head = mis ? (bytes - mis) / sizeof(double) : 0;

    /* Doubles are 8-byte aligned, so the head is a whole number of elements. */
    if (head > hi - lo)
        head = hi - lo;
    *mid_lo = lo + head;
    *mid_hi = *mid_lo + (hi - *mid_lo) / width * width;
}

__attribute__((target("avx512f"))) static void
sct__nt_avx512f(enum sct_stream_op op, double *restrict dst, const double *restrict x,
                const double *restrict y, double s, size_t lo, size_t hi)
{
    const __m512d vs = _mm512_set1_pd(s);
    size_t b, e;

    sct__nt_split(dst, lo, hi, 8, &b, &e);
    sct__plain(op, dst, x, y, s, lo, b);
    switch (op) {
    case SCT_OP_COPY:
        for (size_t i = b; i < e; i += 8)
            _mm512_stream_pd(dst + i, _mm512_loadu_pd(x + i));
        break;
    case SCT_OP_SCALE:
        for (size_t i = b; i < e; i += 8)
            _mm512_stream_pd(dst + i, _mm512_mul_pd(vs, _mm512_loadu_pd(x + i)));
        break;
    case SCT_OP_ADD:
        for (size_t i = b; i < e; i += 8)
            _mm512_stream_pd(dst + i,
                             _mm512_add_pd(_mm512_loadu_pd(x + i), _mm512_loadu_pd(y + i)));
        break;
    case SCT_OP_TRIAD:
        for (size_t i = b; i < e; i += 8)
            _mm512_stream_pd(dst + i, _mm512_add_pd(_mm512_loadu_pd(x + i),
                                                    _mm512_mul_pd(vs, _mm512_loadu_pd(y + i))));
        break;
    }
    sct__plain(op, dst, x, y, s, e, hi);
    _mm_sfence();
}

__attribute__((target("avx"))) static void sct__nt_avx(enum sct_stream_op op, double *restrict dst,
                                                       const double *restrict x,
                                                       const double *restrict y, double s,
                                                       size_t lo, size_t hi)
{
    const __m256d vs = _mm256_set1_pd(s);
    size_t b, e;

    sct__nt_split(dst, lo, hi, 4, &b, &e);
    sct__plain(op, dst, x, y, s, lo, b);
    switch (op) {
    case SCT_OP_COPY:
        for (size_t i = b; i < e; i += 4)
            _mm256_stream_pd(dst + i, _mm256_loadu_pd(x + i));
        break;
    case SCT_OP_SCALE:
        for (size_t i = b; i < e; i += 4)
            _mm256_stream_pd(dst + i, _mm256_mul_pd(vs, _mm256_loadu_pd(x + i)));
        break;
    case SCT_OP_ADD:
        for (size_t i = b; i < e; i += 4)
            _mm256_stream_pd(dst + i,
                             _mm256_add_pd(_mm256_loadu_pd(x + i), _mm256_loadu_pd(y + i)));
        break;
    case SCT_OP_TRIAD:
        for (size_t i = b; i < e; i += 4)
            _mm256_stream_pd(dst + i, _mm256_add_pd(_mm256_loadu_pd(x + i),
                                                    _mm256_mul_pd(vs, _mm256_loadu_pd(y + i))));
        break;
    }
    sct__plain(op, dst, x, y, s, e, hi);
    _mm_sfence();
}

/* SSE2 is part of the x86-64 baseline: no target attribute needed. */
static void sct__nt_sse2(enum sct_stream_op op, double *restrict dst, const double *restrict x,
                         const double *restrict y, double s, size_t lo, size_t hi)
{
    const __m128d vs = _mm_set1_pd(s);
    size_t b, e;

    sct__nt_split(dst, lo, hi, 2, &b, &e);
    sct__plain(op, dst, x, y, s, lo, b);
    switch (op) {
    case SCT_OP_COPY:
        for (size_t i = b; i < e; i += 2)
            _mm_stream_pd(dst + i, _mm_loadu_pd(x + i));
        break;
    case SCT_OP_SCALE:
        for (size_t i = b; i < e; i += 2)
            _mm_stream_pd(dst + i, _mm_mul_pd(vs, _mm_loadu_pd(x + i)));
        break;
    case SCT_OP_ADD:
        for (size_t i = b; i < e; i += 2)
            _mm_stream_pd(dst + i, _mm_add_pd(_mm_loadu_pd(x + i), _mm_loadu_pd(y + i)));
        break;
    case SCT_OP_TRIAD:
        for (size_t i = b; i < e; i += 2)
            _mm_stream_pd(dst + i,
                          _mm_add_pd(_mm_loadu_pd(x + i), _mm_mul_pd(vs, _mm_loadu_pd(y + i))));
        break;
    }
    sct__plain(op, dst, x, y, s, e, hi);
    _mm_sfence();
}

#endif /* __x86_64__ */

void sct_stream_range(enum sct_nt_isa stores, enum sct_stream_op op, double *restrict dst,
                      const double *restrict x, const double *restrict y, double s, size_t lo,
                      size_t hi)
{
    if (lo >= hi)
        return;
    switch (stores) {
#if defined(__x86_64__)
    case SCT_NT_AVX512F:
        sct__nt_avx512f(op, dst, x, y, s, lo, hi);
        return;
    case SCT_NT_AVX:
        sct__nt_avx(op, dst, x, y, s, lo, hi);
        return;
    case SCT_NT_SSE2:
        sct__nt_sse2(op, dst, x, y, s, lo, hi);
        return;
#endif
    default:
        sct__plain(op, dst, x, y, s, lo, hi);
        return;
    }
}
