/*
 * stats_paired.c: the statistics of pairs and of several figures at once (see sc_stats.h and
 * doc/contracts/analysis.md, "Statistics of runs" and "Paired runs"): the Wilcoxon signed-rank
 * interval of a paired ratio, the p-values behind a verdict, Holm's correction and the trend of a
 * series with its run order (Spearman). Deterministic, like stats.c: verify gets the same
 * numbers.
 */
#include "sc_stats.h"
#include "sc_stats_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The law of the Wilcoxon signed-rank statistic T of n pairs without ties or zeros: c[t]
 * is the number of the 2^n sign patterns with T = t, the coefficients of prod_{i=1..n}
 * (1 + q^i), built one factor at a time (a running sum from the top). Exact in doubles
 * below 2^53 patterns (n < 50 here). malloc'd; c[0..n(n+1)/2].
 */
static double *sc__signrank_counts(size_t n)
{
    size_t top = n * (n + 1) / 2;
    double *c = calloc(top + 1, sizeof(*c));

    if (!c)
        return NULL;
    c[0] = 1;
    for (size_t i = 1, deg = 0; i <= n; i++) {
        deg += i;
        for (size_t t = deg; t >= i; t--) /* times (1 + q^i) */
            c[t] += c[t - i];
    }
    return c;
}

/* The signed-rank statistic's standard deviation under no shift. */
static double sc__signrank_sd(size_t n)
{
    return sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24);
}

/* P(T <= t) for n pairs: exact below SC_STATS_EXACT_BELOW, else normal with a continuity
   correction. 0 or -ENOMEM. */
static int sc__signrank_cdf(size_t n, double t, double *p)
{
    double top = (double)n * (double)(n + 1) / 2, cdf = 0, total = 0;

    if (n >= SC_STATS_EXACT_BELOW) {
        *p = sc__stats_phi((t + 0.5 - top / 2) / sc__signrank_sd(n));
        return 0;
    }
    double *c = sc__signrank_counts(n);
    if (!c)
        return -ENOMEM;
    for (size_t q = 0; (double)q <= top; q++) {
        total += c[q];
        if ((double)q <= t)
            cdf += c[q];
    }
    free(c);
    *p = cdf / total;
    return 0;
}

/*
 * The interval's rank k (1-based): exact, the smallest q with P(T <= q) >= 0.025 (R's
 * qsignrank(0.025, n)), at least 1, with coverage 1 - 2 P(T <= k-1); normal, floor(N/2 -
 * z sd) with the nominal 0.95. 0 or -ENOMEM.
 */
static int sc__signrank_rank(size_t n, size_t *k, double *level)
{
    size_t top = n * (n + 1) / 2;
    double alpha = (1 - SC_STATS_LEVEL) / 2, cdf = 0, total = 0;

    if (n >= SC_STATS_EXACT_BELOW) {
        double kk = floor((double)top / 2 - SC__Z975 * sc__signrank_sd(n));
        *k = kk < 1 ? 1 : (size_t)kk;
        *level = SC_STATS_LEVEL;
        return 0;
    }
    double *c = sc__signrank_counts(n);
    if (!c)
        return -ENOMEM;
    for (size_t q = 0; q <= top; q++)
        total += c[q];
    size_t q = 0;
    for (; q < top; q++) {
        cdf += c[q] / total;
        if (cdf >= alpha * (1 - 1e-12))
            break;
    }
    *k = q ? q : 1;
    cdf = 0;
    for (size_t u = 0; u < *k; u++)
        cdf += c[u] / total;
    free(c);
    *level = 1 - 2 * cdf;
    return 0;
}

/* The n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j, of the pairs' log ratios d =
   log(b/a), sorted: malloc'd, or NULL with *rc -EINVAL (no pair, a value not finite and
   positive) or -ENOMEM. */
