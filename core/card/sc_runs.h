/*
 * sc_runs.h: a card's runs of its workload as separate processes in one bundle
 * (doc/contracts/run.md, "Runs"): where each run's files live, the figures each run gives, the
 * statistics over runs that results.json records, and when `runs: auto` stops. Both
 * `streamcard run` and `streamcard verify` use these, so verify recomputes every median,
 * interval and stopping decision.
 */
#ifndef SC_RUNS_H
#define SC_RUNS_H

#include "sc_card.h"
#include "sc_gate_table.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* The most runs a bundle holds (the card's runs and runs_max are at most this). */
#define SC_RUNS_MAX 1000

/* True when the card's runs keep the one-run layout (runs: 1): every file at the top. */
bool sc_runs_flat(const sc_card *card);

/*
 * The folder of run i (0-based) in the bundle: "" for the one-run layout, else "run-<i+1>".
 * Returns buf.
 */
const char *sc_runs_dir(const sc_card *card, size_t i, char *buf, size_t len);

/* A file of run i: "stream.log" or "run-2/stream.log". Returns buf. */
const char *sc_runs_path(const sc_card *card, size_t i, const char *name, char *buf, size_t len);

/*
 * A results-like object over runs so far (an array of run objects, shared, not copied):
 * the card's workload and kernel and the runs, for the metric registry (sc_metric.h).
 * NULL on ENOMEM.
 */
json_object *sc_runs_view(const sc_card *card, json_object *runs);

/*
 * results.json's "stats": for every metric of the runs (an array of run objects, each with
 * its "metrics"; the metrics are the registry's, sc_metric.h), its unit, direction, whether
 * it is a headline of the card, the values and their median, range, coefficient of
 * variation and 95% interval of the median (sc_stats.h). NULL on ENOMEM.
 */
json_object *sc_runs_stats(const sc_card *card, json_object *runs);

/*
 * Whether the series of runs so far (runs, an array of run objects) is complete, and why
 * (one phrase into why): a run failed its gates (failed); runs: N reached N; runs: auto
 * every headline metric's interval (sc_metric_defaults(), SC_METRIC_HEADLINE) within
 * runs_ci_pct of its median (at least 6 runs), or runs_max reached.
 */
bool sc_runs_done(const sc_card *card, json_object *runs, bool failed, char *why, size_t len);

/* The part of that rule a count decides, without the figures: 1 when n runs (the last
   failed: failed) complete the series, 0 when they do not, -1 when only the figures can say
   (runs: auto); why as sc_runs_done() says it when decided. */
int sc_runs_decided(const sc_card *card, size_t n, bool failed, char *why, size_t len);

/* The gates of a bundle from its runs' gates: a gate fails when it failed in any run (the
   note is that run's, "run 3: ..."), is NULL when NULL in every run, else holds. */
void sc_runs_combine_gates(const sc_gates *runs, size_t n, sc_gates *out);

#endif
