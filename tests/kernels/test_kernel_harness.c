/*
 * test_kernel_harness.c: the harness statistics (warm-up skipped, best/avg/min/max, MB/s
 * and GFLOP/s), its run order and hook, its argument checks, and the static split.
 *
 * The harness runs with an injected clock: every run() advances a fake time by a scripted
 * duration, so the statistics are checked exactly and without timing assumptions.
 */
#include <errno.h>
#include <math.h>

#include "harness.h"
#include "sc_test.h"

#define NKERNELS 2
#define ITERATIONS 4

/* What the fake kernels and the fake clock share. */
struct fake {
    double now;                            /* the fake clock, seconds */
    double duration[ITERATIONS][NKERNELS]; /* scripted run times */
    int runs;                              /* run() calls so far */
    int order[ITERATIONS * NKERNELS];      /* which kernel each run() call was */
    int hook_reps[ITERATIONS];             /* rep argument of each hook call */
    int hook_runs[ITERATIONS];             /* runs completed when the hook was called */
    int hooks;
};

static double fake_clock(void *ctx)
{
    return ((struct fake *)ctx)->now;
}

static void fake_run(struct fake *f, int kernel)
{
    int rep = f->runs / NKERNELS;

    f->order[f->runs++] = kernel;
    f->now += f->duration[rep][kernel];
}

static void fake_run_a(void *ctx)
{
    fake_run(ctx, 0);
}

static void fake_run_b(void *ctx)
{
    fake_run(ctx, 1);
}

static void fake_hook(int rep, void *ctx)
{
    struct fake *f = ctx;

    f->hook_reps[f->hooks] = rep;
    f->hook_runs[f->hooks] = f->runs;
    f->hooks++;
}

static const struct sct_kernel kernel_a = {"a", "A:", 16, 2, fake_run_a};
static const struct sct_kernel kernel_b = {"b", "B:", 24, 0, fake_run_b};

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static void test_statistics_skip_warmup(void)
{
    /* The warm-up (rep 0) is far slower and far faster than the rest in turn: if it
     * counted, max (kernel a) or min (kernel b) would show it. */
    struct fake f = {.now = 1000.0, .duration = {{100.0, 0.5}, {3.0, 4.0}, {1.0, 8.0}, {2.0, 6.0}}};
    const struct sct_kernel *const kernels[NKERNELS] = {&kernel_a, &kernel_b};
    struct sct_kernel_stats st[NKERNELS];
    struct sct_harness h = {
        .elements = 1000000, .iterations = ITERATIONS, .ctx = &f, .clock = fake_clock};

    SC_CHECK_INT_EQ(sct_harness_run(&h, kernels, NKERNELS, st), 0);
    SC_CHECK_INT_EQ(st[0].samples, ITERATIONS - 1);
    SC_CHECK_MSG(close_to(st[0].min_s, 1.0), "a min %g", st[0].min_s);
    SC_CHECK_MSG(close_to(st[0].avg_s, 2.0), "a avg %g", st[0].avg_s);
    SC_CHECK_MSG(close_to(st[0].max_s, 3.0), "a max %g", st[0].max_s);
    /* 1e-6 * 16 B * 1e6 elements / 1 s; 1e-9 * 2 flops * 1e6 / 1 s */
    SC_CHECK_MSG(close_to(st[0].best_rate_MBps, 16.0), "a rate %g", st[0].best_rate_MBps);
    SC_CHECK_MSG(close_to(st[0].best_gflops, 0.002), "a gflops %g", st[0].best_gflops);
    SC_CHECK_INT_EQ(st[1].samples, ITERATIONS - 1);
    SC_CHECK_MSG(close_to(st[1].min_s, 4.0), "b min %g", st[1].min_s);
    SC_CHECK_MSG(close_to(st[1].avg_s, 6.0), "b avg %g", st[1].avg_s);
    SC_CHECK_MSG(close_to(st[1].max_s, 8.0), "b max %g", st[1].max_s);
    SC_CHECK_MSG(close_to(st[1].best_rate_MBps, 6.0), "b rate %g", st[1].best_rate_MBps);
    SC_CHECK_INT_EQ(st[1].best_gflops, 0);
}

