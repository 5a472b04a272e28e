/*
 * sc_results.h: results.json, the machine-readable record of one run that compare,
 * classify, report and the exporters read (schema in doc/design.md, "results.json and
 * build.json"), built with json-c.
 */
#ifndef SC_RESULTS_H
#define SC_RESULTS_H

#include "sc_card.h"
#include "sc_gates.h"

#include <json-c/json.h>

typedef struct sc_results_info {
    const char *host;
    const char *card_sha256;
    const char *bundle;
    const char *started_at, *ended_at; /* ISO 8601 UTC */
    const char *kernel_json; /* the workload's own results (may be NULL when it died) */
} sc_results_info;

/*
 * Builds results.json: schema, workload, kernel, host, verdict, gates (true/false/null),
 * notes, then every other key of the workload's own results (its "metrics" object, and
 * e.g. ipsearch's "evidence" block, mpi-pingpong's "transport" and "bindings", validation
 * counts); "metrics" is {} when the workload wrote none. malloc'd text or NULL.
 */
char *sc_results_build(const sc_card *card, const sc_gates *gates, const sc_results_info *info);

/*
 * The best rate a run reached, from a results.json "metrics" object: best_rate_MBps, the
 * best of "rates" (stream all), or the best "MBps" of "sizes" (mpi). <= 0 when none.
 */
double sc_results_best_rate(json_object *metrics);

#endif
