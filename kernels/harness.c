/*
 * harness.c: repetitions, warm-up skip, best/avg/min/max, bytes and flops model.
 */
#include "harness.h"

#include <errno.h>
#include <time.h>

double sct_clock_monotonic(void *ctx)
{
    struct timespec ts;

    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long sct_clock_granularity_us(double (*clock)(void *ctx), void *ctx)
{
    enum { SAMPLES = 20 };
    double t[SAMPLES];
    long best = 0;

    if (!clock)
        clock = sct_clock_monotonic;
    for (int i = 0; i < SAMPLES; i++) {
        double t0 = clock(ctx), t1;
        while ((t1 = clock(ctx)) - t0 < 1e-6)
            ;
        t[i] = t1;
    }
    for (int i = 1; i < SAMPLES; i++) {
        long d = (long)(1e6 * (t[i] - t[i - 1]));
        if (d > 0 && (best == 0 || d < best))
            best = d;
    }
    return best > 0 ? best : 1;
}

/* Fold one timed repetition into the running statistics; rep 0 is the warm-up. */
static void sct__stats_add(struct sct_kernel_stats *st, int rep, double t)
{
    if (rep == 0)
        return;
    if (st->samples == 0 || t < st->min_s)
        st->min_s = t;
    if (st->samples == 0 || t > st->max_s)
        st->max_s = t;
    st->avg_s += t; /* a sum until sct__stats_finish */
    st->samples++;
}

static void sct__stats_finish(struct sct_kernel_stats *st, const struct sct_kernel *k,
                              size_t elements)
{
    double bytes = k->bytes_per_element * (double)elements;
    double flops = k->flops_per_element * (double)elements;

    st->avg_s /= st->samples;
    st->best_rate_MBps = st->min_s > 0 ? 1e-6 * bytes / st->min_s : 0;
    st->best_gflops = st->min_s > 0 ? 1e-9 * flops / st->min_s : 0;
}

int sct_harness_run(const struct sct_harness *h, const struct sct_kernel *const kernels[],
                    size_t nkernels, struct sct_kernel_stats stats[])
{
    double (*clock)(void *) = h->clock ? h->clock : sct_clock_monotonic;

    if (h->iterations < 2 || nkernels == 0)
        return -EINVAL;
    for (size_t k = 0; k < nkernels; k++) {
        if (!kernels[k]->run)
            return -EINVAL;
        stats[k] = (struct sct_kernel_stats){0};
    }

    for (int rep = 0; rep < h->iterations; rep++) {
        for (size_t k = 0; k < nkernels; k++) {
            double t0 = clock(h->ctx);
            kernels[k]->run(h->ctx);
            double t = clock(h->ctx) - t0;
            sct__stats_add(&stats[k], rep, t);
            if (h->rep_seconds)
                h->rep_seconds[(size_t)rep * nkernels + k] = t;
        }
        if (h->after_repetition)
            h->after_repetition(rep, h->ctx);
    }

    for (size_t k = 0; k < nkernels; k++)
        sct__stats_finish(&stats[k], kernels[k], h->elements);
    return 0;
}

void sct_static_chunk(size_t n, size_t granule, int nthreads, int tid, size_t *lo, size_t *hi)
{
    size_t g = granule ? granule : 1;
    size_t blocks = n / g + (n % g != 0);
    size_t t = (size_t)tid, nt = nthreads > 0 ? (size_t)nthreads : 1;
    size_t q = blocks / nt, r = blocks % nt;
    /* Threads below r take q + 1 blocks, the others q: the usual static split. */
    size_t first = t * q + (t < r ? t : r);
    size_t count = q + (t < r);

    *lo = first * g < n ? first * g : n;
    *hi = (first + count) * g < n ? (first + count) * g : n;
}
