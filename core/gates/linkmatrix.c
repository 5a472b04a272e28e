/*
 * linkmatrix.c: the judgement of a link matrix (sc_linkmatrix.h says the rules).
 *
 * Cost (doc/contracts/analysis.md, "Link matrix"): the judgement works on one n x n table of the
 * pairs' signed logs in float (a figure carries far fewer than float's 7 digits) and one scratch
 * of n(n-1)/2 floats; every median and MAD is an O(k) selection (no sort, no interval: the
 * judgement uses none), so each polish sweep is O(n^2) and the whole judgement O(n^2) with
 * at most SC__POLISH_SWEEPS sweeps. 4096 nodes: 64 MiB of logs, 32 MiB of scratch.
 */
#include "sc_linkmatrix.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC__POLISH_SWEEPS 20  /* median polish: at most this many sweeps */
#define SC__POLISH_STILL 1e-4 /* ... and none once no effect moves by 0.01% (a log of 1e-4) */

size_t sc_linkmatrix_pair_index(size_t n, size_t i, size_t j)
{
    return i * n - i * (i + 1) / 2 + (j - i - 1);
}

static int sc__cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;

    return (x > y) - (x < y);
}

/*
 * Moves the k-th smallest of x[0..n) to x[k], the smaller ones before it and the larger
 * after (Hoare's selection, the pivot the median of three). The values are the user's: past
 * 2 log2(n) + 8 partitions that did not halve the range, the rest is sorted, so that no
 * input makes it worse than O(n log n).
 */
static void sc__select(float *x, size_t n, size_t k)
{
    size_t lo = 0, hi = n, budget = 8;

    for (size_t m = n; m > 1; m >>= 1)
        budget += 2;
    while (hi - lo > 2) {
        if (budget-- == 0) {
            qsort(x + lo, hi - lo, sizeof(*x), sc__cmp_float);
            return;
        }
        float a = x[lo], b = x[lo + (hi - lo) / 2], c = x[hi - 1];
        float pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi - 1;

        for (;;) { /* Hoare's partition: x[lo..j] <= pivot <= x[j+1..hi) */
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i >= j)
                break;
            float t = x[i];
            x[i++] = x[j];
            x[j--] = t;
        }
        if (k <= j)
            hi = j + 1;
        else
            lo = j + 1;
    }
    if (hi - lo == 2 && x[lo] > x[lo + 1]) {
        float t = x[lo];
        x[lo] = x[lo + 1];
        x[lo + 1] = t;
    }
}

/* The two middle order statistics of x[0..k) (equal when k is odd; x is reordered). */
static void sc__middles(float *x, size_t k, float *low, float *high)
{
    size_t h = k / 2;

    sc__select(x, k, h);
    *low = *high = x[h];
    if (k % 2 == 1)
        return;
    *low = x[0]; /* the largest of the lower half, which selection left before x[h] */
    for (size_t i = 1; i < h; i++)
        if (x[i] > *low)
            *low = x[i];
}

/* The median of x[0..k) (x is reordered); NAN when k is 0. */
static double sc__median(float *x, size_t k)
{
    float low, high;

    if (k == 0)
        return NAN;
    sc__middles(x, k, &low, &high);
    return ((double)low + high) / 2;
}

/* Median and MAD of x[0..k) (x is overwritten); NAN when k is 0. */
static void sc__median_mad(float *x, size_t k, double *median, double *mad)
{
    *median = sc__median(x, k);
    for (size_t i = 0; i < k; i++)
        x[i] = (float)fabs(x[i] - *median);
    *mad = sc__median(x, k);
}

/* The figure of a signed log (higher better: l = log x; lower: l = -log x). */
static double sc__figure(double l, sc_linkmatrix_better better)
{
    return exp(better == SC_LINKMATRIX_HIGHER ? l : -l);
}

/* The median of the figures whose signed logs are x[0..k) (x is reordered): the mean of the
   two middle figures when k is even, as a median of the figures themselves. NAN: k is 0. */
static double sc__figure_median(float *x, size_t k, sc_linkmatrix_better better)
{
    float low, high;

    if (k == 0)
        return NAN;
    sc__middles(x, k, &low, &high);
    return (sc__figure(low, better) + sc__figure(high, better)) / 2;
}

