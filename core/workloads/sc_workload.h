/*
 * sc_workload.h: the workloads as modules (doc/design.md, "Workloads as modules").
 *
 * Each workload is one sc_workload_ops in its own folder (core/workloads/<name>/), and the
 * table (table.c) lists them in the order of this enum. Everything else asks the table
 * (sc_workload_ops_of(), sc_workload_lookup()) and calls the ops; no other file names a
 * workload. A hook left NULL means the workload has nothing to add there.
 */
#ifndef SC_WORKLOAD_H
#define SC_WORKLOAD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The workloads, in table order; NONE is a card that names none. */
typedef enum sc_workload {
    SC_WORKLOAD_NONE = 0,
    SC_WORKLOAD_STREAM,
    SC_WORKLOAD_IPSEARCH,
    SC_WORKLOAD_MPI_PINGPONG,
    SC_WORKLOAD_COUNT
} sc_workload;

struct sc_card;
struct sc_metric;
struct sc_metric_def;

typedef struct sc_workload_ops {
    sc_workload id;
    const char *name;    /* as the card's workload: spells it ("mpi-pingpong") */
    const char *program; /* the kernel streamcard runs ("streamcard-stream") */

    /* Metrics (sc_metric.h): the families its results.json holds, in registry order. */
    const struct sc_metric_def *metrics;
    size_t n_metrics;
    /* The metrics a card's question is about (SC_METRIC_ALL or SC_METRIC_HEADLINE), at
       most max into out; how many. */
    size_t (*metric_defaults)(const struct sc_card *card, json_object *results, unsigned which,
                              struct sc_metric *out, size_t max);
    /* The one metric compare and classify judge by default: 0, or -ENOENT. */
    int (*metric_primary)(const struct sc_card *card, json_object *results,
                          struct sc_metric *out);
    /* The metric an ablation study ranks its steps by, when the card names none. */
    int (*metric_study)(const struct sc_card *card, struct sc_metric *out);
} sc_workload_ops;

/* The module of w; NULL for SC_WORKLOAD_NONE or a value outside the enum. */
const sc_workload_ops *sc_workload_ops_of(sc_workload w);

/* The module whose name is name; NULL when none is. */
const sc_workload_ops *sc_workload_lookup(const char *name);

/* w's name, "none" when w names no workload. */
const char *sc_workload_name(sc_workload w);

/* Every workload's name in table order, joined by sep ("stream, ipsearch, mpi-pingpong"). */
void sc_workload_names(const char *sep, char *buf, size_t len);

#endif
