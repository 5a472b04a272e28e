/*
 * stats.c: medians, their intervals and ratios of repeated runs (see sc_stats.h and
 * doc/contracts/analysis.md, "Statistics of runs").
 */
#include "sc_stats.h"
#include "sc_stats_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sc__stats_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

bool sc__stats_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || x[i] <= 0)
            return false;
    return true;
}

double sc__stats_phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

/* A sorted copy of x (malloc'd), or NULL; *bad set when a value is not finite. */
static double *sc__sorted(const double *x, size_t n, bool *bad)
{
    double *s = malloc(n * sizeof(*s));

    *bad = false;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        s[i] = x[i];
        *bad |= !isfinite(x[i]);
    }
    qsort(s, n, sizeof(*s), sc__stats_cmp_double);
    return s;
}

double sc__stats_median_sorted(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * The interval of the median from order statistics: x(l) <= median <= x(n-l+1) holds with
 * probability 1 - 2 P(X <= l-1), X binomial(n, 1/2), whatever the distribution. The largest
 * l whose coverage is still at least 95% gives the narrowest such interval. The law is walked
 * once, term by term (log P(X = i) from log P(X = i-1) by the ratio (n-i+1)/i, in log space
 * so that 2^-n does not underflow): O(n) for the whole interval, not a sum per candidate l.
 */
static void sc__median_ci(const double *s, size_t n, sc_stats *out)
{
    size_t best = 0;
    double level = 0, cdf = 0, log_p = -(double)n * log(2.0); /* log P(X = 0) */

    for (size_t l = 1; l <= n / 2; l++) {
        if (l > 1) /* P(X = l-1) from P(X = l-2) */
            log_p += log((double)(n - l + 2)) - log((double)(l - 1));
        cdf += exp(log_p); /* P(X <= l-1) */
        double cover = 1 - 2 * cdf;
        if (cover < SC_STATS_LEVEL)
            break;
        best = l;
        level = cover;
    }
    if (n < SC_STATS_MIN_RUNS || !best)
        return;
    out->ci = true;
    out->ci_rank_low = best;
    out->ci_rank_high = n - best + 1;
    out->ci_low = s[best - 1];
    out->ci_high = s[n - best];
    out->ci_level = level;
}

int sc_stats_describe(const double *x, size_t n, sc_stats *out)
{
    bool bad;
    double *s;

    memset(out, 0, sizeof(*out));
    if (!n)
        return -EINVAL;
    s = sc__sorted(x, n, &bad);
    if (!s)
        return -ENOMEM;
    if (bad) {
        free(s);
        return -EINVAL;
    }
    out->n = n;
    out->min = s[0];
    out->max = s[n - 1];
    out->median = sc__stats_median_sorted(s, n);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    out->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (s[i] - out->mean) * (s[i] - out->mean);
    if (n > 1 && out->mean != 0)
        out->cv_pct = 100 * sqrt(sq / (double)(n - 1)) / fabs(out->mean);
    sc__median_ci(s, n, out);
    free(s);
    return 0;
}

double sc_stats_ci_pct(const sc_stats *s)
{
    if (!s->ci || s->median == 0)
        return -1;
    return 100 * (s->ci_high - s->ci_low) / 2 / fabs(s->median);
}

/*
 * The law of the Mann-Whitney statistic U for samples of m and n without ties: c[u] is the
 * number of the C(m+n, m) orders of the pooled sample with U = u, the coefficients of the
 * Gaussian binomial [m+n choose m](q) = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Each step
 * multiplies by (1 - q^(n+i)) and divides by (1 - q^i) (a running sum with stride i); the
 * division is exact because every partial product is itself a Gaussian binomial. The low
 * coefficients, the tail an interval needs, never pass through a cancellation. malloc'd;
 * c[0..m*n] is the law.
 */
static double *sc__mann_whitney_counts(size_t m, size_t n)
{
    /* Before its division the product reaches degree m*n + m. */
    double *c = calloc(m * n + m + 1, sizeof(*c));

    if (!c)
        return NULL;
    c[0] = 1;
    size_t deg = 0;
    for (size_t i = 1; i <= m; i++) {
        size_t up = n + i;
        for (size_t u = deg + up; u >= up; u--) /* times (1 - q^up) */
            c[u] -= c[u - up];
        deg += up;
        for (size_t u = i; u <= deg; u++) /* divided by (1 - q^i) */
            c[u] += c[u - i];
        deg -= i;
    }
    return c;
}

/*
 * The exact interval's rank k (1-based): the smallest q with P(U <= q) >= 0.025 (R's
 * qwilcox(0.025, m, n)), at least 1; the interval is [d(k), d(mn-k+1)] with coverage
 * 1 - 2 P(U <= k-1). Returns 0 or -ENOMEM.
 */
static int sc__exact_rank(size_t m, size_t n, size_t *k, double *level)
{
    double *c = sc__mann_whitney_counts(m, n), total = 0, cdf = 0;
    double alpha = (1 - SC_STATS_LEVEL) / 2;
    size_t q = 0;

    if (!c)
        return -ENOMEM;
    for (size_t u = 0; u <= m * n; u++) /* C(m+n, m), as the counts give it */
        total += c[u];
    for (q = 0; q < m * n; q++) {
        cdf += c[q] / total;
        if (cdf >= alpha * (1 - 1e-12))
            break;
    }
    *k = q ? q : 1;
    cdf = 0;
    for (size_t u = 0; u < *k; u++) /* P(U <= k-1) */
        cdf += c[u] / total;
    free(c);
    *level = 1 - 2 * cdf;
    return 0;
}

/* The normal approximation of the rank (Hollander and Wolfe): floor(mn/2 - z sd), >= 1. */
static size_t sc__normal_rank(size_t m, size_t n)
{
    double mn = (double)m * (double)n;
    double k = floor(mn / 2 - SC__Z975 * sqrt(mn * (double)(m + n + 1) / 12));

    return k < 1 ? 1 : (size_t)k;
}

int sc_stats_ratio(const double *a, size_t n_a, const double *b, size_t n_b, sc_ratio *out)
{
    size_t nd = n_a * n_b;
    double *d;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (!n_a || !n_b || !sc__stats_positive(a, n_a) || !sc__stats_positive(b, n_b))
        return -EINVAL;
    d = malloc(nd * sizeof(*d));
    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < n_a; i++)
        for (size_t j = 0; j < n_b; j++)
            d[i * n_b + j] = log(b[j]) - log(a[i]);
    qsort(d, nd, sizeof(*d), sc__stats_cmp_double);
    out->n_a = n_a;
    out->n_b = n_b;
    out->ratio = exp(sc__stats_median_sorted(d, nd));
    if (n_a >= SC_STATS_MIN_RUNS && n_b >= SC_STATS_MIN_RUNS) {
        size_t k;
        if (n_a < SC_STATS_EXACT_BELOW && n_b < SC_STATS_EXACT_BELOW) {
            rc = sc__exact_rank(n_a, n_b, &k, &out->ci_level);
            out->method = "exact Mann-Whitney";
        } else {
            k = sc__normal_rank(n_a, n_b);
            out->ci_level = SC_STATS_LEVEL;
            out->method = "normal approximation";
        }
        if (rc == 0) {
            out->ci = true;
            out->ci_low = exp(d[k - 1]);
            out->ci_high = exp(d[nd - k]);
        }
    }
    free(d);
    return rc;
}

