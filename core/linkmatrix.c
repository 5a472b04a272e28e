/*
 * linkmatrix.c: the judgement of a link matrix (sc_linkmatrix.h says the rules).
 */
#include "sc_linkmatrix.h"
#include "sc_stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SC__POLISH_SWEEPS 20 /* median polish: sweeps of node effects and overall level */

/* The pair i-j's figure: the mean of both readings when both are finite. */
static double sc__pair(const double *m, size_t n, size_t i, size_t j)
{
    double a = m[i * n + j], b = m[j * n + i];

    if (isfinite(a) && isfinite(b))
        return (a + b) / 2;
    return isfinite(a) ? a : b;
}

/* Median and MAD of x[0..k) (x is reordered); NAN when k is 0. */
static int sc__median_mad(double *x, size_t k, double *median, double *mad)
{
    sc_stats s;
    int rc;

    *median = *mad = NAN;
    if (k == 0)
        return 0;
    rc = sc_stats_describe(x, k, &s);
    if (rc < 0)
        return rc;
    *median = s.median;
    for (size_t i = 0; i < k; i++)
        x[i] = fabs(x[i] - s.median);
    rc = sc_stats_describe(x, k, &s);
    if (rc == 0)
        *mad = s.median;
    return rc;
}

/* How much worse v is than ref, in percent (negative when better). */
static double sc__worse_pct(double v, double ref, sc_linkmatrix_better better)
{
    if (!(ref > 0))
        return 0;
    return (better == SC_LINKMATRIX_HIGHER ? ref - v : v - ref) / ref * 100.0;
}

/* Median and MAD of the logs of x[0..k) (x is overwritten): a rate halved and a rate
   doubled are equally far from the middle, and one slow figure among noisy ones stands out
   by its factor. NAN when k is 0. */
static int sc__log_median_mad(double *x, size_t k, double *median, double *mad)
{
    for (size_t i = 0; i < k; i++)
        x[i] = log(x[i]);
    return sc__median_mad(x, k, median, mad);
}

/* v (> 0) beyond factor MADs of the logs on the bad side, and min_pct worse than the
   middle exp(log_median). */
static bool sc__outlier(double v, double log_median, double log_mad, double factor, double min_pct,
                        sc_linkmatrix_better better)
{
    double lv = log(v);
    double beyond = better == SC_LINKMATRIX_HIGHER ? log_median - lv : lv - log_median;

    return beyond > factor * log_mad && sc__worse_pct(v, exp(log_median), better) >= min_pct;
}

static int sc__add(sc_linkmatrix_verdict *v, size_t *cap, const sc_linkmatrix_finding *f)
{
    if (v->n == *cap) {
        size_t want = *cap ? *cap * 2 : 8;
        sc_linkmatrix_finding *grown = realloc(v->findings, want * sizeof(*grown));

        if (!grown)
            return -ENOMEM;
        v->findings = grown;
        *cap = want;
    }
    v->findings[v->n++] = *f;
    return 0;
}

/* Per node: the median of its measured pairs (NAN when none). */
static int sc__node_figures(const double *m, size_t n, double *node, double *scratch)
{
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        double mad;
        int rc;

        for (size_t j = 0; j < n; j++) {
            double x = j == i ? NAN : sc__pair(m, n, i, j);

            if (isfinite(x))
                scratch[k++] = x;
        }
        rc = sc__median_mad(scratch, k, &node[i], &mad);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The log of pair i-j's figure, signed so that higher is better; NAN when not measured. */
static double sc__log_pair(const double *m, size_t n, size_t i, size_t j,
                           sc_linkmatrix_better better)
{
    double x = sc__pair(m, n, i, j);

    if (!isfinite(x) || !(x > 0))
        return NAN;
    return better == SC_LINKMATRIX_HIGHER ? log(x) : -log(x);
}

/* The residuals of the healthy pairs under the fit (mu, eff) into out; returns how many. */
static size_t sc__residuals(const double *m, size_t n, const bool *bad, sc_linkmatrix_better better,
                            const double *eff, double mu, double *out)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double l = bad[i] || bad[j] ? NAN : sc__log_pair(m, n, i, j, better);
            if (isfinite(l))
                out[k++] = l - mu - eff[i] - eff[j];
        }
    return k;
}

