/*
 * stream.c: the STREAM workload (kernels/stream): copy, scale, add, triad over three arrays.
 */
#include "sc_caches.h"
#include "sc_card_schema.h"
#include "sc_fact_rates.h"
#include "sc_metric_def.h"
#include "sc_gates.h"
#include "sc_num.h"
#include "sc_results_protocol.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

extern const sc_workload_ops sc__workload_stream;

static const sc_card_field sc__keys[] = {
    SC_CF_KERNEL,    SC_CF_MEMORY_NODE,    SC_CF_ARRAY_SIZE,      SC_CF_ITERATIONS,
    SC_CF_NT_STORES, SC_CF_CACHE_RESIDENT, SC_CF_EXPECT_MIN_RATE,
};
static const char *const sc__kernels[] = {"copy", "scale", "add", "triad", "all", NULL};

static int sc__defaults(sc_card *card)
{
    if (!card->present[SC_CF_ARRAY_SIZE])
        card->array_size = 10000000;
    if (!card->present[SC_CF_ITERATIONS])
        card->iterations = 10;
    return sc__card_default_string(&card->kernel, "all");
}

static void sc__layout_name(const sc_card *card, char *buf, size_t len)
{
    snprintf(buf, len, "stream_%s_%ldthread", card->kernel, card->threads);
}

/* Three arrays of doubles. */
static uint64_t sc__memory_bytes(const sc_card *card)
{
    return card->array_size * 3 * sizeof(double);
}

static double sc__gib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

static void sc__memory_refused(const sc_card *card, uint64_t need, uint64_t have, uint64_t limit,
                               const char *place, sc_diag *diag)
{
    char where[512];

    sc_diag_addf(diag,
                 "%s: array_size: %llu needs %.1f GiB for 3 arrays of 8-byte elements but %s "
                 "has %.1f GiB (valid: at most %llu, 90%% of it)",
                 sc__card_where(card, SC_CF_ARRAY_SIZE, where, sizeof(where)),
                 (unsigned long long)card->array_size, sc__gib(need), place, sc__gib(have),
                 (unsigned long long)(limit / 24));
}

static void sc__args(const sc_card *c, sc_strv *a)
{
    sc_strv_opt(a, "--kernel", "%s", c->kernel);
    sc_strv_opt(a, "--array-size", "%llu", (unsigned long long)c->array_size);
    sc_strv_opt(a, "--iterations", "%ld", c->iterations);
    sc_strv_opt(a, "--nt-stores", "%s", c->nt_stores);
}

static void sc__describe(const sc_card *c, FILE *out)
{
    if (!c->array_size)
        fprintf(out,
                "  sizes:       array_size auto (the cache probe decides when the run starts), "
                "iterations %ld, nt_stores %s\n",
                c->iterations, c->nt_stores);
    else
        fprintf(out,
                "  sizes:       array_size %llu (%.1f MiB for 3 arrays), iterations %ld, "
                "nt_stores %s\n",
                (unsigned long long)c->array_size, (double)sc__memory_bytes(c) / 1048576.0,
                c->iterations, c->nt_stores);
}

/* kernels/stream.c's arrays hold double; its header line says so ("8 bytes per array
   element"). */
#define SC__STREAM_ELEMENT_BYTES 8.0

/* STREAM's bytes per element index for each function (stream.c's table: copy and scale
   read one array and write one, add and triad read two and write one). */
static const struct {
    const char *name;
    double arrays;
} sc__stream_bytes[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}};

static double sc__stream_arrays(const char *name)
{
    for (size_t i = 0; i < sizeof(sc__stream_bytes) / sizeof(sc__stream_bytes[0]); i++)
        if (!strcasecmp(name, sc__stream_bytes[i].name))
            return sc__stream_bytes[i].arrays;
    return 0;
}

static void sc__verify_derived(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    for (size_t i = 0; i < t->n_rows; i++) {
        const sc_table_row *row = &t->rows[i];
        double arrays = sc__stream_arrays(row->name);
        if (arrays == 0) {
            sc_diag_addf(problems, "stream.log: a %s row, which is not a STREAM function",
                         row->name);
            continue;
        }
        /* MB/s = 1e-6 x bytes / fastest time; the table prints 1 decimal and 6 for times. */
        double mb = 1e-6 * arrays * SC__STREAM_ELEMENT_BYTES * (double)card->array_size;
        if (!sc_tracelog_quotient_shows(row->best_rate_MBps, 0.1, mb, row->min_s, 1e-6))
            sc_diag_addf(problems,
                         "stream.log: %s %.1f MB/s, but %g MB over its min time %.6f s is "
                         "%.1f MB/s",
                         row->name, row->best_rate_MBps, mb, row->min_s,
                         row->min_s > 0 ? mb / row->min_s : 0.0);
    }
}

