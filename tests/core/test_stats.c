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

/* The Walsh averages of d (i <= j), sorted: the paired interval's candidates, by brute. */
static size_t sc__walsh_brute(const double *d, size_t n, double *w)
{
    size_t nw = 0;

    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[nw++] = (d[i] + d[j]) / 2;
    for (size_t i = 1; i < nw; i++) /* insertion sort: a few hundred values */
        for (size_t j = i; j > 0 && w[j] < w[j - 1]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    return nw;
}

/*
 * The signed-rank interval against the tables: k = qsignrank(0.025, n) in R (n = 6: 1;
 * 7: 3; 10: 9; 20: 53), the coverage 1 - 2 psignrank(k - 1, n) (1/64, 3/128, 25/1024,
 * 25397/2^20, counted by brute force over the sign patterns), the interval the k-th
 * smallest and largest Walsh average. With d = 0.01 x (1..7), R's wilcox.test(1:7,
 * conf.int = TRUE) gives the interval [2, 6] and the estimate 4 (x 0.01 here).
 */
static void test_paired_tables(void)
{
    static const struct {
        size_t n, k;
        double level;
    } rows[] = {{6, 1, 1 - 2.0 / 64},
                {7, 3, 1 - 6.0 / 128},
                {10, 9, 1 - 50.0 / 1024},
                {20, 53, 1 - 2 * 25397.0 / 1048576}};
    double a[20], b[20], d[20], w[210];
    sc_ratio r;

    for (size_t t = 0; t < sizeof(rows) / sizeof(rows[0]); t++) {
        size_t n = rows[t].n, nw;
        for (size_t i = 0; i < n; i++) {
            /* distinct log ratios, not in order, on drifting sides */
            d[i] = 0.01 * (double)((i * 7) % n + 1);
            a[i] = 100 * (1 + 0.03 * (double)i);
            b[i] = a[i] * exp(d[i]);
        }
        nw = sc__walsh_brute(d, n, w);
        SC_CHECK_INT_EQ(sc_stats_paired(a, b, n, &r), 0);
        SC_CHECK(r.ci && r.paired && r.n_a == n && r.n_b == n);
        SC_CHECK_STR_EQ(r.method, "exact Wilcoxon signed-rank");
        SC_CHECK_MSG(NEAR(r.ci_level, rows[t].level, 1e-12), "n %zu: level %.12g", n, r.ci_level);
        SC_CHECK_MSG(NEAR(r.ci_low, exp(w[rows[t].k - 1]), 1e-12) &&
                         NEAR(r.ci_high, exp(w[nw - rows[t].k]), 1e-12),
                     "n %zu: [%.12g, %.12g]", n, r.ci_low, r.ci_high);
    }
    double a7[7] = {1, 1, 1, 1, 1, 1, 1}, b7[7];
    for (size_t i = 0; i < 7; i++)
        b7[i] = exp(0.01 * (double)(i + 1));
    SC_CHECK_INT_EQ(sc_stats_paired(a7, b7, 7, &r), 0);
    SC_CHECK_NEAR(r.ratio, exp(0.04), 1e-12);
    SC_CHECK_NEAR(r.ci_low, exp(0.02), 1e-12);
    SC_CHECK_NEAR(r.ci_high, exp(0.06), 1e-12);
    /* 5 pairs: no interval; the estimate still the median of the Walsh averages */
    SC_CHECK_INT_EQ(sc_stats_paired(a7, b7, 5, &r), 0);
    SC_CHECK(!r.ci);
    SC_CHECK_NEAR(r.ratio, exp(0.03), 1e-12);
    b7[2] = 0;
    SC_CHECK_INT_EQ(sc_stats_paired(a7, b7, 7, &r), -EINVAL);
}

/* Above 49 pairs the normal approximation: k = floor(N/2 - 1.96 sqrt(n(n+1)(2n+1)/24));
   n = 60: N = 1830, sd = sqrt(60 * 61 * 121 / 24) = 135.84, k = floor(915 - 266.25) = 648. */
static void test_paired_normal(void)
{
    double a[60], b[60], d[60], w[1830];
    sc_ratio r;

    for (size_t i = 0; i < 60; i++) {
        d[i] = 0.001 * (double)((i * 37) % 60) - 0.02;
        a[i] = 50;
        b[i] = 50 * exp(d[i]);
    }
    size_t nw = sc__walsh_brute(d, 60, w);
    SC_CHECK_INT_EQ(sc_stats_paired(a, b, 60, &r), 0);
    SC_CHECK_STR_EQ(r.method, "signed-rank, normal approximation");
    SC_CHECK_NEAR(r.ci_level, 0.95, 1e-12);
    SC_CHECK_NEAR(r.ci_low, exp(w[647]), 1e-12);
    SC_CHECK_NEAR(r.ci_high, exp(w[nw - 648]), 1e-12);
}

/*
 * What pairing is for: both sides drift by 5% a run and B is 10% slower in every pair.
 * Paired, every log ratio is log 0.9: the interval is [0.9, 0.9], B slower. The same
 * samples as two separate sets mix the drift into the ratio: too noisy to tell.
 */
static void test_paired_drift(void)
{
    double a[8], b[8];
    sc_ratio paired, separate;

    for (size_t i = 0; i < 8; i++) {
        a[i] = 1000 * (1 + 0.05 * (double)i);
        b[i] = 0.9 * a[i];
    }
    SC_CHECK_INT_EQ(sc_stats_paired(a, b, 8, &paired), 0);
    SC_CHECK_NEAR(paired.ci_low, 0.9, 1e-12);
    SC_CHECK_NEAR(paired.ci_high, 0.9, 1e-12);
    SC_CHECK_INT_EQ(sc_stats_verdict(&paired, true, 5), SC_VERDICT_SLOWER);
    SC_CHECK_INT_EQ(sc_stats_ratio(a, 8, b, 8, &separate), 0);
    SC_CHECK_INT_EQ(sc_stats_verdict(&separate, true, 5), SC_VERDICT_NOISY);
}

/* A small deterministic generator for the property checks (not for anything else). */
static double sc__next(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/*
 * The p-values invert the intervals: over many samples (6 to 60 a side, paired and not,
 * exact and normal laws) and edges, a 95% interval lies wholly below an edge exactly when
 * the claim "below" has p < 0.025, and so on above; and a verdict is B faster or B slower
 * exactly when sc_stats_verdict_p() is below 0.05.
 */
static void test_shift_p_inverts(void)
{
    static const size_t sizes[] = {6, 7, 9, 12, 30, 55};
    unsigned long long state = 42;

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int trial = 0; trial < 20; trial++) {
            size_t n = sizes[s];
            double a[60], b[60], shift = 0.85 + 0.3 * sc__next(&state), below, above, p;
            for (size_t i = 0; i < n; i++) {
                a[i] = 100 * (1 + 0.1 * sc__next(&state));
                b[i] = a[i] * shift * (1 + 0.05 * sc__next(&state));
            }
            for (int paired = 0; paired < 2; paired++) {
                sc_ratio r;
                SC_CHECK_INT_EQ(
                    paired ? sc_stats_paired(a, b, n, &r) : sc_stats_ratio(a, n, b, n, &r), 0);
                for (int e = 80; e < 125; e++) {
                    double edge = e / 100.0;
                    SC_CHECK_INT_EQ(sc_stats_shift_p(a, n, b, n, paired, edge, &below, &above), 0);
                    SC_CHECK_MSG((r.ci_high < edge) == (below < 0.025),
                                 "n %zu paired %d edge %.2f: [%.4f, %.4f], p below %.4f", n, paired,
                                 edge, r.ci_low, r.ci_high, below);
                    SC_CHECK_MSG((r.ci_low > edge) == (above < 0.025),
                                 "n %zu paired %d edge %.2f: [%.4f, %.4f], p above %.4f", n, paired,
                                 edge, r.ci_low, r.ci_high, above);
                }
                for (int higher = 0; higher < 2; higher++) {
                    sc_verdict v = sc_stats_verdict(&r, higher, 5);
                    SC_CHECK_INT_EQ(sc_stats_verdict_p(a, n, b, n, paired, higher, 5, &p), 0);
                    SC_CHECK_MSG((v == SC_VERDICT_FASTER || v == SC_VERDICT_SLOWER) == (p < 0.05),
                                 "n %zu paired %d: %s with p %.4f", n, paired,
                                 sc_stats_verdict_name(v), p);
                }
            }
        }
}

/* Holm, as R's p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") gives it: 0.03 0.06 0.06 0.02
   (0.005 x 4, then max(0.02, 0.01 x 3), max(0.03, 0.03 x 2), max(0.06, 0.04 x 1)). At 0.05
   the first two claims hold; uncorrected all four would. */
static void test_holm(void)
{
    const double p[] = {0.01, 0.04, 0.03, 0.005}, want[] = {0.03, 0.06, 0.06, 0.02};
    const double big[] = {0.5, 0.9, 0.7}, big_want[] = {1, 1, 1};
    double adj[4];

    SC_CHECK_INT_EQ(sc_stats_holm(p, 4, adj), 0);
    for (size_t i = 0; i < 4; i++)
        SC_CHECK_MSG(NEAR(adj[i], want[i], 1e-12), "p[%zu]: %.12g", i, adj[i]);
    SC_CHECK_INT_EQ(sc_stats_holm(big, 3, adj), 0); /* capped at 1: 0.5 x 3 */
    for (size_t i = 0; i < 3; i++)
        SC_CHECK_MSG(NEAR(adj[i], big_want[i], 1e-12), "big[%zu]: %.12g", i, adj[i]);
    SC_CHECK_INT_EQ(sc_stats_holm(p, 1, adj), 0); /* one claim: unchanged */
    SC_CHECK_NEAR(adj[0], 0.01, 1e-12);
    SC_CHECK_INT_EQ(sc_stats_holm(p, 0, adj), -EINVAL);
}

/*
 * Spearman's rho with the run order. R's cor.test(1:6, c(1, 2, 3, 5, 4, 6), method =
 * "spearman"): rho 0.9428571, p 0.01667 (12 of the 720 orders reach it); a descending
 * series of 7: rho -1, p 2/5040; the 8 values below: rho 0.5238, p 7928/40320 (counted
 * by brute force over the orders). 12 runs: the normal approximation, z = rho sqrt(11).
 */
static void test_trend(void)
{
    const double up[] = {1, 2, 3, 5, 4, 6}, down[] = {10, 9, 8, 7, 6, 5, 4};
    const double mixed[] = {3, 1, 4, 1.5, 5, 9, 2, 6}, flat[] = {2, 2, 2, 2, 2, 2};
    double twelve[12];
    sc_trend t;

    SC_CHECK_INT_EQ(sc_stats_trend(up, 6, &t), 0);
    SC_CHECK(t.tested);
    SC_CHECK_NEAR(t.rho, 33.0 / 35, 1e-12);
    SC_CHECK_NEAR(t.p, 12.0 / 720, 1e-12);
    SC_CHECK_STR_EQ(t.method, "exact permutation");
    SC_CHECK_INT_EQ(sc_stats_trend(down, 7, &t), 0);
    SC_CHECK_NEAR(t.rho, -1, 1e-12);
    SC_CHECK_NEAR(t.p, 2.0 / 5040, 1e-12);
    SC_CHECK_INT_EQ(sc_stats_trend(mixed, 8, &t), 0);
    SC_CHECK_NEAR(t.rho, 0.5238095238095238, 1e-12);
    SC_CHECK_NEAR(t.p, 7928.0 / 40320, 1e-12);
    SC_CHECK_INT_EQ(sc_stats_trend(flat, 6, &t), 0);
    SC_CHECK(!t.tested && t.p == 1);
    SC_CHECK_INT_EQ(sc_stats_trend(up, 3, &t), 0); /* too few runs to show a trend */
    SC_CHECK(!t.tested);
    for (size_t i = 0; i < 12; i++)
        twelve[i] = (double)i;
    SC_CHECK_INT_EQ(sc_stats_trend(twelve, 12, &t), 0);
    SC_CHECK_STR_EQ(t.method, "normal approximation");
    SC_CHECK_NEAR(t.p, erfc(sqrt(11.0) / sqrt(2.0)), 1e-12);
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
    SC_TEST_RUN(test_paired_tables);
    SC_TEST_RUN(test_paired_normal);
    SC_TEST_RUN(test_paired_drift);
    SC_TEST_RUN(test_shift_p_inverts);
    SC_TEST_RUN(test_holm);
    SC_TEST_RUN(test_trend);
    return sc_test_failures ? 1 : 0;
}