/* P(U <= u) of the Mann-Whitney law of m and n: exact below SC_STATS_EXACT_BELOW a side,
   else normal with a continuity correction. 0 or -ENOMEM. */
static int sc__mw_cdf(size_t m, size_t n, double u, double *p)
{
    double mn = (double)m * (double)n;

    if (m >= SC_STATS_EXACT_BELOW || n >= SC_STATS_EXACT_BELOW) {
        *p = sc__stats_phi((u + 0.5 - mn / 2) / sqrt(mn * (double)(m + n + 1) / 12));
        return 0;
    }
    double *c = sc__mann_whitney_counts(m, n), total = 0, cdf = 0;
    if (!c)
        return -ENOMEM;
    for (size_t q = 0; q <= m * n; q++) {
        total += c[q];
        if ((double)q <= u)
            cdf += c[q];
    }
    free(c);
    *p = cdf / total;
    return 0;
}

int sc__stats_mw_shift_p(const double *a, size_t m, const double *b, size_t n, double edge,
                         double *p_below, double *p_above)
{
    double c = log(edge), at_or_above = 0, at_or_below = 0;
    int rc;

    /* The interval's upper end d(mn-k+1) lies below c exactly when fewer than k of the
       differences reach c: P(U <= that count) is the claim's p-value. */
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double d = log(b[j]) - log(a[i]);
            at_or_above += d >= c;
            at_or_below += d <= c;
        }
    rc = sc__mw_cdf(m, n, at_or_above, p_below);
    if (rc == 0)
        rc = sc__mw_cdf(m, n, at_or_below, p_above);
    return rc;
}