/* How much worse v is than ref, in percent (negative when better). */
static double sc__worse_pct(double v, double ref, sc_linkmatrix_better better)
{
    if (!(ref > 0))
        return 0;
    return (better == SC_LINKMATRIX_HIGHER ? ref - v : v - ref) / ref * 100.0;
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

/* The work of one judgement: the pairs' signed logs as a full symmetric table (rows are
   read whole, many times), and the scratch every median selects in. */
typedef struct sc__work {
    size_t n;
    sc_linkmatrix_better better;
    const double *pairs; /* the caller's, packed (sc_linkmatrix_pair_index) */
    float *l;            /* n x n: signed log of the pair, higher better; NAN: not measured */
    float *scratch;      /* n(n-1)/2 + 2n */
    bool *bad;           /* the nodes found bad */
} sc__work;

/* Per node: the median of its measured pairs (NAN when none). */
static void sc__node_figures(const sc__work *w, double *node)
{
    for (size_t i = 0; i < w->n; i++) {
        const float *row = w->l + i * w->n;
        size_t k = 0;

        for (size_t j = 0; j < w->n; j++)
            if (!isnan(row[j]))
                w->scratch[k++] = row[j];
        node[i] = sc__figure_median(w->scratch, k, w->better);
    }
}

/* The residuals of the healthy pairs under the fit (mu, eff) into out; returns how many. */
static size_t sc__residuals(const sc__work *w, const double *eff, double mu, float *out)
{
    size_t k = 0, n = w->n;

    for (size_t i = 0; i < n; i++) {
        const float *row = w->l + i * n;

        for (size_t j = i + 1; j < n && !w->bad[i]; j++)
            if (!w->bad[j] && !isnan(row[j]))
                out[k++] = (float)(row[j] - mu - eff[i] - eff[j]);
    }
    return k;
}

/*
 * Tukey's median polish of the healthy nodes' pairs, made symmetric: log figure(i, j) =
 * mu + eff[i] + eff[j] + residual. mu starts at the median pair; each sweep moves every
 * node's effect by half the median of its row's residuals (at once: a pair holds two
 * effects, a whole step would overshoot), then mu by the median residual, then centres the
 * effects on their median. It stops after SC__POLISH_SWEEPS sweeps, or sooner once no
 * effect moves by SC__POLISH_STILL: the result is deterministic. d has n entries.
 */
static void sc__polish(const sc__work *w, double *eff, double *mu, double *d)
{
    size_t n = w->n, k = sc__residuals(w, eff, 0, w->scratch);

    *mu = sc__median(w->scratch, k);
    for (int sweep = 0; k && sweep < SC__POLISH_SWEEPS; sweep++) {
        double moved = 0, shift;

        for (size_t i = 0; i < n; i++) {
            const float *row = w->l + i * n;
            size_t r = 0;

            for (size_t j = 0; j < n && !w->bad[i]; j++)
                if (!w->bad[j] && !isnan(row[j]))
                    w->scratch[r++] = (float)(row[j] - *mu - eff[i] - eff[j]);
            d[i] = r ? sc__median(w->scratch, r) : 0;
        }
        for (size_t i = 0; i < n; i++) {
            eff[i] += d[i] / 2;
            moved = fmax(moved, fabs(d[i] / 2));
        }
        k = sc__residuals(w, eff, *mu, w->scratch);
        shift = sc__median(w->scratch, k);
        *mu += shift;
        /* mu + eff[i] + eff[j] is the same with every eff + c and mu - 2c: centring the
           effects on their median makes mu the typical pair's level */
        size_t h = 0;
        for (size_t i = 0; i < n; i++)
            if (!w->bad[i])
                w->scratch[h++] = (float)eff[i];
        shift = sc__median(w->scratch, h);
        for (size_t i = 0; i < n; i++)
            eff[i] -= w->bad[i] ? 0 : shift;
        *mu += 2 * shift;
        if (moved < SC__POLISH_STILL)
            break;
    }
}

/* What i and j do with the other healthy nodes: the median of those pairs (NAN: none). */
static double sc__expected(const sc__work *w, size_t i, size_t j)
{
    const float *ri = w->l + i * w->n, *rj = w->l + j * w->n;
    size_t k = 0;

    for (size_t o = 0; o < w->n; o++) {
        if (o == i || o == j || w->bad[o])
            continue;
        if (!isnan(ri[o]))
            w->scratch[k++] = ri[o];
        if (!isnan(rj[o]))
            w->scratch[k++] = rj[o];
    }
    return sc__figure_median(w->scratch, k, w->better);
}

/* Bad links among healthy nodes: the pairs whose residual of the polish (how much worse the
   pair is than its two nodes make it expected to be) is an outlier among every healthy
   pair's residual. */
static int sc__judge_links(const sc__work *w, double factor, double min_pct,
                           sc_linkmatrix_verdict *v, size_t *cap)
{
    size_t n = w->n;
    double *eff = calloc(n, sizeof(*eff)), *d = calloc(n, sizeof(*d));
    double mu = 0, med, mad;
    int rc = -ENOMEM;

    if (!eff || !d)
        goto out_free;
    rc = 0;
    sc__polish(w, eff, &mu, d);
    sc__median_mad(w->scratch, sc__residuals(w, eff, mu, w->scratch), &med, &mad);
    if (isnan(med))
        goto out_free;
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t j = i + 1; j < n && !w->bad[i] && rc == 0; j++) {
            float l = w->l[i * n + j];
            double res = (double)l - mu - eff[i] - eff[j], expected;

            if (w->bad[j] || isnan(l) || !(med - res > factor * mad))
                continue;
            double x = w->pairs[sc_linkmatrix_pair_index(n, i, j)];
            expected = sc__expected(w, i, j);
            if (!isfinite(expected) || sc__worse_pct(x, expected, w->better) < min_pct)
                continue;
            sc_linkmatrix_finding f = {
                SC_LINKMATRIX_LINK, i, j, x, expected, sc__worse_pct(x, expected, w->better)};
            rc = sc__add(v, cap, &f);
        }
out_free:
    free(eff);
    free(d);
    return rc;
}

