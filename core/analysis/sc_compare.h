/*
 * sc_compare.h: one figure of two sets of runs judged as a comparison does it
 * (doc/contracts/analysis.md, "Statistics of runs", "Paired runs"): each side's median and
 * interval, the ratio B/A with its interval (separate sides: Mann-Whitney; pairs: Wilcoxon
 * signed-rank), the verdict of the interval, and what overrides it:
 *   - contaminated: a side's runs had more foreign work on a CPU than the limit (by default
 *     the interference gate's default, 5%), even when its card opened the gate;
 *   - drifting host: two separate sides measured apart in time, and a side's figure trends
 *     with its run order (Spearman, p < 0.05): the host moved under the series, and may
 *     have moved between them; pairs run side by side and are never refused for it;
 *   - several figures judged at once: a faster or slower verdict must hold after Holm's
 *     correction over them (sc_compare_holm()), else it is too noisy to tell.
 * The inputs are results.json objects (sc_metric_samples() reads the runs). verify, run and
 * the analysis commands share it, so a paired run's record is recomputed exactly.
 */
#ifndef SC_COMPARE_H
#define SC_COMPARE_H

#include "sc_metric.h"
#include "sc_stats.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* The contamination limit unless a comparison names another: the gate's default. */
#define SC_COMPARE_MAX_INTERFERENCE 5.0

typedef struct sc_compare_opts {
    double bound_pct;            /* the noise bound (SC_STATS_NOISE_BOUND) */
    double tolerance_pct;        /* classify's: the loss p_loss is about; 0: none */
    double max_interference_pct; /* a side above this is contaminated */
    bool paired;                 /* run i of A and run i of B are a pair */
    bool apart;                  /* separate sides measured apart in time */
} sc_compare_opts;

typedef struct sc_comparison {
    sc_metric m;
    size_t n_a, n_b; /* runs each side holds of m (pairs: both the complete pairs) */
    sc_stats sa, sb;
    double val_a, val_b; /* each side's median */
    sc_ratio r;
    sc_verdict interval; /* what the interval says (sc_stats_verdict()) */
    sc_verdict verdict;  /* what the comparison says: the interval's, or what overrides it */
    sc_trend trend_a, trend_b;
    double worst_a, worst_b; /* each side's worst foreign share in %; -1 not measured */
    double p;                /* the p-value of a faster/slower claim (sc_stats_verdict_p()) */
    double p_holm;           /* after Holm's correction over the figures judged with it */
    /* With a tolerance: the p-value of "B loses more than the tolerance" (twice the
       one-sided p of the performance below 1 - tolerance, at most 1): below 0.05 exactly
       when the whole 95% interval lies beyond it; p_loss_holm after Holm. */
    double p_loss, p_loss_holm;
    size_t family; /* how many figures were judged at once (1: no correction) */
} sc_comparison;

/*
 * Compares m in results a and b under o into out. Returns 0; -ENOENT when a side holds no
 * value of m (or, paired, the pairs are not complete on both sides); -ENOMEM.
 */
int sc_compare_metric(json_object *a, json_object *b, const sc_metric *m, const sc_compare_opts *o,
                      sc_comparison *out);

/*
 * Holm's correction over the n figures of c judged at once: each p_holm (and p_loss_holm)
 * set, family n, and a faster or slower verdict whose adjusted p-value is not below 0.05
 * becomes too noisy to tell. One figure is left as it is. Returns 0 or -ENOMEM.
 */
int sc_compare_holm(sc_comparison *c, size_t n);

/* The worst foreign share (%) over a bundle's runs and CPUs (results.json's runs'
   interference), and the limit its card gave (*limit_pct, may be NULL); -1 when nothing was
   measured. */
double sc_compare_worst_share(json_object *results, double *limit_pct);

/* Whether two bundles' runs were made apart in time: one ended before the other started
   (results.json started_at, ended_at). False when a time is missing. */
bool sc_compare_apart(json_object *a, json_object *b);

#endif
