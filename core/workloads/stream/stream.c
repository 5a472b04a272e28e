/*
 * stream.c: the STREAM workload (kernels/stream): copy, scale, add, triad over three arrays.
 */
#include "sc_card.h"
#include "sc_metric_def.h"

#include <errno.h>
#include <string.h>

extern const sc_workload_ops sc__workload_stream;

/* A STREAM function's best rate: metrics.rates.<key>, or the one kernel's best_rate_MBps. */
static int sc__rd_stream(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v)
{
    (void)m;
    if (sc__metric_finite(sc__metric_get(sc__metric_get(metrics, "rates"), key), v) == 0)
        return 0;
    if (kernel && strcmp(kernel, key) == 0)
        return sc__metric_finite(sc__metric_get(metrics, "best_rate_MBps"), v);
    return -ENOENT;
}

static const sc_metric_def sc__metrics[] = {
    {"copy", NULL, "MB/s", SC_METRIC_HIGHER,
     "metrics.rates.copy (best MB/s of the timed repetitions)", sc__rd_stream, "copy"},
    {"scale", NULL, "MB/s", SC_METRIC_HIGHER, "metrics.rates.scale", sc__rd_stream, "scale"},
    {"add", NULL, "MB/s", SC_METRIC_HIGHER, "metrics.rates.add", sc__rd_stream, "add"},
    {"triad", NULL, "MB/s", SC_METRIC_HIGHER, "metrics.rates.triad", sc__rd_stream, "triad"},
};

/* The card's one function, or all four. */
static size_t sc__metric_defaults(const sc_card *card, json_object *results, unsigned which,
                                  sc_metric *out, size_t max)
{
    size_t n = 0;

    (void)results;
    (void)which;
    if (card->kernel && strcmp(card->kernel, "all") != 0)
        sc__metric_add(&sc__workload_stream, card->kernel, out, max, &n);
    else
        for (size_t i = 0; i < sizeof(sc__metrics) / sizeof(sc__metrics[0]); i++)
            sc__metric_add(&sc__workload_stream, sc__metrics[i].pattern, out, max, &n);
    return n;
}

/* The card's one function, or triad for all four. */
static int sc__metric_primary(const sc_card *card, json_object *results, sc_metric *out)
{
    const char *k = card->kernel && strcmp(card->kernel, "all") != 0 ? card->kernel : "triad";
    size_t n = 0;

    (void)results;
    sc__metric_add(&sc__workload_stream, k, out, 1, &n);
    return n ? 0 : -ENOENT;
}

/* A study of STREAM ranks by the same function as compare. */
static int sc__metric_study(const sc_card *card, sc_metric *out)
{
    return sc__metric_primary(card, NULL, out) == 0 ? 0 : -EINVAL;
}

const sc_workload_ops sc__workload_stream = {
    .id = SC_WORKLOAD_STREAM,
    .name = "stream",
    .program = "streamcard-stream",
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
