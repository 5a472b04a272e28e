/*
 * sc_metric.h: the figures runs are judged and compared by (doc/contracts/analysis.md, "Metrics"):
 * one registry of names, each with its unit, its direction (higher or lower is better), the
 * workload whose results hold it and how its value is read from a bundle's results.json.
 * compare, classify, report, export and the sweep table choose their figures only here.
 *
 * Names: copy, scale, add, triad (STREAM, MB/s, higher), qps (ipsearch, queries/s, higher),
 * thread_seconds (ipsearch's total thread time, s, lower), latency_<size> (mpi-pingpong,
 * us, lower) and bw_<size> (mpi-pingpong, MB/s, higher), where <size> is a message size:
 * 8B, 4KiB, 1MiB, 1GiB (any spelling of a size names the same metric: bw_1048576B is
 * bw_1MiB). There is no "best of" figure: each metric is one measured quantity.
 */
#ifndef SC_METRIC_H
#define SC_METRIC_H

#include "sc_card.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define SC_METRIC_NAME_MAX 32
/* The longest unit a metric carries, with its NUL (a card's units are checked to fit). */
#define SC_METRIC_UNIT_MAX 24
/* At most this many metrics in one bundle: 4 STREAM functions, ipsearch's 2, or the
   latency and bandwidth of up to 31 message sizes (0 B and 1 B to 1 GiB). */
#define SC_METRIC_MAX 64

typedef enum sc_metric_better {
    SC_METRIC_HIGHER = 0,
    SC_METRIC_LOWER,
} sc_metric_better;

/* One metric, resolved from its name. */
typedef struct sc_metric {
    char name[SC_METRIC_NAME_MAX]; /* canonical: "copy", "latency_8B", "bw_1MiB" */
    char unit[SC_METRIC_UNIT_MAX]; /* "MB/s", "queries/s", "s", "us", or the card's */
    sc_metric_better better;
    sc_workload workload;     /* the workload whose results.json holds it */
    unsigned long long bytes; /* latency_ and bw_: the message size */
    unsigned family;          /* its row in the workload's metrics (internal) */
    bool declared;            /* declared by the bundle's card (exec's metrics:), not the
                                 registry: its name, unit and direction are the card's */
    bool primary;             /* declared primary: true (the one compare and classify judge) */
} sc_metric;

/* Which of a card's metrics sc_metric_defaults() gives. */
enum {
    SC_METRIC_ALL = 0,      /* every metric the card's question is about */
    SC_METRIC_HEADLINE = 1, /* a few for a summary row: mpi-pingpong's latency at the
                               smallest size and bandwidth at the largest only */
};

/* Resolves name into *m. Returns 0, or -EINVAL when no metric has that name. */
int sc_metric_lookup(const char *name, sc_metric *m);

/*
 * The registry's families, for help texts and doc/contracts/analysis.md: the index-th one's name
 * pattern ("copy", "latency_<size>"), or NULL after the last. Any out pointer may be NULL:
 * its unit, "higher" or "lower", its workload's name and where results.json holds it.
 */
const char *sc_metric_family(size_t index, const char **unit, const char **better,
                             const char **workload, const char **source);

/*
 * The value of m in a bundle's results.json (the root object): its one run's, or the
 * median over its runs (runs: N or auto; sc_stats.h). Returns 0, or -ENOENT when the
 * bundle does not hold it (another workload or kernel, a size not measured, a value that
 * is not a finite number).
 */
int sc_metric_value(const sc_metric *m, json_object *results, double *value);

/*
 * The samples of m, one per run of the workload the bundle holds (results.json's "runs",
 * or its top level for a bundle of schema 1), into out (at most max). Returns how many; 0
 * when the bundle does not hold m. Statistics over runs (medians, intervals, the ratio of
 * two bundles) start from these.
 */
size_t sc_metric_samples(const sc_metric *m, json_object *results, double *out, size_t max);