/* STREAM's table prints each function's times with 6 decimals. */
static bool sc__rep_times(const sc_tracelog *t, const char *name, double shown[4])
{
    const sc_table_row *row = sc_tracelog_row(t, name);

    if (!row)
        return false;
    shown[0] = row->min_s;
    shown[1] = row->avg_s;
    shown[2] = row->max_s;
    shown[3] = 1e-6;
    return true;
}

/* One row per function run: all is four. */
static size_t sc__table_rows(const sc_card *card)
{
    return card->kernel && strcmp(card->kernel, "all") != 0 ? 1 : 4;
}

/* STREAM's rule: a timed repetition lasts at least this many clock ticks. */
#define SC__TIMER_TICKS 20
static bool sc__cache_accepted(const sc_card *card)
{
    return card->cache_resident && strcmp(card->cache_resident, "accept") == 0;
}

/* What the stream_array rule holds an array against, as its notes say it. */
static void sc__cache_basis(const sc_llc *llc, char *buf, size_t len)
{
    double reported = (double)llc->bytes / 1048576.0;

    if (!llc->untrusted)
        snprintf(buf, len, "the %.1f MiB of L%u cache of cpu_list", reported, llc->level);
    else if (llc->edge_bytes)
        snprintf(buf, len,
                 "the last cache's edge, measured at %.1f MiB by %u threads (reported L%u "
                 "%.1f MiB, unverified)",
                 (double)llc->edge_bytes / 1048576.0, llc->probe_threads, llc->level, reported);
    else
        snprintf(buf, len, "the %.1f MiB of L%u cache reported (unverified, and %s)", reported,
                 llc->level, llc->n_points ? "the probe showed no edge" : "no probe was kept");
}

/* STREAM's rule: each array at least 4x the last-level caches of cpu_list (sc_caches.h). */
static void sc__gate_stream_array(const sc_card *card, const sc_evidence *ev, sc_gate *g)
{
    double mib = 8.0 * (double)card->array_size / 1048576.0;
    char basis[256];
    sc_llc llc;
    int rc;

    if ((rc = sc_caches_parse(ev->caches, &llc)) < 0) {
        if (rc == -EBADMSG)
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: platform/caches.txt's probe does not hold "
                        "together (malformed points, or an edge its points do not give)");
        else if (sc__cache_accepted(card))
            sc_gate_set(g, SC_GATE_OK,
                        "the card accepts a cache-resident array (cache_resident: "
                        "accept); the last-level cache was not recorded");
        else
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: platform/caches.txt does not "
                        "give the last-level caches of cpu_list");
        return;
    }
    sc__cache_basis(&llc, basis, sizeof(basis));
    uint64_t need = sc_caches_min_array_size(&llc);
    if (card->array_size >= need)
        sc_gate_set(g, SC_GATE_OK, "each array %.1f MiB >= %d x %s", mib, SC_CACHES_ARRAY_FACTOR,
                    basis);
    else if (sc__cache_accepted(card))
        sc_gate_set(g, SC_GATE_OK,
                    "accepted by the card (cache_resident: accept): each array %.1f MiB is "
                    "below %d x %s, so the rates are a cache's, not memory's",
                    mib, SC_CACHES_ARRAY_FACTOR, basis);
    else
        sc_gate_set(g, SC_GATE_FAIL,
                    "each array %.1f MiB is below %d x %s: the rates measure the cache, not "
                    "memory (valid: array_size >= %llu, %.2f GiB for 3 arrays; array_size: "
                    "auto; or cache_resident: accept)",
                    mib, SC_CACHES_ARRAY_FACTOR, basis, (unsigned long long)need,
                    3.0 * 8.0 * (double)need / 1073741824.0);
}

/* STREAM's rule: every function's fastest repetition lasts at least 20 clock ticks. */
static void sc__gate_stream_timer(const sc_card *card, const sc_tracelog *t, sc_gate *g)
{
    const sc_table_row *fastest = NULL;

    for (size_t i = 0; i < t->n_rows; i++)
        if (!fastest || t->rows[i].min_s < fastest->min_s)
            fastest = &t->rows[i];
    if (t->clock_granularity_us <= 0 || !fastest) {
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no %s in stream.log",
                    !fastest ? "result table" : "clock granularity");
        return;
    }
    double us = fastest->min_s * 1e6, need = SC__TIMER_TICKS * (double)t->clock_granularity_us;
    if (us + 0.5 >= need) /* the table prints whole microseconds */
        sc_gate_set(g, SC_GATE_OK, "the fastest repetition (%s) took %.0f us >= %d ticks of %ld us",
                    fastest->name, us, SC__TIMER_TICKS, t->clock_granularity_us);
    else if (sc__cache_accepted(card))
        sc_gate_set(g, SC_GATE_OK,
                    "accepted by the card (cache_resident: accept): the fastest repetition (%s) "
                    "took %.0f us, below %d ticks of %ld us",
                    fastest->name, us, SC__TIMER_TICKS, t->clock_granularity_us);
    else
        sc_gate_set(g, SC_GATE_FAIL,
                    "the fastest repetition (%s) took %.0f us, below %d ticks of the %ld us clock: "
                    "too short to time (valid: a larger array_size)",
                    fastest->name, us, SC__TIMER_TICKS, t->clock_granularity_us);
}

