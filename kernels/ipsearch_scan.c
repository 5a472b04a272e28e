/*
 * ipsearch_scan.c: the scan's portable variant, the variant table and the range search every
 * variant shares (see ipsearch_scan.h).
 */
#include "ipsearch_scan.h"

#include <math.h>

/*
 * The portable variant: each row against every query, four partial sums per dot product
 * (independent chains the compiler may keep in vector registers).
 */
static void sct__scan_scalar(const struct sct_ips_scan_job *j)
{
    for (size_t r = 0; r < j->nrows; r++) {
        const float *x = j->rows + r * j->dim;
        for (size_t i = 0; i < j->nq; i++) {
            const float *q = j->q + i * j->dim;
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            size_t t = 0;
            for (; t + 4 <= j->dim; t += 4) {
                s0 += x[t] * q[t];
                s1 += x[t + 1] * q[t + 1];
                s2 += x[t + 2] * q[t + 2];
                s3 += x[t + 3] * q[t + 3];
            }
            for (; t < j->dim; t++)
                s0 += x[t] * q[t];
            float s = (s0 + s1) + (s2 + s3);
            if (s > j->thr[i]) {
                sct_ips_heap_replace_top(j->hs + i * j->k, j->hi + i * j->k, j->k, s,
                                         j->base + (int64_t)r);
                j->thr[i] = j->hs[i * j->k];
            }
        }
    }
}

sct_ips_scan_fn sct_ips_scan_variant(enum sct_ips_simd v)
{
    switch (v) {
    case SCT_IPS_SIMD_SCALAR:
        return sct__scan_scalar;
#if SCT_IPS_SIMD_X86
    case SCT_IPS_SIMD_AVX2:
        return sct_ips_scan_avx2;
    case SCT_IPS_SIMD_AVX512:
        return sct_ips_scan_avx512;
#endif
    default:
        return NULL;
    }
}

void sct_ips_scan_range(const struct sct_ips_data *d, size_t q0, size_t q1, size_t d0, size_t d1,
                        struct sct_ips_workspace *w, enum sct_ips_simd v)
{
    sct_ips_scan_fn fn = sct_ips_scan_variant(v);
    struct sct_ips_scan_job job = {
        .q = d->q + q0 * d->dim,
        .rows = d->db + d0 * d->dim,
        .nq = q1 - q0,
        .nrows = d1 - d0,
        .dim = d->dim,
        .k = w->k,
        .base = (int64_t)d0,
        .hs = w->heap_s,
        .thr = w->thr,
        .hi = w->heap_id,
    };

    sct_ips_heaps_reset(w, job.nq);
    for (size_t i = 0; i < job.nq; i++)
        w->thr[i] = -INFINITY;
    if (d1 > d0)
        (fn ? fn : sct__scan_scalar)(&job);
}
