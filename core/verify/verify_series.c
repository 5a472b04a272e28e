/*
 * verify_series.c: a bundle's figures over its runs (sc_verify_series.h): results.json's
 * statistics recomputed from its runs, and a bundle of several runs held to its rule of when
 * to stop and to its first run's start and last run's end.
 */
#include "sc_verify_series.h"
#include "sc_kv.h"
#include "sc_results.h"
#include "sc_runs.h"
#include "sc_verify_times.h"

#include <stdio.h>
#include <string.h>

/* results.json's "stats" must be what its runs' figures give (sc_runs_stats()). */
void sc_verify_stats(const sc_card *card, json_object *root, bool passed, sc_diag *problems)
{
    json_object *runs = NULL, *claimed = NULL, *n = NULL;

    if (!json_object_object_get_ex(root, "runs", &runs) ||
        !json_object_object_get_ex(root, "stats", &claimed)) {
        sc_diag_addf(problems, "results.json: no \"runs\" and \"stats\" (schema %d)",
                     SC_RESULTS_SCHEMA);
        return;
    }
    json_object *truth = sc_runs_stats(card, runs);
    /* Every run that passed holds each figure: a run whose figure is missing or not a finite
       number is not left out of the statistics (dropping runs narrows an interval). */
    size_t nruns = json_object_is_type(runs, json_type_array) ? json_object_array_length(runs) : 0;
    if (passed && truth) {
        json_object_object_foreach(truth, fname, fstats)
        {
            if (json_object_object_get_ex(fstats, "n", &n) &&
                (size_t)json_object_get_int64(n) < nruns) {
                sc_diag_addf(problems,
                             "results.json: %s has %lld values over %zu runs: a run's figure "
                             "is missing or not a finite number (valid: one figure per run)",
                             fname, (long long)json_object_get_int64(n), nruns);
                break;
            }
        }
    }
    if (truth && !json_object_equal(truth, claimed)) {
        json_object_object_foreach(truth, name, fig)
        {
            json_object *c = NULL;
            if (!json_object_object_get_ex(claimed, name, &c) || !json_object_equal(c, fig)) {
                sc_diag_addf(problems,
                             "results.json: stats of %s are not what its runs' figures give "
                             "(median %s)",
                             name,
                             json_object_to_json_string(
                                 json_object_object_get_ex(fig, "median", &c) ? c : NULL));
                break;
            }
        }
        if (json_object_object_length(claimed) != json_object_object_length(truth))
            sc_diag_addf(problems, "results.json: stats name figures its runs do not have");
    }
    json_object_put(truth);
}

/*
 * Several runs: as many as run.conf and results.json say, run-<i> folders with nothing
 * between them, and the series stopped where its rule (sc_runs_done()) says: not before,
 * not after, unless a run failed (then the verdict fails anyway).
 */
void sc_verify_series(const sc_card *card, const char *run_conf, json_object *root, size_t n,
                      bool passed, bool pair_side, sc_diag *problems)
{
    json_object *runs = NULL;
    char why[256], claimed[256] = "";
    long told = -1;

    if (!sc_kv_get_long(run_conf, "runs", &told) || told != (long)n)
        sc_diag_addf(problems, "run.conf: runs=%ld, but the bundle holds %zu run folders", told, n);
    if (!root || !json_object_object_get_ex(root, "runs", &runs) ||
        json_object_array_length(runs) != n) {
        sc_diag_addf(problems, "results.json: \"runs\" does not list the %zu runs of the bundle",
                     n);
        return;
    }
    if (pair_side) /* the pair's verify holds the pairs to their rule (sc_pair_done()) */
        return;
    json_object *prefix = json_object_new_array();
    for (size_t k = 0; prefix && k < n; k++) {
        json_object_array_add(prefix, json_object_get(json_object_array_get_idx(runs, k)));
        bool last = k + 1 == n;
        bool done = sc_runs_done(card, prefix, last && !passed, why, sizeof(why));
        if (!last && done && passed) {
            sc_diag_addf(problems,
                         "the runs should have stopped after run %zu (%s), but %zu "
                         "were made",
                         k + 1, why, n);
            break;
        }
        if (last && passed && !done)
            sc_diag_addf(problems, "the runs stopped after %zu, but their rule wants more (%s)", n,
                         why);
        if (last && passed && done &&
            sc_kv_get(run_conf, "runs_stopped", claimed, sizeof(claimed)) &&
            strcmp(claimed, why) != 0)
            sc_diag_addf(problems, "run.conf: runs_stopped=%s, but the runs show: %s", claimed,
                         why);
    }
    json_object_put(prefix);
}

/* Several runs: the bundle's start is its first run's, its end its last run's, in run.conf and
   results.json alike (each run's own times are checked with the run). */
void sc_verify_series_times(const char *run_conf, long long now, json_object *root, size_t n,
                            sc_diag *problems)
{
    json_object *runs = NULL, *v = NULL;
    char first[128] = "", last[128] = "";

    sc_verify_times(run_conf, &root, 1, now, false, problems);
    if (!n || !root || !json_object_object_get_ex(root, "runs", &runs) ||
        !json_object_is_type(runs, json_type_array) || json_object_array_length(runs) != n)
        return;
    if (json_object_object_get_ex(json_object_array_get_idx(runs, 0), "started_at", &v))
        snprintf(first, sizeof(first), "%s", json_object_get_string(v));
    if (json_object_object_get_ex(json_object_array_get_idx(runs, n - 1), "ended_at", &v))
        snprintf(last, sizeof(last), "%s", json_object_get_string(v));
    char started[128] = "", ended[128] = "";
    sc_kv_get(run_conf, "started_at", started, sizeof(started));
    sc_kv_get(run_conf, "ended_at", ended, sizeof(ended));
    if (strcmp(started, first) != 0 || strcmp(ended, last) != 0)
        sc_diag_addf(problems,
                     "run.conf: started_at %s, ended_at %s, but its runs started at %s and ended "
                     "at %s",
                     started, ended, *first ? first : "(none)", *last ? last : "(none)");
}
