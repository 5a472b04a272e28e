/*
 * ipsearch.c: the inner-product search workload (kernels/ipsearch): nq queries against nb
 * database vectors through the BLAS, in a pool of search threads.
 */
#include "sc_card.h"
#include "sc_metric_def.h"

#include <errno.h>
#include <string.h>

extern const sc_workload_ops sc__workload_ipsearch;

static const sc_metric_def sc__metrics[] = {
    {"qps", NULL, "queries/s", SC_METRIC_HIGHER, "metrics.qps", sc__metric_rd_number, "qps"},
    {"thread_seconds", NULL, "s", SC_METRIC_LOWER,
     "metrics.total_thread_seconds (busy time of every search thread)", sc__metric_rd_number,
     "total_thread_seconds"},
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
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
