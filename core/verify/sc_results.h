/*
 * sc_results.h: results.json, the machine-readable record of one run that compare,
 * classify, report and the exporters read (schema in doc/contracts/results.md,
 * "results.json and build.json"), built with json-c.
 */
#ifndef SC_RESULTS_H
#define SC_RESULTS_H

#include "sc_card.h"
#include "sc_gates.h"

#include <json-c/json.h>

/* One run of the workload: a separate process, its own files and gates. */
typedef struct sc_results_run {
    const char *dir;                   /* "" (runs: 1) or "run-2" */
    const char *started_at, *ended_at; /* ISO 8601 UTC */
    const sc_gates *gates;
    json_object *kernel;       /* the workload's own results, parsed (NULL when it died) */
    json_object *interference; /* sc_interference_json() of the run (may be NULL) */
} sc_results_run;

typedef struct sc_results_info {
    const char *host;
    const char *card_sha256;
    const char *bundle;
    const sc_results_run *runs; /* in the order they ran */
    size_t n_runs;
    const char *stopped; /* why the runs ended (sc_runs_done()) */
} sc_results_info;

/* The schema version results.json is written with. */
#define SC_RESULTS_SCHEMA 2

/*
 * Builds results.json (schema 2): schema, workload, kernel, host, the verdict and gates over
 * every run (true/false/null) with their notes, "runs_policy" (requested, done, why it
 * stopped), "runs" (per run: its folder, times, verdict, gates, notes, interference summary
 * and every key of the workload's own results: "metrics", ipsearch's "evidence",
 * mpi-pingpong's "transport" and "bindings", validation counts) and "stats" (sc_runs.h).
 * A bundle of one run (runs: 1) also keeps schema 1's top level: the workload's keys,
 * "metrics" ({} when the workload wrote none) and "interference". malloc'd text or NULL.
 */
char *sc_results_build(const sc_card *card, const sc_gates *gates, const sc_results_info *info);

/*
 * The best rate a run reached, from a results.json "metrics" object: best_rate_MBps, the
 * best of "rates" (stream all), or the best "MBps" of "sizes" (mpi). <= 0 when none; NAN
 * when one of them is there but not a figure (a finite number, sc_num.h).
 */
double sc_results_best_rate(json_object *metrics);

#endif
