/*
 * sc_verify_times.h: internal to verify: when a run says it ran (doc/contracts/analysis.md).
 * A run's started_at and ended_at, in its run.conf and in its object of results.json, are
 * ISO 8601 UTC times as streamcard writes them ("2026-03-01T12:00:00Z", a real date) or
 * "none" (a run that never started); the two records agree; the end is not before the start;
 * and neither is later than the verifying clock allows (SC_VERIFY_CLOCK_SKEW_S, sc_verify.h).
 * A run that passed its gates has both times.
 */
#ifndef SC_VERIFY_TIMES_H
#define SC_VERIFY_TIMES_H

#include "sc_diag.h"

#include <json-c/json.h>
#include <stdbool.h>

/* The times of one record: conf (run.conf text; NULL: none to check) and its objects of
   results.json, obj[0..n) (a NULL one is skipped; a run of the one-run layout has two, the
   top level and its "runs" entry), each to say what conf says; now: the verifying clock,
   seconds since the epoch; ran: the run passed, so both times must be there. Problems start
   with the file's name. */
void sc_verify_times(const char *conf, json_object *const *obj, size_t n, long long now, bool ran,
                     sc_diag *problems);

/* The seconds since the epoch of a time as streamcard writes it ("YYYY-MM-DDTHH:MM:SSZ", a
   date and time that exist); -1 for anything else. */
long long sc_verify_time_parse(const char *iso);

#endif