/*
 * Tukey's median polish of the healthy nodes' pairs, made symmetric: log figure(i, j) =
 * mu + eff[i] + eff[j] + residual. mu starts at the median pair; each sweep moves every
 * node's effect by half the median of its row's residuals (at once: a pair holds two
 * effects, a whole step would overshoot), then mu by the median residual, then centres the
 * effects on their median. A fixed number of sweeps: the result is deterministic. Returns
 * 0 or -ENOMEM; d has n entries, scratch n(n-1)/2 + n.
 */
static int sc__polish(const double *m, size_t n, const bool *bad, sc_linkmatrix_better better,
                      double *eff, double *mu, double *d, double *scratch)
{
    double shift, mad;
    size_t k = sc__residuals(m, n, bad, better, eff, 0, scratch);
    int rc = sc__median_mad(scratch, k, mu, &mad);

    for (int sweep = 0; rc == 0 && k && sweep < SC__POLISH_SWEEPS; sweep++) {
        for (size_t i = 0; i < n && rc == 0; i++) {
            size_t row = 0;
            d[i] = 0;
            for (size_t j = 0; j < n && !bad[i]; j++) {
                double l = j == i || bad[j] ? NAN : sc__log_pair(m, n, i, j, better);
                if (isfinite(l))
                    scratch[row++] = l - *mu - eff[i] - eff[j];
            }
            if (row)
                rc = sc__median_mad(scratch, row, &d[i], &mad);
        }
        for (size_t i = 0; i < n; i++)
            eff[i] += d[i] / 2;
        k = sc__residuals(m, n, bad, better, eff, *mu, scratch);
        if (rc == 0)
            rc = sc__median_mad(scratch, k, &shift, &mad);
        *mu += rc == 0 ? shift : 0;
        /* mu + eff[i] + eff[j] is the same with every eff + c and mu - 2c: centring the
           effects on their median makes mu the typical pair's level */
        size_t h = 0;
        for (size_t i = 0; i < n; i++)
            if (!bad[i])
                scratch[h++] = eff[i];
        if (rc == 0)
            rc = sc__median_mad(scratch, h, &shift, &mad);
        for (size_t i = 0; rc == 0 && i < n; i++)
            eff[i] -= bad[i] ? 0 : shift;
        *mu += rc == 0 ? 2 * shift : 0;
    }
    return rc;
}

/* What i and j do with the other healthy nodes: the median of those pairs (NAN: none). */
static int sc__expected(const double *m, size_t n, const bool *bad, size_t i, size_t j,
                        double *scratch, double *out)
{
    size_t k = 0;
    double mad;

    for (size_t o = 0; o < n; o++) {
        if (o == i || o == j || bad[o])
            continue;
        double a = sc__pair(m, n, i, o), b = sc__pair(m, n, j, o);

        if (isfinite(a))
            scratch[k++] = a;
        if (isfinite(b))
            scratch[k++] = b;
    }
    return sc__median_mad(scratch, k, out, &mad);
}

/* Bad links among healthy nodes: the pairs whose residual of the polish (how much worse the
   pair is than its two nodes make it expected to be) is an outlier among every healthy
   pair's residual. */
