/*
 * ipsearch.c: the inner-product search workload (kernels/ipsearch): nq queries against nb
 * database vectors through the BLAS, in a pool of search threads.
 */
#include "sc_card_schema.h"
#include "sc_fact_rates.h"
#include "sc_metric_def.h"

#include "sc_num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern const sc_workload_ops sc__workload_ipsearch;

static const sc_card_field sc__keys[] = {
    SC_CF_MEMORY_NODE, SC_CF_ITERATIONS, SC_CF_NB,           SC_CF_NQ,
    SC_CF_DIM,         SC_CF_K,          SC_CF_POOL_THREADS, SC_CF_BLAS,
};

/* pool_threads not given: as many search threads in the pool as threads. */
static void sc__follow_threads(sc_card *card)
{
    if (!card->present[SC_CF_POOL_THREADS])
        card->pool_threads = card->threads;
}

static int sc__defaults(sc_card *card)
{
    if (!card->present[SC_CF_NB])
        card->nb = 200000;
    if (!card->present[SC_CF_NQ])
        card->nq = 1000;
    if (!card->present[SC_CF_DIM])
        card->dim = 128;
    if (!card->present[SC_CF_K])
        card->k = 10;
    sc__follow_threads(card);
    if (!card->present[SC_CF_ITERATIONS])
        card->iterations = 3;
    return 0;
}

/* k is a count of database vectors: at most nb. */
static void sc__check(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];

    if (card->invalid[SC_CF_K] || card->invalid[SC_CF_NB] || card->k <= card->nb)
        return;
    sc_diag_addf(diag, "%s: k: %llu is more than the %llu database vectors nb (valid: 1-%llu)",
                 sc__card_where(card, SC_CF_K, where, sizeof(where)), (unsigned long long)card->k,
                 (unsigned long long)card->nb, (unsigned long long)card->nb);
    (*errors)++;
}

static void sc__layout_name(const sc_card *card, char *buf, size_t len)
{
    snprintf(buf, len, "ipsearch_%ldthread_%ldpool", card->threads, card->pool_threads);
}

/* database + queries (float32), plus per-query top-k (score + id). */
static uint64_t sc__memory_bytes(const sc_card *card)
{
    return (card->nb + card->nq) * card->dim * 4 + card->nq * card->k * 12;
}

static void sc__args(const sc_card *c, sc_strv *a)
{
    sc_strv_opt(a, "--nb", "%llu", (unsigned long long)c->nb);
    sc_strv_opt(a, "--nq", "%llu", (unsigned long long)c->nq);
    sc_strv_opt(a, "--dim", "%llu", (unsigned long long)c->dim);
    sc_strv_opt(a, "--k", "%llu", (unsigned long long)c->k);
    /* Without pool_threads in the card the kernel takes its default layout, which also
       keeps every cpu busy for batches smaller than the thread count. */
    if (c->present[SC_CF_POOL_THREADS])
        sc_strv_opt(a, "--pool-threads", "%ld", c->pool_threads);
    sc_strv_opt(a, "--iterations", "%ld", c->iterations);
}

static void sc__describe(const sc_card *c, FILE *out)
{
    fprintf(out,
            "  sizes:       nb %llu x dim %llu (database), nq %llu queries, k %llu, "
            "pool_threads %ld%s, iterations %ld (%.1f MiB)\n",
            (unsigned long long)c->nb, (unsigned long long)c->dim, (unsigned long long)c->nq,
            (unsigned long long)c->k, c->pool_threads,
            c->present[SC_CF_POOL_THREADS] ? "" : " (default layout)", c->iterations,
            (double)sc__memory_bytes(c) / 1048576.0);
}

static void sc__verify_derived(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    const sc_figure *qps = sc_tracelog_figure(t, "qps");
    const sc_figure *wall = sc_tracelog_figure(t, "wall_seconds");

    if (!qps)
        return; /* no figures: the validation and min_rate checks say what is missing */
    if (!wall) {
        sc_diag_addf(problems, "stream.log: qps=%.1f, but no wall_seconds it is derived from",
                     qps->value);
        return;
    }
    double nq = (double)card->nq;
    if (!sc_tracelog_quotient_shows(qps->value, qps->unit, nq, wall->value, wall->unit))
        sc_diag_addf(problems, "stream.log: qps=%.1f, but nq %.0f over wall_seconds %.6f is %.1f",
                     qps->value, nq, wall->value, wall->value > 0 ? nq / wall->value : 0.0);
}