static void test_order_and_hook(void)
{
    struct fake f = {.now = 0.0};
    const struct sct_kernel *const kernels[NKERNELS] = {&kernel_a, &kernel_b};
    struct sct_kernel_stats st[NKERNELS];
    struct sct_harness h = {.elements = 10,
                            .iterations = ITERATIONS,
                            .ctx = &f,
                            .clock = fake_clock,
                            .after_repetition = fake_hook};

    for (int r = 0; r < ITERATIONS; r++)
        for (int k = 0; k < NKERNELS; k++)
            f.duration[r][k] = 1.0;
    SC_CHECK_INT_EQ(sct_harness_run(&h, kernels, NKERNELS, st), 0);
    /* STREAM's order: every kernel once per repetition, in list order. */
    SC_CHECK_INT_EQ(f.runs, ITERATIONS * NKERNELS);
    for (int i = 0; i < f.runs; i++)
        SC_CHECK_MSG(f.order[i] == i % NKERNELS, "run %d was kernel %d", i, f.order[i]);
    /* The hook follows each whole repetition. */
    SC_CHECK_INT_EQ(f.hooks, ITERATIONS);
    for (int r = 0; r < ITERATIONS; r++) {
        SC_CHECK_INT_EQ(f.hook_reps[r], r);
        SC_CHECK_INT_EQ(f.hook_runs[r], (r + 1) * NKERNELS);
    }
}

static void test_real_clock_runs(void)
{
    struct fake f = {.now = 0.0};
    const struct sct_kernel *const kernels[1] = {&kernel_a};
    struct sct_kernel_stats st[1];
    struct sct_harness h = {.elements = 10, .iterations = 3, .ctx = &f};
    double t0 = sct_clock_monotonic(NULL);

    SC_CHECK_INT_EQ(sct_harness_run(&h, kernels, 1, st), 0);
    SC_CHECK_INT_EQ(f.runs, 3);
    SC_CHECK(st[0].min_s >= 0 && st[0].min_s <= st[0].avg_s && st[0].avg_s <= st[0].max_s);
    SC_CHECK(sct_clock_monotonic(NULL) >= t0);
}

static void test_bad_arguments(void)
{
    struct fake f = {.now = 0.0};
    static const struct sct_kernel no_run = {"x", "X:", 8, 0, NULL};
    const struct sct_kernel *const good[1] = {&kernel_a};
    const struct sct_kernel *const bad[1] = {&no_run};
    struct sct_kernel_stats st[1];
    struct sct_harness h = {.elements = 10, .iterations = 1, .ctx = &f, .clock = fake_clock};

    SC_CHECK_INT_EQ(sct_harness_run(&h, good, 1, st), -EINVAL);
    h.iterations = 2;
    SC_CHECK_INT_EQ(sct_harness_run(&h, good, 0, st), -EINVAL);
    SC_CHECK_INT_EQ(sct_harness_run(&h, bad, 1, st), -EINVAL);
    SC_CHECK_INT_EQ(f.runs, 0);
}

static void test_static_chunk(void)
{
    static const struct {
        size_t n, granule;
        int nthreads;
    } cases[] = {
        {0, 512, 2},    {1, 512, 2},      {7, 512, 2},        {1000, 512, 2},
        {1024, 512, 2}, {100003, 512, 3}, {10000001, 512, 2}, {7, 1, 4},
        {5, 1, 8},      {100, 0, 3},      {4096, 512, 1},
    };

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        size_t n = cases[c].n, g = cases[c].granule ? cases[c].granule : 1;
        size_t prev_hi = 0, min_blocks = SIZE_MAX, max_blocks = 0;
        for (int t = 0; t < cases[c].nthreads; t++) {
            size_t lo, hi, blocks;
            sct_static_chunk(n, cases[c].granule, cases[c].nthreads, t, &lo, &hi);
            SC_CHECK_MSG(lo == prev_hi && lo <= hi && hi <= n,
                         "case %zu thread %d: [%zu, %zu) after %zu", c, t, lo, hi, prev_hi);
            SC_CHECK_MSG(lo % g == 0 || lo == n, "case %zu thread %d: lo %zu", c, t, lo);
            blocks = (hi - lo + g - 1) / g;
            min_blocks = blocks < min_blocks ? blocks : min_blocks;
            max_blocks = blocks > max_blocks ? blocks : max_blocks;
            prev_hi = hi;
        }
        SC_CHECK_MSG(prev_hi == n, "case %zu: covers [0, %zu) of %zu", c, prev_hi, n);
        SC_CHECK_MSG(max_blocks - min_blocks <= 1, "case %zu: unbalanced %zu..%zu", c, min_blocks,
                     max_blocks);
    }
}

int main(void)
{
    SC_TEST_RUN(test_statistics_skip_warmup);
    SC_TEST_RUN(test_order_and_hook);
    SC_TEST_RUN(test_real_clock_runs);
    SC_TEST_RUN(test_bad_arguments);
    SC_TEST_RUN(test_static_chunk);
    return SC_TEST_RESULT();
}
