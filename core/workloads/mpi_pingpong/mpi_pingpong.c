/*
 * mpi_pingpong.c: the MPI workload (mpi/): ping-pong latency or windowed bandwidth
 * (uniband) between rank pairs, over doubling message sizes, launched by mpirun or srun.
 */
#include "sc_card.h"
#include "sc_metric_def.h"

#include <errno.h>
#include <string.h>

extern const sc_workload_ops sc__workload_mpi_pingpong;

static const sc_metric_def sc__metrics[] = {
    {"latency_<size>", "latency_", "us", SC_METRIC_LOWER,
     "metrics.sizes[bytes = size].t_usec (half a round trip; kernel pingpong)",
     sc__metric_rd_size, "t_usec"},
    {"bw_<size>", "bw_", "MB/s", SC_METRIC_HIGHER, "metrics.sizes[bytes = size].MBps",
     sc__metric_rd_size, "MBps"},
};

static bool sc__pingpong(const sc_card *card)
{
    return !card->kernel || strcmp(card->kernel, "pingpong") == 0;
}

/* Latency at the smallest size (pingpong), bandwidth at every size (the headline: the
   largest only). */
static size_t sc__metric_defaults(const sc_card *card, json_object *results, unsigned which,
                                  sc_metric *out, size_t max)
{
    const sc_workload_ops *ops = &sc__workload_mpi_pingpong;
    unsigned long long sizes[SC_METRIC_MAX];
    size_t n = 0, ns = sc__metric_sizes(results, sizes, SC_METRIC_MAX);

    if (ns == 0) { /* nothing measured: the card's smallest and largest sizes */
        sizes[ns++] = card->min_bytes;
        if (card->max_bytes != card->min_bytes)
            sizes[ns++] = card->max_bytes;
    }
    if (sc__pingpong(card))
        sc__metric_add_sized(ops, "latency_", sizes[0], out, max, &n);
    for (size_t i = which == SC_METRIC_HEADLINE ? ns - 1 : 0; i < ns; i++)
        sc__metric_add_sized(ops, "bw_", sizes[i], out, max, &n);
    return n;
}

/* The bandwidth the card expects at its size; else pingpong's latency at the smallest
   size, uniband's bandwidth at the largest. */
static int sc__metric_primary(const sc_card *card, json_object *results, sc_metric *out)
{
    const sc_workload_ops *ops = &sc__workload_mpi_pingpong;
    unsigned long long sizes[SC_METRIC_MAX];
    size_t n = 0;

    if (card->present[SC_CF_EXPECT_AT_BYTES] || card->expect_min_rate_MBps > 0) {
        sc__metric_add_sized(ops, "bw_",
                             card->present[SC_CF_EXPECT_AT_BYTES] ? card->expect_at_bytes
                                                                  : card->max_bytes,
                             out, 1, &n);
    } else {
        size_t ns = sc__metric_sizes(results, sizes, SC_METRIC_MAX);
        unsigned long long lo = ns ? sizes[0] : card->min_bytes;
        unsigned long long hi = ns ? sizes[ns - 1] : card->max_bytes;
        bool pingpong = sc__pingpong(card);
        sc__metric_add_sized(ops, pingpong ? "latency_" : "bw_", pingpong ? lo : hi, out, 1, &n);
    }
    return n ? 0 : -ENOENT;
}

/* A study of MPI ranks by the latency at the card's smallest size. */
static int sc__metric_study(const sc_card *card, sc_metric *out)
{
    size_t n = 0;

    sc__metric_add_sized(&sc__workload_mpi_pingpong, "latency_", card->min_bytes, out, 1, &n);
    return n ? 0 : -EINVAL;
}

const sc_workload_ops sc__workload_mpi_pingpong = {
    .id = SC_WORKLOAD_MPI_PINGPONG,
    .name = "mpi-pingpong",
    .program = "streamcard-pingpong",
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