/* STREAM's rules: arrays outside the caches, repetitions longer than the clock's tick. */
static const sc_gate_id sc__gates[] = {SC_GATE_STREAM_ARRAY, SC_GATE_STREAM_TIMER};

/* Its gates, null for a run of another workload. */
static void sc__gate(sc_gate_id id, const sc_card *card, const sc_evidence *ev,
                     const sc_tracelog *t, sc_gate *g)
{
    if (card->workload != sc__workload_stream.id)
        sc_gate_set(g, SC_GATE_NULL, "not a STREAM run");
    else if (id == SC_GATE_STREAM_ARRAY)
        sc__gate_stream_array(card, ev, g);
    else if (id == SC_GATE_STREAM_TIMER)
        sc__gate_stream_timer(card, t, g);
}

/* STREAM: one row per function from "rates"/"times", or the single best_rate_MBps. */
static void sc__facts(sc_bundle_facts *f, json_object *metrics, const sc_card *card)
{
    json_object *rates, *times, *t;
    sc_fact_rate *r;

    if (metrics && json_object_object_get_ex(metrics, SC_RESULT_RATES, &rates) &&
        json_object_is_type(rates, json_type_object)) {
        json_object_object_get_ex(metrics, SC_RESULT_TIMES, &times);
        json_object_object_foreach(rates, name, rate)
        {
            if (!(r = sc__fact_rate_add(f, name)))
                break;
            if (sc_num_json(rate, &r->MBps) < 0)
                r->MBps = 0;
            t = NULL;
            if (times && json_object_object_get_ex(times, name, &t)) {
                r->avg_s = sc__fact_num(t, SC_RESULT_AVG_TIME_S);
                r->min_s = sc__fact_num(t, SC_RESULT_MIN_TIME_S);
                r->max_s = sc__fact_num(t, SC_RESULT_MAX_TIME_S);
            }
            sc__fact_rate_reps(r, metrics, card->iterations);
        }
    } else if (sc__fact_num(metrics, SC_RESULT_BEST_RATE_MBPS) > 0 &&
               (r = sc__fact_rate_add(f, card->kernel ? card->kernel : "best"))) {
        r->MBps = sc__fact_num(metrics, SC_RESULT_BEST_RATE_MBPS);
        r->avg_s = sc__fact_num(metrics, SC_RESULT_AVG_TIME_S);
        r->min_s = sc__fact_num(metrics, SC_RESULT_MIN_TIME_S);
        r->max_s = sc__fact_num(metrics, SC_RESULT_MAX_TIME_S);
    }
}

/* A STREAM function's best rate: metrics.rates.<key>, or the one kernel's best_rate_MBps. */
static int sc__rd_stream(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v)
{
    (void)m;
    if (sc__metric_finite(sc__metric_get(sc__metric_get(metrics, SC_RESULT_RATES), key), v) == 0)
        return 0;
    if (kernel && strcmp(kernel, key) == 0)
        return sc__metric_finite(sc__metric_get(metrics, SC_RESULT_BEST_RATE_MBPS), v);
    return -ENOENT;
}

static const sc_metric_def sc__metrics[] = {
    {"copy", NULL, "MB/s", SC_METRIC_HIGHER,
     "metrics.rates.copy (best MB/s of the timed repetitions)", sc__rd_stream, "copy", false},
    {"scale", NULL, "MB/s", SC_METRIC_HIGHER, "metrics.rates.scale", sc__rd_stream, "scale", false},
    {"add", NULL, "MB/s", SC_METRIC_HIGHER, "metrics.rates.add", sc__rd_stream, "add", false},
    {"triad", NULL, "MB/s", SC_METRIC_HIGHER, "metrics.rates.triad", sc__rd_stream, "triad", false},
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
    .keys = sc__keys,
    .n_keys = sizeof(sc__keys) / sizeof(sc__keys[0]),
    .kernels = sc__kernels,
    .defaults = sc__defaults,
    .layout_name = sc__layout_name,
    .memory_bytes = sc__memory_bytes,
    .memory_refused = sc__memory_refused,
    .args = sc__args,
    .describe = sc__describe,
    .table_rows = sc__table_rows,
    .gates = sc__gates,
    .n_gates = sizeof(sc__gates) / sizeof(sc__gates[0]),
    .gate = sc__gate,
    .facts = sc__facts,
    .verify_derived = sc__verify_derived,
    .rep_times = sc__rep_times,
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
