/*
 * linkmatrix.c: the judgement of a link matrix (sc_linkmatrix.h says the rules).
 */
#include "sc_linkmatrix.h"
#include "sc_stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static bool sc__outlier(double v, double median, double mad, double factor, double min_pct,
                        sc_linkmatrix_better better)
{
    double beyond = better == SC_LINKMATRIX_HIGHER ? median - v : v - median;

    return beyond > factor * mad && sc__worse_pct(v, median, better) >= min_pct;
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

/* Bad links among healthy nodes: each pair's figure over its expected one, judged against
   the other pairs' ratios. */
static int sc__judge_links(const double *m, size_t n, const bool *bad, sc_linkmatrix_better better,
                           double factor, double min_pct, sc_linkmatrix_verdict *v, size_t *cap)
{
    size_t npairs = n * (n - 1) / 2, k = 0;
    double *ratio = calloc(npairs, sizeof(*ratio)), *expect = calloc(npairs, sizeof(*expect));
    double *all = calloc(npairs, sizeof(*all)), *scratch = calloc(2 * n, sizeof(*scratch));
    double med, mad;
    int rc = -ENOMEM;

    if (!ratio || !expect || !all || !scratch)
        goto out_free;
    for (size_t i = 0, p = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++, p++) {
            double x = sc__pair(m, n, i, j);

            ratio[p] = NAN;
            rc = sc__expected(m, n, bad, i, j, scratch, &expect[p]);
            if (rc < 0)
                goto out_free;
            if (bad[i] || bad[j] || !isfinite(x) || !(expect[p] > 0) || !(x > 0))
                continue;
            ratio[p] = better == SC_LINKMATRIX_HIGHER ? x / expect[p] : expect[p] / x;
            all[k++] = ratio[p];
        }
    rc = sc__median_mad(all, k, &med, &mad);
    if (rc < 0 || k == 0)
        goto out_free;
    for (size_t i = 0, p = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++, p++) {
            if (!isfinite(ratio[p]) ||
                !sc__outlier(ratio[p], med, mad, factor, min_pct, SC_LINKMATRIX_HIGHER))
                continue;
            double x = sc__pair(m, n, i, j);
            sc_linkmatrix_finding f = {
                SC_LINKMATRIX_LINK, i, j, x, expect[p], sc__worse_pct(x, expect[p], better)};

            rc = sc__add(v, cap, &f);
            if (rc < 0)
                goto out_free;
        }
out_free:
    free(ratio);
    free(expect);
    free(all);
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
        if (isfinite(node[i]))
            scratch[k++] = node[i];
    out->n_nodes = k;
    rc = sc__median_mad(scratch, k, &out->node_median, &out->node_mad);
    if (rc < 0 || k < SC_LINKMATRIX_MIN_NODES)
        goto out_free;
    out->judged = true;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(node[i]) ||
            !sc__outlier(node[i], out->node_median, out->node_mad, mad_factor, min_pct, better))
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
