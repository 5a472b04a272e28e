/*
 * test_stats: the statistics of repeated runs against answers known independently: worked
 * by hand from the formulas, or what R gives (the calls are in the comments), or a brute
 * force count in this file.
 */
#include "sc_stats.h"
#include "sc_test.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))
#define SC_CHECK_NEAR(a, b, tol)                                                                   \
    SC_CHECK_MSG(NEAR(a, b, tol), "%s == %s: %.12g != %.12g", #a, #b, (double)(a), (double)(b))

struct median_case {
    const char *name;
    double x[32];
    size_t n;
    double median, cv_pct;
    bool ci;
    size_t rank_low, rank_high;
    double low, high, level;
};

/*
 * The ranks: the largest l with 1 - 2 P(X <= l-1) >= 0.95, X ~ binomial(n, 1/2); in R
 * 1 - 2 * pbinom(l - 1, n, 0.5). n = 6: 1 - 2/64 = 0.96875; n = 9: l = 2, 1 - 2 * 10/512;
 * n = 12: l = 3, 1 - 2 * 79/4096; n = 30: l = 10, pbinom(9, 30, 0.5) = 22964087 / 2^30.
 */
static const struct median_case median_cases[] = {
    /* sd = sqrt(17.5 / 5): cv = 100 * sqrt(3.5) / 3.5 */
    {"6 runs: the extremes", {5, 1, 4, 2, 3, 6}, 6, 3.5, 53.452248382, true, 1, 6, 1, 6, 0.96875},
    {"5 runs: no interval", {5, 1, 4, 2, 3}, 5, 3, 52.704627669, false, 0, 0, 0, 0, 0},
    {"9 runs", {9, 8, 7, 6, 5, 4, 3, 2, 1}, 9, 5, 54.772255751, true, 2, 8, 2, 8, 1 - 20.0 / 512},
    {"12 runs",
     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
     12,
     6.5,
     55.47001962,
     true,
     3,
     10,
     3,
     10,
     1 - 158.0 / 4096},
    {"30 runs",
     {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30},
     30,
     15.5,
     56.79618,
     true,
     10,
     21,
     10,
     21,
     1 - 2 * 22964087.0 / 1073741824.0},
    {"one run", {42}, 1, 42, 0, false, 0, 0, 0, 0, 0},
};

static void test_describe(void)
{
    for (size_t i = 0; i < sizeof(median_cases) / sizeof(median_cases[0]); i++) {
        const struct median_case *c = &median_cases[i];
        sc_stats s;
        SC_CHECK_INT_EQ(sc_stats_describe(c->x, c->n, &s), 0);
        SC_CHECK_MSG(NEAR(s.median, c->median, 1e-12), "%s: median %g", c->name, s.median);
        SC_CHECK_MSG(NEAR(s.cv_pct, c->cv_pct, 1e-3), "%s: cv %.9g", c->name, s.cv_pct);
        SC_CHECK_MSG(s.ci == c->ci, "%s: ci %d", c->name, s.ci);
        if (!c->ci) {
            SC_CHECK(sc_stats_ci_pct(&s) < 0);
            continue;
        }
        SC_CHECK_MSG(s.ci_rank_low == c->rank_low && s.ci_rank_high == c->rank_high,
                     "%s: ranks %zu %zu", c->name, s.ci_rank_low, s.ci_rank_high);
        SC_CHECK_MSG(s.ci_low == c->low && s.ci_high == c->high, "%s: [%g, %g]", c->name, s.ci_low,
                     s.ci_high);
        SC_CHECK_MSG(NEAR(s.ci_level, c->level, 1e-12), "%s: level %.12g", c->name, s.ci_level);
    }
}

static void test_describe_spread(void)
{
    /* mean 5, sample sd sqrt(32/7): cv 42.76% */
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    sc_stats s;

    SC_CHECK_INT_EQ(sc_stats_describe(x, 8, &s), 0);
    SC_CHECK_NEAR(s.mean, 5, 1e-12);
    SC_CHECK_NEAR(s.cv_pct, 100 * sqrt(32.0 / 7) / 5, 1e-9);
    SC_CHECK(s.min == 2 && s.max == 9 && s.median == 4.5);
    /* 8 runs: still the extremes (l = 2 would cover only 1 - 2 * 9/256 = 0.93) */
    SC_CHECK(s.ci && s.ci_low == 2 && s.ci_high == 9);
    SC_CHECK_NEAR(sc_stats_ci_pct(&s), 100 * 3.5 / 4.5, 1e-9);
}

static void test_describe_refuses(void)
{
    const double bad[] = {1, NAN, 3};
    sc_stats s;

    SC_CHECK_INT_EQ(sc_stats_describe(bad, 0, &s), -EINVAL);
    SC_CHECK_INT_EQ(sc_stats_describe(bad, 3, &s), -EINVAL);
}

/*
 * a_i = e^i, b_j = e^(j + 1/2), i, j = 0..5: the 36 differences log b - log a are
 * (j - i) + 1/2, symmetric around 1/2, so the estimate is e^(1/2). R:
 *   wilcox.test(log(b), log(a), conf.int = TRUE)  ->  estimate 0.5, interval [-2.5, 3.5]
 * qwilcox(0.025, 6, 6) = 6 (P(U <= 5) = 19/924 < 0.025 <= P(U <= 6) = 30/924): the interval
 * is [d(6), d(31)]; d(6) = -3 + 1/2 (one -5, two -4, three -3), d(31) = 3 + 1/2, and its
 * coverage 1 - 2 * 19/924.
 */
static void test_ratio_exact(void)
{
    double a[6], b[6];
    sc_ratio r;

    for (int i = 0; i < 6; i++) {
        a[i] = exp(i);
        b[i] = exp(i + 0.5);
    }
    SC_CHECK_INT_EQ(sc_stats_ratio(a, 6, b, 6, &r), 0);
    SC_CHECK_NEAR(log(r.ratio), 0.5, 1e-12);
    SC_CHECK(r.ci);
    SC_CHECK_NEAR(log(r.ci_low), -2.5, 1e-12);
    SC_CHECK_NEAR(log(r.ci_high), 3.5, 1e-12);
    SC_CHECK_NEAR(r.ci_level, 1 - 38.0 / 924, 1e-12);
    SC_CHECK_STR_EQ(r.method, "exact Mann-Whitney");
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 5), SC_VERDICT_NOISY);
}

