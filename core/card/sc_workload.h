/*
 * sc_workload.h: the workloads as modules (doc/contracts/layout.md, "Workloads as modules").
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
#include <stdio.h>

#include "sc_card.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"
#include "sc_strv.h"
#include "sc_workload_id.h"

struct sc_metric;
struct sc_bundle_facts;
struct sc_evidence;
struct sc_metric_def;

typedef struct sc_workload_ops {
    sc_workload id;
    const char *name;    /* as the card's workload: spells it ("mpi-pingpong") */
    const char *program; /* the kernel streamcard runs ("streamcard-stream"); NULL: the
                            card's command, found by program_path */
    /* A program streamcard did not write (exec): it prints no trace lines, answers no
       --build-info and writes no results JSON. Its snapshots are taken at its first output or
       50 ms after its exec, its
       interference window is its whole life, and the gates judge the process
       (doc/contracts/layout.md, "Workloads as modules"). */
    bool foreign;
    /* Without a program of ours: the absolute path of the one the card names, malloc'd, into
     *path: 0, or -ENOENT (or -ENOMEM) with a line in diag saying what is wrong. */
    int (*program_path)(const struct sc_card *card, char **path, sc_diag *diag);

    /* Card (sc_card.h, doc/contracts/card.md "Checks"). The keys it reads besides the ones every
       workload reads: a key no module lists is every workload's; a listed key in the card
       of a workload that does not list it is refused. */
    const sc_card_field *keys;
    size_t n_keys;
    const char *const *kernels; /* kernel: values, NULL-terminated; NULL: no kernel key */
    long threads;               /* threads when the card gives none; 0: its CPUs' count */
    /* Values of the keys the card does not give: 0, or -ENOMEM. */
    int (*defaults)(struct sc_card *card);
    /* Again the defaults that follow threads, after one_per_core changed threads. */
    void (*follow_threads)(struct sc_card *card);
    /* The workload's own rules between keys: a line in diag and (*errors)++ per problem. */
    void (*check)(const struct sc_card *card, sc_diag *diag, int *errors);
    /* The default run name's part that says the layout: "ipsearch_2thread_4pool". */
    void (*layout_name)(const struct sc_card *card, char *buf, size_t len);
    /* The memory the sizes of the card take (bytes). */
    uint64_t (*memory_bytes)(const struct sc_card *card);
    /* The line that says need is more than limit, 90% of the have bytes of place; NULL:
       the sizes in general. */
    void (*memory_refused)(const struct sc_card *card, uint64_t need, uint64_t have, uint64_t limit,
                           const char *place, sc_diag *diag);
    /* The tasks Slurm is asked for (sc_card_tasks_of()); NULL: one task. */
    void (*tasks)(const struct sc_card *card, sc_card_tasks *t);

    /* Plan (wrapper/plan.c: the command line and environment of the run). */
    /* Whether the card's processes are MPI ranks, started by srun or mpirun and bound one
       to a CPU (evidence per rank, the transport); NULL: one process of OpenMP threads. */
    bool (*mpi)(const struct sc_card *card);
    /* The options after the program, from the checked card. */
    void (*args)(const struct sc_card *card, sc_strv *argv);
    /* --dry-run's line(s) of the workload's sizes ("  sizes:       ..."). */
    void (*describe)(const struct sc_card *card, FILE *out);

    /* Evidence and gates (doc/contracts/gates.md). The rows of the log's result table at most
       (sc_bounds.h); NULL: the table has no bound of its own. */
    size_t (*table_rows)(const struct sc_card *card);
    /* The gates only this workload can pass or fail (rows of sc_gate_table.h), and their
       judge, called for every run: null for another workload's. */
    const sc_gate_id *gates;
    size_t n_gates;
    void (*gate)(sc_gate_id id, const struct sc_card *card, const struct sc_evidence *ev,
                 const sc_tracelog *t, sc_gate *g);

    /* The rows of rates it adds to a bundle's facts from its results.json's metrics
       (sc_facts.h: what compare, report and export show of a run). */
    void (*facts)(struct sc_bundle_facts *f, json_object *metrics, const struct sc_card *card);

    /* Verify (doc/contracts/analysis.md): the workload's figures against its own log. */
    /* The log's derived figures recomputed from its raw ones: a problem per disagreement. */
    void (*verify_derived)(const sc_tracelog *t, const struct sc_card *card, sc_diag *problems);
    /* results.json's own figures (its metrics) against what the log printed (t parsed, log
       its text, "" for the bundle's object of several runs). */
    void (*verify_results)(json_object *metrics, const sc_tracelog *t, const struct sc_card *card,
                           const char *log, sc_diag *problems);
    /* A foreign program's own results, made from its log (its figures by the card's
       patterns) as the JSON a kernel writes: {"metrics": {...}}; malloc'd, NULL: none. */
    char *(*results_of_log)(const struct sc_card *card, const char *log);
    /* The workload's own check of its log, once the common validation held: the gate set
       to FAIL with why, or left as it is. */
    void (*validate)(const struct sc_card *card, const char *log, sc_gate *g);
    /* A foreign program's phases gate, once its snapshot was taken: from its log. */
    void (*phases)(const struct sc_card *card, const char *log, sc_gate *g);
    /* What the log printed of repetition list name: shown = {fastest, average, slowest (s),
       the digit they show}; false when the log shows none. */
    bool (*rep_times)(const sc_tracelog *t, const char *name, double shown[4]);

    /* Metrics (sc_metric.h): the families its results.json holds, in registry order. */
    const struct sc_metric_def *metrics;
    size_t n_metrics;
    /* The metrics a card's question is about (SC_METRIC_ALL or SC_METRIC_HEADLINE), at
       most max into out; how many. */
    size_t (*metric_defaults)(const struct sc_card *card, json_object *results, unsigned which,
                              struct sc_metric *out, size_t max);
    /* The one metric compare and classify judge by default: 0, or -ENOENT. */
    int (*metric_primary)(const struct sc_card *card, json_object *results, struct sc_metric *out);
    /* The metric an ablation study ranks its steps by, when the card names none. */
    int (*metric_study)(const struct sc_card *card, struct sc_metric *out);
} sc_workload_ops;