static double *sc__walsh(const double *a, const double *b, size_t n, size_t *count, int *rc)
{
    size_t nw = n * (n + 1) / 2, w = 0;
    double *d, *avg;

    *rc = -EINVAL;
    if (!n || !sc__stats_positive(a, n) || !sc__stats_positive(b, n))
        return NULL;
    *rc = -ENOMEM;
    d = malloc(n * sizeof(*d));
    avg = malloc(nw * sizeof(*avg));
    if (!d || !avg) {
        free(d);
        free(avg);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = log(b[i]) - log(a[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            avg[w++] = (d[i] + d[j]) / 2;
    free(d);
    qsort(avg, nw, sizeof(*avg), sc__stats_cmp_double);
    *count = nw;
    *rc = 0;
    return avg;
}

int sc_stats_paired(const double *a, const double *b, size_t n, sc_ratio *out)
{
    size_t nw = 0, k;
    int rc;
    double *w;

    memset(out, 0, sizeof(*out));
    if (!(w = sc__walsh(a, b, n, &nw, &rc)))
        return rc;
    out->n_a = out->n_b = n;
    out->paired = true;
    out->ratio = exp(sc__stats_median_sorted(w, nw));
    if (n >= SC_STATS_MIN_RUNS) {
        rc = sc__signrank_rank(n, &k, &out->ci_level);
        if (rc == 0) {
            out->ci = true;
            out->ci_low = exp(w[k - 1]);
            out->ci_high = exp(w[nw - k]);
            out->method = n < SC_STATS_EXACT_BELOW ? "exact Wilcoxon signed-rank"
                                                   : "signed-rank, normal approximation";
        }
    }
    free(w);
    return rc;
}

/* The paired side of sc_stats_shift_p(): as for the interval, from the Walsh averages. */
static int sc__paired_shift_p(const double *a, const double *b, size_t n, double edge,
                              double *p_below, double *p_above)
{
    size_t nw = 0;
    int rc;
    double *w = sc__walsh(a, b, n, &nw, &rc), c = log(edge);
    double at_or_above = 0, at_or_below = 0;

    if (!w)
        return rc;
    for (size_t i = 0; i < nw; i++) {
        at_or_above += w[i] >= c;
        at_or_below += w[i] <= c;
    }
    free(w);
    rc = sc__signrank_cdf(n, at_or_above, p_below);
    if (rc == 0)
        rc = sc__signrank_cdf(n, at_or_below, p_above);
    return rc;
}

int sc_stats_shift_p(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
                     double edge, double *p_below, double *p_above)
{
    if (!n_a || !n_b || !(edge > 0) || !isfinite(edge) || (paired && n_a != n_b) ||
        !sc__stats_positive(a, n_a) || !sc__stats_positive(b, n_b))
        return -EINVAL;
    if (paired)
        return sc__paired_shift_p(a, b, n_a, edge, p_below, p_above);
    return sc__stats_mw_shift_p(a, n_a, b, n_b, edge, p_below, p_above);
}

int sc_stats_verdict_p(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
                       bool higher_is_better, double bound_pct, double *p)
{
    double bound = bound_pct / 100, slower, faster, below = 1, above = 1;
    /* The performance's edges as edges of B/A: for a figure where lower is better, B
       slower means B/A above 1 / (1 - bound). */
    double slow_edge = higher_is_better ? 1 - bound : 1 / (1 - bound);
    double fast_edge = higher_is_better ? 1 + bound : 1 / (1 + bound);
    int rc = sc_stats_shift_p(a, n_a, b, n_b, paired, slow_edge, &below, &above);

    if (rc < 0)
        return rc;
    slower = higher_is_better ? below : above;
    rc = sc_stats_shift_p(a, n_a, b, n_b, paired, fast_edge, &below, &above);
    if (rc < 0)
        return rc;
    faster = higher_is_better ? above : below;
    *p = 2 * (slower < faster ? slower : faster);
    if (*p > 1)
        *p = 1;
    return 0;
}

int sc_stats_holm(const double *p, size_t m, double *adjusted)
{
    size_t *order;
    double running = 0;

    if (!m)
        return -EINVAL;
    if (!(order = malloc(m * sizeof(*order))))
        return -ENOMEM;
    for (size_t i = 0; i < m; i++)
        order[i] = i;
    /* an insertion sort of the indexes by p (m is a few dozen metrics at most); stable, so
       equal p-values keep their order */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && p[order[j]] < p[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t i = 0; i < m; i++) {
        double v = p[order[i]] * (double)(m - i);
        running = v > running ? v : running;
        adjusted[order[i]] = running > 1 ? 1 : running;
    }
    free(order);
    return 0;
}

/* Average ranks (1-based) of x, ties sharing the mean of their ranks. */
static int sc__ranks(const double *x, size_t n, double *rank)
{
    size_t *idx = malloc(n * sizeof(*idx));

    if (!idx)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && x[idx[j]] < x[idx[j - 1]]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && x[idx[j + 1]] == x[idx[i]])
            j++;
        for (size_t t = i; t <= j; t++)
            rank[idx[t]] = (double)(i + j) / 2 + 1;
        i = j + 1;
    }
    free(idx);
    return 0;
}

/* Pearson's correlation of the ranks r with the positions 1..n. */
static double sc__rho(const double *r, size_t n)
{
    double mean = (double)(n + 1) / 2, sxy = 0, sxx = 0, syy = 0;

    for (size_t i = 0; i < n; i++) {
        double dx = (double)(i + 1) - mean, dy = r[i] - mean;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* Heap's algorithm over every order of r's first k entries: counts the orders whose |rho|
   reaches limit. */
static void sc__permute(double *r, size_t n, size_t k, double limit, double *hits, double *all)
{
    if (k == 1) {
        *all += 1;
        *hits += fabs(sc__rho(r, n)) >= limit;
        return;
    }
    sc__permute(r, n, k - 1, limit, hits, all);
    for (size_t i = 0; i + 1 < k; i++) {
        size_t j = k % 2 ? 0 : i;
        double t = r[j];
        r[j] = r[k - 1];
        r[k - 1] = t;
        sc__permute(r, n, k - 1, limit, hits, all);
    }
}

int sc_stats_trend(const double *x, size_t n, sc_trend *out)
{
    double *r;

    memset(out, 0, sizeof(*out));
    out->n = n;
    out->p = 1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -EINVAL;
    if (n < SC_STATS_TREND_MIN)
        return 0;
    if (!(r = malloc(n * sizeof(*r))))
        return -ENOMEM;
    if (sc__ranks(x, n, r) < 0) {
        free(r);
        return -ENOMEM;
    }
    bool varies = false;
    for (size_t i = 1; i < n; i++)
        varies |= r[i] != r[0];
    if (!varies) {
        free(r);
        return 0;
    }
    out->tested = true;
    out->rho = sc__rho(r, n);
    if (n <= SC_STATS_TREND_EXACT_MAX) {
        double hits = 0, all = 0;
        /* a relative margin, so an order whose rho equals the observed one in exact
           arithmetic counts although its doubles differ in the last bits */
        sc__permute(r, n, n, fabs(out->rho) * (1 - 1e-9), &hits, &all);
        out->p = hits / all;
        out->method = "exact permutation";
    } else {
        out->p = 2 * sc__stats_phi(-fabs(out->rho) * sqrt((double)n - 1));
        out->method = "normal approximation";
    }
    free(r);
    return 0;
}