/*
 * The metrics a bundle is compared by when no --metric names one, from its card: stream
 * the card's kernel (kernel all: copy, scale, add and triad, each on its own); ipsearch
 * qps; mpi-pingpong the latency at the smallest size (kernel pingpong) and the bandwidth
 * at every size results.json holds (SC_METRIC_HEADLINE: at the largest). Fills out (at
 * most max) and returns how many.
 */
size_t sc_metric_defaults(const sc_card *card, json_object *results, unsigned which, sc_metric *out,
                          size_t max);

/*
 * The workload's primary metric for a card: the one figure compare, classify and a paired
 * run judge when no --metric names others (doc/contracts/analysis.md, "Metrics"): stream the card's
 * kernel (triad for kernel all); ipsearch qps; mpi-pingpong the bandwidth at expect.at_bytes
 * when the card asks for a rate there (expect.at_bytes or expect.min_rate_MBps given; the
 * size defaults to max_bytes), else the latency at the smallest size (kernel pingpong) or
 * the bandwidth at the largest (uniband). Sizes measured come from results (may be NULL).
 * Returns 0, or -ENOENT for a card without a workload.
 */
int sc_metric_primary(const sc_card *card, json_object *results, sc_metric *out);

/* The metric an ablation study of card ranks its steps by when the card names none: the
   workload's (STREAM: as sc_metric_primary(); ipsearch: thread_seconds; mpi-pingpong: the
   latency at min_bytes). 0, or -EINVAL. */
int sc_metric_study(const sc_card *card, sc_metric *out);

/* Every metric results.json holds, in registry order (for export), then the ones card
   declares (exec's metrics:; card may be NULL: none). Returns how many. */
size_t sc_metric_available(const sc_card *card, json_object *results, sc_metric *out, size_t max);

/*
 * The metrics a card declares (exec's metrics:, sc_card.h) as metrics of the registry: each
 * its name, unit and direction, read from results.json's metrics by its name. Fills out (at
 * most max) and returns how many; 0 for a card that declares none.
 */
size_t sc_metric_declared(const sc_card *card, sc_metric *out, size_t max);

/*
 * The figures in a bundle's results.json of a program we did not write (exec) that its card
 * does not declare: what it reported with sc_marker_figure() under another name. Each as a
 * metric sc_metric_value() reads, of no unit, and not declared: its direction is not known,
 * so compare shows it and judges nothing by it (doc/markers.md, "Figures the card does not
 * declare"). Fills out (at most max) and returns how many.
 */
size_t sc_metric_undeclared(const sc_card *card, json_object *results, sc_metric *out, size_t max);

/* The metric called name for card: one its metrics: declare, else the registry's (card may
   be NULL: the registry's). 0, or -EINVAL when neither has it. */
int sc_metric_lookup_card(const sc_card *card, const char *name, sc_metric *m);

/* The metric called name among the n of set (sc_bundle_facts' metrics): 0, or -EINVAL. */
int sc_metric_find(const sc_metric *set, size_t n, const char *name, sc_metric *m);

/*
 * Whether two bundles' cards declare the same metrics (sc_metric_declared(): name, unit and
 * direction; the registry's own are the same everywhere): true, or false with the first
 * difference in why ("metric rate: unit GB/s in A, MB/s in B"). compare, classify and the
 * paired runs (sc_pair_against(), sc_pair_differences_ok()) refuse two that differ; a pair
 * also two whose primary differs (its one verdict is by the primary).
 */
bool sc_metric_same_declared(const sc_metric *a, size_t na, const sc_metric *b, size_t nb,
                             char *why, size_t len);

/*
 * How much worse value is than base, in percent of base, for m's direction: positive
 * when worse, negative when better; 0 when base is not positive.
 */
double sc_metric_loss(const sc_metric *m, double base, double value);

/* The plain percent change from base to value; 0 when base is not positive. */
double sc_metric_change(double base, double value);

/* A message size as metric names spell it: 8B, 4KiB, 1MiB, 1GiB, 1536B. */
void sc_metric_size_name(unsigned long long bytes, char *buf, size_t len);

#endif
