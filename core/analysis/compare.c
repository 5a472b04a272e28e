/*
 * compare.c: one figure of two sets of runs, as every comparison judges it (see
 * sc_compare.h): the statistics of each side, the ratio and its interval, and the verdict
 * with what overrides the interval's.
 */
#include "sc_compare.h"
#include "sc_facts.h"
#include "sc_num.h"
#include "sc_runs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest share_pct of an "interference" object's cpus, or -1. */
static double sc__worst_of(json_object *intf)
{
    json_object *cpus = NULL;
    double worst = -1, v;

    if (!intf || !json_object_object_get_ex(intf, "cpus", &cpus) ||
        !json_object_is_type(cpus, json_type_array))
        return -1;
    for (size_t i = 0; i < json_object_array_length(cpus); i++)
        if (sc_num_get(json_object_array_get_idx(cpus, i), "share_pct", &v) == 0 && v > worst)
            worst = v; /* finite numbers only (sc_num.h) */
    return worst;
}

double sc_compare_worst_share(json_object *results, double *limit_pct)
{
    json_object *runs = NULL, *intf = NULL, *limit = NULL;
    double worst = -1, l = 0;

    if (results && json_object_object_get_ex(results, "runs", &runs) &&
        json_object_is_type(runs, json_type_array))
        for (size_t i = 0; i < json_object_array_length(runs); i++) {
            json_object *run = json_object_array_get_idx(runs, i);
            if (json_object_object_get_ex(run, "interference", &intf) && intf) {
                double w = sc__worst_of(intf);
                worst = w > worst ? w : worst;
                json_object_object_get_ex(intf, "max_interference_pct", &limit);
            }
        }
    if (limit_pct)
        *limit_pct = sc_num_json(limit, &l) == 0 ? l : 0;
    return worst;
}

static long long sc__time(json_object *results, const char *key)
{
    json_object *v;

    return results && json_object_object_get_ex(results, key, &v) && v
               ? sc_facts_epoch(json_object_get_string(v))
               : -1;
}

bool sc_compare_apart(json_object *a, json_object *b)
{
    long long a0 = sc__time(a, "started_at"), a1 = sc__time(a, "ended_at");
    long long b0 = sc__time(b, "started_at"), b1 = sc__time(b, "ended_at");

    if (a0 < 0 || a1 < 0 || b0 < 0 || b1 < 0)
        return false;
    return a1 <= b0 || b1 <= a0;
}

/* The samples of m in results, in run order, malloc'd into *out. How many. */
static size_t sc__samples(json_object *results, const sc_metric *m, double **out)
{
    *out = calloc(SC_RUNS_MAX, sizeof(**out));
    return *out ? sc_metric_samples(m, results, *out, SC_RUNS_MAX) : 0;
}

/* The verdict the comparison says: the interval's unless a side is contaminated or, for
   separate sides apart in time, a side's series drifts. */
static sc_verdict sc__overrides(const sc_comparison *c, const sc_compare_opts *o)
{
    if (c->worst_a > o->max_interference_pct || c->worst_b > o->max_interference_pct)
        return SC_VERDICT_CONTAMINATED;
    if (!o->paired && o->apart &&
        ((c->trend_a.tested && c->trend_a.p < SC_STATS_TREND_ALPHA) ||
         (c->trend_b.tested && c->trend_b.p < SC_STATS_TREND_ALPHA)))
        return SC_VERDICT_DRIFTING;
    return c->interval;
}

int sc_compare_metric(json_object *a, json_object *b, const sc_metric *m, const sc_compare_opts *o,
                      sc_comparison *c)
{
    double *va = NULL, *vb = NULL;
    bool higher = m->better == SC_METRIC_HIGHER;
    int rc = -ENOENT;

    memset(c, 0, sizeof(*c));
    c->m = *m;
    c->p = c->p_holm = c->p_loss = c->p_loss_holm = 1;
    c->family = 1;
    c->n_a = sc__samples(a, m, &va);
    c->n_b = sc__samples(b, m, &vb);
    if (!va || !vb) {
        rc = -ENOMEM;
        goto out;
    }
    if (o->paired && c->n_a != c->n_b) /* a side that stopped early: the pairs so far */
        c->n_a = c->n_b = c->n_a < c->n_b ? c->n_a : c->n_b;
    if (!c->n_a || !c->n_b || sc_stats_describe(va, c->n_a, &c->sa) < 0 ||
        sc_stats_describe(vb, c->n_b, &c->sb) < 0)
        goto out;
    c->val_a = c->sa.median;
    c->val_b = c->sb.median;
    c->worst_a = sc_compare_worst_share(a, NULL);
    c->worst_b = sc_compare_worst_share(b, NULL);
    sc_stats_trend(va, c->n_a, &c->trend_a);
    sc_stats_trend(vb, c->n_b, &c->trend_b);
    rc = o->paired ? sc_stats_paired(va, vb, c->n_a, &c->r)
                   : sc_stats_ratio(va, c->n_a, vb, c->n_b, &c->r);
    if (rc == -EINVAL) { /* a value not positive: medians, no ratio */
        rc = 0;
        c->interval = c->verdict = SC_VERDICT_UNCONFIRMED;
        goto out;
    }
    if (rc < 0)
        goto out;
    c->interval = sc_stats_verdict(&c->r, higher, o->bound_pct);
    if (c->r.ci) {
        rc = sc_stats_verdict_p(va, c->n_a, vb, c->n_b, o->paired, higher, o->bound_pct, &c->p);
        c->p_holm = c->p;
    }
    if (rc == 0 && c->r.ci && o->tolerance_pct > 0) {
        double limit = 1 - o->tolerance_pct / 100, below, above;
        rc = sc_stats_shift_p(va, c->n_a, vb, c->n_b, o->paired, higher ? limit : 1 / limit, &below,
                              &above);
        c->p_loss = 2 * (higher ? below : above);
        c->p_loss = c->p_loss > 1 ? 1 : c->p_loss;
        c->p_loss_holm = c->p_loss;
    }
    c->verdict = sc__overrides(c, o);
out:
    free(va);
    free(vb);
    return rc;
}

int sc_compare_holm(sc_comparison *c, size_t n)
{
    double *p = calloc(n + 1, sizeof(*p)), *adj = calloc(n + 1, sizeof(*adj));
    double *pl = calloc(n + 1, sizeof(*pl)), *adjl = calloc(n + 1, sizeof(*adjl));
    int rc = p && adj && pl && adjl ? 0 : -ENOMEM;

    for (size_t i = 0; rc == 0 && i < n; i++) {
        p[i] = c[i].p;
        pl[i] = c[i].p_loss;
    }
    if (rc == 0 && n > 1)
        rc = sc_stats_holm(p, n, adj);
    if (rc == 0 && n > 1)
        rc = sc_stats_holm(pl, n, adjl);
    for (size_t i = 0; rc == 0 && n > 1 && i < n; i++) {
        c[i].p_holm = adj[i];
        c[i].p_loss_holm = adjl[i];
        c[i].family = n;
        if ((c[i].verdict == SC_VERDICT_FASTER || c[i].verdict == SC_VERDICT_SLOWER) &&
            adj[i] >= 1 - SC_STATS_LEVEL)
            c[i].verdict = SC_VERDICT_NOISY;
    }
    free(p);
    free(adj);
    free(pl);
    free(adjl);
    return rc;
}
