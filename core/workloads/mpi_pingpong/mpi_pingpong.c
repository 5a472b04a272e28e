/*
 * mpi_pingpong.c: the MPI workload (mpi/): ping-pong latency or windowed bandwidth
 * (uniband) between rank pairs, over doubling message sizes, launched by mpirun or srun.
 */
#include "sc_card_schema.h"
#include "sc_hostlist.h"
#include "sc_linkmatrix.h"
#include "sc_metric_def.h"

#include "sc_num.h"
#include "sc_results_protocol.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern const sc_workload_ops sc__workload_mpi_pingpong;

static const sc_card_field sc__keys[] = {
    SC_CF_KERNEL,
    SC_CF_ITERATIONS,
    SC_CF_RANKS,
    SC_CF_MIN_BYTES,
    SC_CF_MAX_BYTES,
    SC_CF_WINDOW,
    SC_CF_PAIRS,
    SC_CF_OUTLIER_MAD,
    SC_CF_OUTLIER_MIN_PCT,
    SC_CF_PASSES,
    SC_CF_EXPECT_TRANSPORT,
    SC_CF_EXPECT_INTERFACE,
    SC_CF_EXPECT_MIN_RATE,
    SC_CF_EXPECT_AT_BYTES,
    SC_CF_EXPECT_MAX_LATENCY,
};
static const char *const sc__kernels[] = {"pingpong", "uniband", NULL};

/* pairs: all: every pair of the job's nodes, one rank each. */
static bool sc__pairs_all(const sc_card *card)
{
    return card->pairs && strcmp(card->pairs, "all") == 0;
}

static int sc__defaults(sc_card *card)
{
    if (!card->present[SC_CF_RANKS])
        card->ranks = 2;
    if (!card->present[SC_CF_MIN_BYTES])
        card->min_bytes = 1;
    if (!card->present[SC_CF_MAX_BYTES])
        card->max_bytes = 4u << 20;
    if (!card->present[SC_CF_ITERATIONS])
        card->iterations = 1000;
    if (sc__card_default_string(&card->kernel, "pingpong") < 0 ||
        sc__card_default_string(&card->pairs, "first") < 0)
        return -ENOMEM;
    /* pairs: all runs one rank per node: the nodes' count, or 0 for the allocation's
       (the wrapper reads it from Slurm) */
    if (!card->present[SC_CF_RANKS] && sc__pairs_all(card))
        card->ranks = card->nodes ? (long)sc_hostlist_count(card->nodes) : 0;
    /* a link matrix's noise guard: what one pass shows and the others do not is not a
       fault to drain (doc/contracts/analysis.md, "Link matrix") */
    if (!card->present[SC_CF_PASSES] && sc__pairs_all(card))
        card->passes = SC_LINKMATRIX_PASSES_DEFAULT;
    /* Only uniband has a window (0: none); its default is the kernel's. */
    if (!card->present[SC_CF_WINDOW] && strcmp(card->kernel, "uniband") == 0)
        card->window = 64;
    return 0;
}

/*
 * pairs: first is one pair (exactly 2 ranks); the outlier bounds judge a link matrix, so
 * they belong to pairs: all (doc/contracts/analysis.md, "Link matrix").
 */