static int sc__judge_links(const double *m, size_t n, const bool *bad, sc_linkmatrix_better better,
                           double factor, double min_pct, sc_linkmatrix_verdict *v, size_t *cap)
{
    size_t npairs = n * (n - 1) / 2, k = 0;
    double *eff = calloc(n, sizeof(*eff)), *res = calloc(npairs, sizeof(*res));
    double *d = calloc(n, sizeof(*d)), *scratch = calloc(npairs + n, sizeof(*scratch));
    double mu = 0, med, mad;
    int rc = -ENOMEM;

    if (!eff || !res || !d || !scratch)
        goto out_free;
    rc = sc__polish(m, n, bad, better, eff, &mu, d, scratch);
    if (rc < 0)
        goto out_free;
    for (size_t i = 0, p = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++, p++) {
            double l = bad[i] || bad[j] ? NAN : sc__log_pair(m, n, i, j, better);
            res[p] = isfinite(l) ? l - mu - eff[i] - eff[j] : NAN;
            if (isfinite(res[p]))
                scratch[k++] = res[p];
        }
    rc = sc__median_mad(scratch, k, &med, &mad);
    if (rc < 0 || k == 0)
        goto out_free;
    for (size_t i = 0, p = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++, p++) {
            double x = sc__pair(m, n, i, j), expected = NAN;
            if (!isfinite(res[p]) || !(med - res[p] > factor * mad))
                continue;
            rc = sc__expected(m, n, bad, i, j, scratch, &expected);
            if (rc < 0)
                goto out_free;
            if (!isfinite(expected) || sc__worse_pct(x, expected, better) < min_pct)
                continue;
            sc_linkmatrix_finding f = {
                SC_LINKMATRIX_LINK, i, j, x, expected, sc__worse_pct(x, expected, better)};
            rc = sc__add(v, cap, &f);
            if (rc < 0)
                goto out_free;
        }
out_free:
    free(eff);
    free(res);
    free(d);
    free(scratch);
    return rc;
}

int sc_linkmatrix_judge(const double *m, size_t n, sc_linkmatrix_better better, double mad_factor,
                        double min_pct, sc_linkmatrix_verdict *out)
{
    double *node = NULL, *scratch = NULL;
    bool *bad = NULL;
    size_t k = 0, cap = 0;
    int rc = -EINVAL;

    memset(out, 0, sizeof(*out));
    if (!m || n > SC_LINKMATRIX_MAX_NODES || !(mad_factor > 0) || !(min_pct >= 0) ||
        !isfinite(mad_factor) || !isfinite(min_pct))
        return -EINVAL;
    rc = -ENOMEM;
    node = calloc(n ? n : 1, sizeof(*node));
    scratch = calloc(n ? n : 1, sizeof(*scratch));
    bad = calloc(n ? n : 1, sizeof(*bad));
    if (!node || !scratch || !bad)
        goto out_free;
    rc = sc__node_figures(m, n, node, scratch);
    if (rc < 0)
        goto out_free;
    for (size_t i = 0; i < n; i++)
        if (isfinite(node[i]) && node[i] > 0)
            scratch[k++] = node[i];
        else
            node[i] = NAN;
    out->n_nodes = k;
    rc = sc__log_median_mad(scratch, k, &out->node_median, &out->node_mad);
    out->node_median = exp(out->node_median); /* back to the figure's unit */
    if (rc < 0 || k < SC_LINKMATRIX_MIN_NODES)
        goto out_free;
    out->judged = true;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(node[i]) || !sc__outlier(node[i], log(out->node_median), out->node_mad,
                                               mad_factor, min_pct, better))
            continue;
        sc_linkmatrix_finding f = {SC_LINKMATRIX_NODE,
                                   i,
                                   i,
                                   node[i],
                                   out->node_median,
                                   sc__worse_pct(node[i], out->node_median, better)};

        bad[i] = true;
        rc = sc__add(out, &cap, &f);
        if (rc < 0)
            goto out_free;
    }
    rc = sc__judge_links(m, n, bad, better, mad_factor, min_pct, out, &cap);
out_free:
    free(node);
    free(scratch);
    free(bad);
    if (rc < 0)
        sc_linkmatrix_verdict_free(out);
    return rc;
}

void sc_linkmatrix_verdict_free(sc_linkmatrix_verdict *v)
{
    if (!v)
        return;
    free(v->findings);
    v->findings = NULL;
    v->n = 0;
}