/* The nodes' figures, their middle and MAD, and the bad nodes. */
static int sc__judge_nodes(const sc__work *w, double factor, double min_pct,
                           sc_linkmatrix_verdict *out, size_t *cap)
{
    double *node = calloc(w->n ? w->n : 1, sizeof(*node));
    double log_median, log_mad;
    size_t k = 0;
    int rc = 0;

    if (!node)
        return -ENOMEM;
    sc__node_figures(w, node);
    for (size_t i = 0; i < w->n; i++)
        if (isfinite(node[i]) && node[i] > 0)
            w->scratch[k++] = (float)log(node[i]);
        else
            node[i] = NAN;
    out->n_nodes = k;
    sc__median_mad(w->scratch, k, &log_median, &log_mad);
    out->node_median = exp(log_median); /* back to the figure's unit */
    out->node_mad = log_mad;
    out->judged = k >= SC_LINKMATRIX_MIN_NODES;
    for (size_t i = 0; out->judged && rc == 0 && i < w->n; i++) {
        if (!isfinite(node[i]) ||
            !sc__outlier(node[i], log_median, log_mad, factor, min_pct, w->better))
            continue;
        sc_linkmatrix_finding f = {SC_LINKMATRIX_NODE,
                                   i,
                                   i,
                                   node[i],
                                   out->node_median,
                                   sc__worse_pct(node[i], out->node_median, w->better)};

        w->bad[i] = true;
        rc = sc__add(out, cap, &f);
    }
    free(node);
    return rc;
}

int sc_linkmatrix_judge_pairs(const double *pairs, size_t n, sc_linkmatrix_better better,
                              double mad_factor, double min_pct, sc_linkmatrix_verdict *out)
{
    sc__work w = {.n = n, .better = better, .pairs = pairs};
    size_t cap = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!pairs || n > SC_LINKMATRIX_MAX_NODES || !(mad_factor > 0) || !(min_pct >= 0) ||
        !isfinite(mad_factor) || !isfinite(min_pct))
        return -EINVAL;
    rc = -ENOMEM;
    w.l = malloc((n ? n * n : 1) * sizeof(*w.l));
    w.scratch = malloc((n * (n - (n > 0)) / 2 + 2 * n + 1) * sizeof(*w.scratch));
    w.bad = calloc(n ? n : 1, sizeof(*w.bad));
    if (!w.l || !w.scratch || !w.bad)
        goto out_free;
    for (size_t i = 0; i < n; i++) {
        w.l[i * n + i] = NAN;
        for (size_t j = i + 1; j < n; j++) {
            double x = pairs[sc_linkmatrix_pair_index(n, i, j)];
            float l = isfinite(x) && x > 0
                          ? (float)(better == SC_LINKMATRIX_HIGHER ? log(x) : -log(x))
                          : NAN;
            w.l[i * n + j] = w.l[j * n + i] = l;
        }
    }
    rc = sc__judge_nodes(&w, mad_factor, min_pct, out, &cap);
    if (rc == 0 && out->judged)
        rc = sc__judge_links(&w, mad_factor, min_pct, out, &cap);
out_free:
    free(w.l);
    free(w.scratch);
    free(w.bad);
    if (rc < 0)
        sc_linkmatrix_verdict_free(out);
    return rc;
}

int sc_linkmatrix_judge(const double *m, size_t n, sc_linkmatrix_better better, double mad_factor,
                        double min_pct, sc_linkmatrix_verdict *out)
{
    double *pairs;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!m || n > SC_LINKMATRIX_MAX_NODES)
        return -EINVAL;
    pairs = malloc((n > 1 ? n * (n - 1) / 2 : 1) * sizeof(*pairs));
    if (!pairs)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double a = m[i * n + j], b = m[j * n + i]; /* both readings: their mean */

            pairs[sc_linkmatrix_pair_index(n, i, j)] =
                isfinite(a) && isfinite(b) ? (a + b) / 2 : (isfinite(a) ? a : b);
        }
    rc = sc_linkmatrix_judge_pairs(pairs, n, better, mad_factor, min_pct, out);
    free(pairs);
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