/* results.json's figures (qps, wall_seconds, ...) are the ones the log printed. */
static void sc__verify_results(json_object *metrics, const sc_tracelog *t, const sc_card *card,
                               const char *log, sc_diag *problems)
{
    (void)card;
    (void)log;
    json_object_object_foreach(metrics, key, value)
    {
        if (!json_object_is_type(value, json_type_double) &&
            !json_object_is_type(value, json_type_int))
            continue; /* null: the workload had no finite value (the log shows NaN/Inf) */
        const sc_figure *fig = sc_tracelog_figure(t, key);
        double claimed = NAN;
        sc_num_json(value, &claimed);
        if (!fig)
            sc_diag_addf(problems, "results.json: %s %.9g, but stream.log shows no %s figure", key,
                         claimed, key);
        else if (!sc_tracelog_shows(claimed, fig->value, fig->unit))
            sc_diag_addf(problems, "results.json: %s %.9g, but stream.log shows %s=%.9g", key,
                         claimed, key, fig->value);
    }
}

/* The search's repetitions: the log's wall_seconds figures. */
static bool sc__rep_times(const sc_tracelog *t, const char *name, double shown[4])
{
    const sc_figure *best = sc_tracelog_figure(t, "wall_seconds");
    const sc_figure *avg = sc_tracelog_figure(t, "avg_wall_seconds");
    const sc_figure *max = sc_tracelog_figure(t, "max_wall_seconds");

    if (strcmp(name, "search") != 0 || !best || !avg || !max)
        return false;
    shown[0] = best->value;
    shown[1] = avg->value;
    shown[2] = max->value;
    shown[3] = best->unit;
    return true;
}

/* ipsearch: the search as one rate row in queries/s, with every search's seconds. */
static void sc__facts(sc_bundle_facts *f, json_object *metrics, const sc_card *card)
{
    sc_fact_rate *r;

    if (sc__fact_num(metrics, "qps") <= 0 || !(r = sc__fact_rate_add(f, "search")))
        return;
    r->MBps = sc__fact_num(metrics, "qps");
    r->min_s = sc__fact_num(metrics, "wall_seconds");
    r->avg_s = sc__fact_num(metrics, "avg_wall_seconds");
    r->max_s = sc__fact_num(metrics, "max_wall_seconds");
    sc__fact_rate_reps(r, metrics, card->iterations);
    f->rate_unit = "queries/s";
}

static const sc_metric_def sc__metrics[] = {
    {"qps", NULL, "queries/s", SC_METRIC_HIGHER, "metrics.qps", sc__metric_rd_number, "qps", false},
    {"thread_seconds", NULL, "s", SC_METRIC_LOWER,
     "metrics.total_thread_seconds (busy time of every search thread)", sc__metric_rd_number,
     "total_thread_seconds", false},
};

/* Queries per second, for every question the card asks. */
static size_t sc__metric_defaults(const sc_card *card, json_object *results, unsigned which,
                                  sc_metric *out, size_t max)
{
    size_t n = 0;

    (void)card;
    (void)results;
    (void)which;
    sc__metric_add(&sc__workload_ipsearch, "qps", out, max, &n);
    return n;
}

static int sc__metric_primary(const sc_card *card, json_object *results, sc_metric *out)
{
    return sc__metric_defaults(card, results, SC_METRIC_HEADLINE, out, 1) ? 0 : -ENOENT;
}

/* A study of ipsearch ranks by the threads' busy time: what a layout or a BLAS costs. */
static int sc__metric_study(const sc_card *card, sc_metric *out)
{
    (void)card;
    return sc__metric_match(&sc__workload_ipsearch, "thread_seconds", out);
}

const sc_workload_ops sc__workload_ipsearch = {
    .id = SC_WORKLOAD_IPSEARCH,
    .name = "ipsearch",
    .program = "streamcard-ipsearch",
    .keys = sc__keys,
    .n_keys = sizeof(sc__keys) / sizeof(sc__keys[0]),
    .defaults = sc__defaults,
    .follow_threads = sc__follow_threads,
    .check = sc__check,
    .layout_name = sc__layout_name,
    .memory_bytes = sc__memory_bytes,
    .args = sc__args,
    .describe = sc__describe,
    .facts = sc__facts,
    .verify_derived = sc__verify_derived,
    .verify_results = sc__verify_results,
    .rep_times = sc__rep_times,
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
