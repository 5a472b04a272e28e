/*
 * sc_verify_series.h: internal to verify: a bundle's figures over its runs
 * (doc/contracts/analysis.md). Each adds what does not hold to problems, a line starting
 * with the file's name.
 */
#ifndef SC_VERIFY_SERIES_H
#define SC_VERIFY_SERIES_H

#include "sc_card.h"
#include "sc_diag.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* results.json's (root) "stats" are what its runs' figures give (sc_runs_stats()); passed:
   the bundle passed its gates, so every run holds each figure. */
void sc_verify_stats(const sc_card *card, json_object *root, bool passed, sc_diag *problems);

/* Several runs (n run-<i> folders): run.conf (run_conf) and results.json (root) count n, and
   the series stopped where its rule (sc_runs_done()) says, unless a run failed (passed
   false); pair_side: a side of a pair, whose pairs the pair's verify holds to their rule. */
void sc_verify_series(const sc_card *card, const char *run_conf, json_object *root, size_t n,
                      bool passed, bool pair_side, sc_diag *problems);

/* Several runs: the bundle's started_at and ended_at (run.conf, results.json) are its first
   run's start and its last run's end; now: the verifying clock (sc_verify_times()). */
void sc_verify_series_times(const char *run_conf, long long now, json_object *root, size_t n,
                            sc_diag *problems);

#endif