static void sc__check_pairs(const sc_card *card, sc_diag *diag, int *errors)
{
    bool all = sc__pairs_all(card);
    char where[512];

    if (card->invalid[SC_CF_PAIRS])
        return;
    bool given = card->present[SC_CF_RANKS] && !card->invalid[SC_CF_RANKS];
    if (given && card->ranks < 2) { /* the schema's minimum is exec's: one MPI rank */
        sc_diag_addf(diag,
                     "%s: ranks: %ld rank has no partner to ping-pong with (valid: 2, or with "
                     "pairs: all one per node, 2 to 4096)",
                     sc__card_where(card, SC_CF_RANKS, where, sizeof(where)), card->ranks);
        (*errors)++;
        return;
    }
    if (!all && given && card->ranks != 2) {
        sc_diag_addf(diag, "%s: ranks: %ld ranks make more than one pair (valid: 2, or pairs: all)",
                     sc__card_where(card, SC_CF_RANKS, where, sizeof(where)), card->ranks);
        (*errors)++;
    }
    for (sc_card_field f = SC_CF_OUTLIER_MAD; f <= SC_CF_PASSES; f++)
        if (!all && card->present[f] && !card->invalid[f]) {
            sc_diag_addf(diag, "%s: %s: only with pairs: all (valid: pairs: all, or no %s)",
                         sc__card_where(card, f, where, sizeof(where)), sc_card_field_name(f),
                         sc_card_field_name(f));
            (*errors)++;
        }
    if (all && card->present[SC_CF_NODES] && card->present[SC_CF_RANKS] &&
        !card->invalid[SC_CF_RANKS] && card->nodes &&
        (unsigned long)card->ranks != sc_hostlist_count(card->nodes)) {
        sc_diag_addf(diag, "%s: ranks: %ld with pairs: all is one rank per node of %s (valid: %lu)",
                     sc__card_where(card, SC_CF_RANKS, where, sizeof(where)), card->ranks,
                     card->nodes, sc_hostlist_count(card->nodes));
        (*errors)++;
    }
}

static void sc__check(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];

    if (!card->invalid[SC_CF_MIN_BYTES] && !card->invalid[SC_CF_MAX_BYTES] &&
        card->min_bytes > card->max_bytes) {
        sc_diag_addf(diag, "%s: min_bytes: %llu is more than max_bytes %llu (valid: 0-%llu)",
                     sc__card_where(card, SC_CF_MIN_BYTES, where, sizeof(where)),
                     (unsigned long long)card->min_bytes, (unsigned long long)card->max_bytes,
                     (unsigned long long)card->max_bytes);
        (*errors)++;
    }
    sc__check_pairs(card, diag, errors);
}

static void sc__layout_name(const sc_card *card, char *buf, size_t len)
{
    if (sc__pairs_all(card))
        snprintf(buf, len, "mpi_%s_allpairs", card->kernel);
    else
        snprintf(buf, len, "mpi_%s_%ldrank", card->kernel, card->ranks);
}

/* Send and receive buffers; uniband's receiver holds a window of messages. */
static uint64_t sc__memory_bytes(const sc_card *card)
{
    return card->max_bytes * (uint64_t)(2 + card->window) *
           (uint64_t)(card->ranks ? card->ranks : 2);
}

/* Ranks over the card's nodes; pairs: all one per node. */
static void sc__tasks(const sc_card *card, sc_card_tasks *t)
{
    bool all = sc__pairs_all(card);
    long nodes = card->nodes ? (long)sc_hostlist_count(card->nodes) : 1;

    t->ntasks = card->ranks > 0 || all ? card->ranks : 2;
    t->nodes = all ? t->ntasks : nodes > 0 ? nodes : 1;
    t->per_node = all ? 1 : (t->ntasks + t->nodes - 1) / t->nodes;
}

static bool sc__mpi(const sc_card *card)
{
    (void)card;
    return true;
}

static void sc__args(const sc_card *c, sc_strv *a)
{
    sc_strv_opt(a, "--kernel", "%s", c->kernel);
    sc_strv_opt(a, "--min-bytes", "%llu", (unsigned long long)c->min_bytes);
    sc_strv_opt(a, "--max-bytes", "%llu", (unsigned long long)c->max_bytes);
    sc_strv_opt(a, "--iterations", "%ld", c->iterations);
    if (c->window)
        sc_strv_opt(a, "--window", "%ld", c->window);
    if (sc__pairs_all(c)) {
        sc_strv_opt(a, "--pairs", "%s", "all");
        sc_strv_opt(a, "--passes", "%ld", c->passes > 0 ? c->passes : 1);
    }
}

static void sc__describe(const sc_card *c, FILE *out)
{
    char window[48] = "";

    if (c->window)
        snprintf(window, sizeof(window), ", window %ld", c->window);
    fprintf(out, "  sizes:       %llu to %llu bytes (doubling), iterations %ld%s%s%s\n",
            (unsigned long long)c->min_bytes, (unsigned long long)c->max_bytes, c->iterations,
            window, c->expect_transport ? ", expected transport " : "",
            c->expect_transport ? c->expect_transport : "");
}