/*
 * b = 1.1 a, a = 100..105: the differences are log 1.1 + log(a_j / a_i), symmetric around
 * log 1.1, so the ratio is 1.1; the 6th smallest log(a_j / a_i) is log(102/105) (after
 * 100/105, 100/104, 101/105, 100/103, 101/104), so the interval is
 * [1.1 * 102/105, 1.1 * 105/102].
 */
static void test_ratio_shift(void)
{
    double a[6], b[6];
    sc_ratio r;
    double p, low, high;

    for (int i = 0; i < 6; i++) {
        a[i] = 100 + i;
        b[i] = 1.1 * a[i];
    }
    SC_CHECK_INT_EQ(sc_stats_ratio(a, 6, b, 6, &r), 0);
    SC_CHECK_NEAR(r.ratio, 1.1, 1e-12);
    SC_CHECK_NEAR(r.ci_low, 1.1 * 102 / 105, 1e-12);
    SC_CHECK_NEAR(r.ci_high, 1.1 * 105 / 102, 1e-12);
    /* A rate: B is faster. A time: the same numbers mean B is slower. */
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 5), SC_VERDICT_FASTER);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, false, 5), SC_VERDICT_SLOWER);
    sc_stats_performance(&r, false, &p, &low, &high);
    SC_CHECK_NEAR(p, 1 / 1.1, 1e-12);
    SC_CHECK_NEAR(low, 102 / (1.1 * 105), 1e-12);
    SC_CHECK_NEAR(high, 105 / (1.1 * 102), 1e-12);
}

/* The same runs on both sides: ratio 1, interval [102/105, 105/102], within 5% not 2%. */
static void test_ratio_same(void)
{
    const double a[] = {100, 101, 102, 103, 104, 105};
    sc_ratio r;

    SC_CHECK_INT_EQ(sc_stats_ratio(a, 6, a, 6, &r), 0);
    SC_CHECK_NEAR(r.ratio, 1, 1e-12);
    SC_CHECK_NEAR(r.ci_low, 102.0 / 105, 1e-12);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 5), SC_VERDICT_SAME);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 2), SC_VERDICT_NOISY);
    SC_CHECK_STR_EQ(sc_stats_verdict_name(SC_VERDICT_SAME), "no detectable difference");
}

/*
 * A 2% shift of tight runs: a = 1000..1005, b = 1.02 a; interval [1.02 * 1002/1005,
 * 1.02 * 1005/1002] = [1.01696, 1.02305]: it excludes 1 but lies within a 5% noise bound (no
 * detectable difference), wholly beyond 1% (B faster), and across the edge of a 2% bound:
 * a shift that may be drift is too noisy to tell, never B faster.
 */
static void test_ratio_within_bound(void)
{
    double a[6], b[6];
    sc_ratio r;

    for (int i = 0; i < 6; i++) {
        a[i] = 1000 + i;
        b[i] = 1.02 * a[i];
    }
    SC_CHECK_INT_EQ(sc_stats_ratio(a, 6, b, 6, &r), 0);
    SC_CHECK_NEAR(r.ci_low, 1.02 * 1002 / 1005, 1e-12);
    SC_CHECK_NEAR(r.ci_high, 1.02 * 1005 / 1002, 1e-12);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 5), SC_VERDICT_SAME);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 1), SC_VERDICT_FASTER);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, false, 1), SC_VERDICT_SLOWER);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 2), SC_VERDICT_NOISY);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, false, 2), SC_VERDICT_NOISY);
}

/*
 * 60 runs a side, a_i = b_i = e^i: the normal approximation. k = floor(1800 - 1.959964 *
 * sqrt(3600 * 121 / 12)) = floor(1800 - 373.42) = 1426. The differences are the integers
 * -59..59, d appearing 60 - |d| times; (60-t)(61-t)/2 of them are <= -t, first >= 1426 at
 * t = 7 (53 * 54 / 2 = 1431): d(1426) = -7 and, by symmetry, d(3600 - 1426 + 1) = 7.
 */