void sc_stats_performance(const sc_ratio *r, bool higher_is_better, double *p, double *low,
                          double *high)
{
    if (higher_is_better) {
        *p = r->ratio;
        *low = r->ci_low;
        *high = r->ci_high;
    } else {
        *p = 1 / r->ratio;
        *low = r->ci_high > 0 ? 1 / r->ci_high : 0;
        *high = r->ci_low > 0 ? 1 / r->ci_low : 0;
    }
}

sc_verdict sc_stats_verdict(const sc_ratio *r, bool higher_is_better, double bound_pct)
{
    double p, low, high, bound = bound_pct / 100;

    if (!r->ci)
        return SC_VERDICT_UNCONFIRMED;
    sc_stats_performance(r, higher_is_better, &p, &low, &high);
    /* The noise bound is the band of shifts a host shows between two series of one card.
       Within it: no detectable difference, even when the interval excludes 1 (a host that
       drifts by 1% between two series is not a result). An effect needs the whole interval
       beyond it: an interval that excludes 1 but reaches into the band may be drift (two
       series on a loaded host: [1.014, 5.0]), and is too noisy to tell. */
    if (low >= 1 - bound && high <= 1 + bound)
        return SC_VERDICT_SAME;
    if (low > 1 + bound)
        return SC_VERDICT_FASTER;
    if (high < 1 - bound)
        return SC_VERDICT_SLOWER;
    return SC_VERDICT_NOISY;
}

const char *sc_stats_verdict_name(sc_verdict v)
{
    switch (v) {
    case SC_VERDICT_FASTER:
        return "B faster";
    case SC_VERDICT_SLOWER:
        return "B slower";
    case SC_VERDICT_SAME:
        return "no detectable difference";
    case SC_VERDICT_NOISY:
        return "too noisy to tell";
    case SC_VERDICT_CONTAMINATED:
        return "contaminated";
    case SC_VERDICT_DRIFTING:
        return "drifting host: use --against";
    default:
        return "unconfirmed";
    }
}

size_t sc_stats_runs_to_decide(const sc_ratio *r, bool higher_is_better, double limit)
{
    double p, low, high;

    if (!r->ci)
        return 0;
    sc_stats_performance(r, higher_is_better, &p, &low, &high);
    if (low >= limit || high < limit)
        return 0;
    double gap = fabs(p - limit), reach = p >= limit ? p - low : high - p;
    if (gap < 1e-9 * limit || reach <= 0)
        return 0;
    double now = (double)(r->n_a > r->n_b ? r->n_a : r->n_b);
    double need = ceil(now * (reach / gap) * (reach / gap));
    return need > 1e6 ? 1000000 : (size_t)need;
}