/* The module of w; NULL for SC_WORKLOAD_NONE or a value outside the enum. */
const sc_workload_ops *sc_workload_ops_of(sc_workload w);

/* The module whose name is name; NULL when none is. */
const sc_workload_ops *sc_workload_lookup(const char *name);

/* Whether some module lists key f: a workload's own parameter, not every workload's. */
bool sc_workload_own_key(sc_card_field f);

/* Whether the card of workload w reads key f (see keys above). */
bool sc_workload_reads(sc_workload w, sc_card_field f);

/* The names of the workloads that list key f, joined by sep, into buf. */
void sc_workload_readers(sc_card_field f, const char *sep, char *buf, size_t len);

/* Whether card's processes are MPI ranks (the module's mpi); false without a workload. */
bool sc_workload_mpi(const struct sc_card *card);

/* Whether card's program is one streamcard did not write (the module's foreign). */
bool sc_workload_foreign(const struct sc_card *card);

/* How a foreign program marks its main loop (the card's markers:, doc/markers.md). */
typedef enum sc_markers {
    SC_MARKERS_NONE,     /* the whole process: less precise */
    SC_MARKERS_PATTERNS, /* its output's lines matching begin_pattern and end_pattern */
    SC_MARKERS_LIBRARY,  /* its calls of streamcard/marker.h: the trace protocol's phases */
} sc_markers;

/* card's markers: as given, else patterns with begin_pattern, else none; for a workload of
   ours, SC_MARKERS_LIBRARY (it prints the trace protocol itself). */
sc_markers sc_workload_markers(const struct sc_card *card);

/* Whether card is an MPI program marked by its output's patterns: the ranks cannot see the
   log, so the observer accounts the card's CPUs of its own host over the patterns' window,
   and the interference gate takes that window for the ranks there (doc/markers.md). */
bool sc_workload_observer_window(const struct sc_card *card);

/* How card's main loop is captured, as results.json's "capture" and verify say it: the
   workload's phase markers; (foreign) the lines its card's begin_pattern and end_pattern
   match, or the whole process, which is less precise. */
const char *sc_workload_capture(const struct sc_card *card);

/* The modules in table order: NULL starts, NULL ends ("for (ops = NULL; (ops =
   sc_workload_next(ops));)"). */
const sc_workload_ops *sc_workload_next(const sc_workload_ops *prev);

/* w's name, "none" when w names no workload. */
const char *sc_workload_name(sc_workload w);

/* Every workload's name in table order, joined by sep ("stream, ipsearch, mpi-pingpong"). */
void sc_workload_names(const char *sep, char *buf, size_t len);

#endif