static void test_ratio_normal(void)
{
    double a[60];
    sc_ratio r;

    for (int i = 0; i < 60; i++)
        a[i] = exp(i);
    SC_CHECK_INT_EQ(sc_stats_ratio(a, 60, a, 60, &r), 0);
    SC_CHECK_STR_EQ(r.method, "normal approximation");
    SC_CHECK_NEAR(r.ratio, 1, 1e-12);
    SC_CHECK_NEAR(log(r.ci_low), -7, 1e-9);
    SC_CHECK_NEAR(log(r.ci_high), 7, 1e-9);
}

/* Fewer than 6 runs a side: the estimate, but no interval: unconfirmed. */
static void test_ratio_unconfirmed(void)
{
    const double a[] = {1, 2, 3, 4, 5}, b[] = {2, 4, 6, 8, 10, 12};
    sc_ratio r;

    SC_CHECK_INT_EQ(sc_stats_ratio(a, 5, b, 6, &r), 0);
    SC_CHECK(!r.ci);
    SC_CHECK_INT_EQ(sc_stats_verdict(&r, true, 5), SC_VERDICT_UNCONFIRMED);
    SC_CHECK_INT_EQ(sc_stats_runs_to_decide(&r, true, 0.95), 0);
    SC_CHECK_INT_EQ(sc_stats_ratio(a, 5, b, 5, &r), 0);
    SC_CHECK_NEAR(r.ratio, 2, 1e-12); /* every log(b_j / a_i) = log 2 + log(a_j / a_i) */
    const double zero[] = {0, 1, 2, 3, 4, 5};
    SC_CHECK_INT_EQ(sc_stats_ratio(zero, 6, b, 6, &r), -EINVAL);
}

/* U of one split of the pooled ranks 0..m+n-1: pairs (a, b) with b below a. */
static unsigned sc__brute_u(unsigned mask, unsigned m_plus_n)
{
    unsigned u = 0, below = 0;

    for (unsigned i = 0; i < m_plus_n; i++) {
        if (mask & (1u << i))
            u += below; /* an a: every b before it */
        else
            below++;
    }
    return u;
}

/*
 * The exact law against a brute-force count over every split of 6 + 8 pooled values
 * (3003 of them): the coverage of the interval must be 1 - 2 P(U <= k-1) for the k that
 * R's qwilcox(0.025, 6, 8) gives.
 */
static void test_exact_law(void)
{
    unsigned m = 6, n = 8, counts[49] = {0}, total = 0;
    double a[6], b[8];
    sc_ratio r;

    for (unsigned mask = 0; mask < (1u << (m + n)); mask++) {
        if ((unsigned)__builtin_popcount(mask) != m)
            continue;
        counts[sc__brute_u(mask, m + n)]++;
        total++;
    }
    SC_CHECK_INT_EQ(total, 3003);
    unsigned cum = 0, k = 0;
    while (k <= m * n && (cum + counts[k]) * 40 < total) /* P(U <= k) < 0.025 */
        cum += counts[k++];
    /* k = qwilcox(0.025, 6, 8); the coverage needs P(U <= k-1) = cum / total */
    for (unsigned i = 0; i < m; i++)
        a[i] = i + 1;
    for (unsigned j = 0; j < n; j++)
        b[j] = 2 * (j + 1);
    SC_CHECK_INT_EQ(sc_stats_ratio(a, m, b, n, &r), 0);
    SC_CHECK_NEAR(r.ci_level, 1 - 2.0 * cum / total, 1e-12);
}

static void test_runs_to_decide(void)
{
    /* performance 0.96 in [0.92, 1.00] against a limit of 0.95: the interval must shrink
       from 0.04 below the estimate to under 0.01: (0.04 / 0.01)^2 = 16 times the runs */
    sc_ratio r = {.n_a = 6, .n_b = 6, .ratio = 0.96, .ci = true, .ci_low = 0.92, .ci_high = 1.0};

    SC_CHECK_INT_EQ(sc_stats_runs_to_decide(&r, true, 0.95), 96);
    r.ci_low = 0.955; /* the interval already lies above the limit */
    SC_CHECK_INT_EQ(sc_stats_runs_to_decide(&r, true, 0.95), 0);
}

int main(void)
{
    SC_TEST_RUN(test_describe);
    SC_TEST_RUN(test_describe_spread);
    SC_TEST_RUN(test_describe_refuses);
    SC_TEST_RUN(test_ratio_exact);
    SC_TEST_RUN(test_ratio_shift);
    SC_TEST_RUN(test_ratio_same);
    SC_TEST_RUN(test_ratio_within_bound);
    SC_TEST_RUN(test_ratio_normal);
    SC_TEST_RUN(test_ratio_unconfirmed);
    SC_TEST_RUN(test_exact_law);
    SC_TEST_RUN(test_runs_to_decide);
    return sc_test_failures ? 1 : 0;
}