static void sc__verify_derived(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    (void)card;
    for (size_t i = 0; i < t->n_imb_rows; i++) {
        const sc_imb_row *r = &t->imb_rows[i];
        /* Mbytes/sec = bytes / t[usec] for both kernels (mpi/bench.h). */
        if (!sc_tracelog_quotient_shows(r->MBps, r->MBps_unit, (double)r->bytes, r->t_usec,
                                        r->t_usec_unit))
            sc_diag_addf(problems,
                         "stream.log: %llu bytes at %.2f Mbytes/sec, but over t[usec] %.2f "
                         "that is %.2f",
                         r->bytes, r->MBps, r->t_usec, r->t_usec > 0 ? r->bytes / r->t_usec : 0.0);
    }
}

/* The figure named key of a JSON object, compared with what the log printed. */
static void sc__check_number(json_object *obj, const char *key, double shown, double unit,
                             const char *what, sc_diag *problems)
{
    json_object *v;

    if (!json_object_object_get_ex(obj, key, &v) || !v)
        return;
    double claimed = NAN;
    sc_num_json(v, &claimed);
    if (!sc_tracelog_shows(claimed, shown, unit))
        sc_diag_addf(problems, "results.json: %s %s %.9g, but stream.log's table shows %.9g", what,
                     key, claimed, shown);
}

/* mpi-pingpong: each size's time and bandwidth, the 8-byte latency and the peak. */
static void sc__verify_results(json_object *metrics, const sc_tracelog *t, const sc_card *card,
                               const char *log, sc_diag *problems)
{
    (void)card;
    (void)log;
    json_object *sizes, *bytes;
    char what[64];

    if (json_object_object_get_ex(metrics, SC_RESULT_SIZES, &sizes) &&
        json_object_is_type(sizes, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(sizes); i++) {
            json_object *size = json_object_array_get_idx(sizes, i);
            if (!json_object_object_get_ex(size, "bytes", &bytes))
                continue;
            unsigned long long n = (unsigned long long)json_object_get_int64(bytes);
            const sc_imb_row *row = sc_tracelog_imb_row(t, n);
            if (!row) {
                sc_diag_addf(problems,
                             "results.json: a %llu-byte size, but stream.log's table "
                             "has no such row",
                             n);
                continue;
            }
            snprintf(what, sizeof(what), "%llu bytes:", n);
            sc__check_number(size, "repetitions", (double)row->repetitions, 1, what, problems);
            sc__check_number(size, "t_usec", row->t_usec, row->t_usec_unit, what, problems);
            sc__check_number(size, SC_RESULT_MBPS, row->MBps, row->MBps_unit, what, problems);
        }
    }
    const sc_imb_row *eight = sc_tracelog_imb_row(t, 8);
    json_object *latency;
    if (json_object_object_get_ex(metrics, "latency_usec_8B", &latency) && latency && !eight)
        sc_diag_addf(problems, "results.json: latency_usec_8B, but stream.log's table has no "
                               "8-byte row");
    else if (eight)
        sc__check_number(metrics, "latency_usec_8B", eight->t_usec, eight->t_usec_unit,
                         "latency:", problems);
    sc__check_number(metrics, "peak_MBps", t->imb_peak_MBps, 0.01, "peak:", problems);
}

static const sc_metric_def sc__metrics[] = {
    {"latency_<size>", "latency_", "us", SC_METRIC_LOWER,
     "metrics.sizes[bytes = size].t_usec (half a round trip; kernel pingpong)", sc__metric_rd_size,
     "t_usec", false},
    {"bw_<size>", "bw_", "MB/s", SC_METRIC_HIGHER, "metrics.sizes[bytes = size].MBps",
     sc__metric_rd_size, SC_RESULT_MBPS, false},
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
    .keys = sc__keys,
    .n_keys = sizeof(sc__keys) / sizeof(sc__keys[0]),
    .kernels = sc__kernels,
    .threads = 1, /* one thread per rank */
    .defaults = sc__defaults,
    .check = sc__check,
    .layout_name = sc__layout_name,
    .memory_bytes = sc__memory_bytes,
    .tasks = sc__tasks,
    .mpi = sc__mpi,
    .args = sc__args,
    .describe = sc__describe,
    .verify_derived = sc__verify_derived,
    .verify_results = sc__verify_results,
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
