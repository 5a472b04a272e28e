/*
 * sc_fact_rates.h: the rows of rates a workload module adds to a bundle's facts (its facts
 * hook, sc_workload.h).
 */
#ifndef SC_FACT_RATES_H
#define SC_FACT_RATES_H

#include "sc_facts.h"

#include <json-c/json.h>

/* A new row named name at the end of f's rates, zeroed but for its name; NULL when full. */
sc_fact_rate *sc__fact_rate_add(sc_bundle_facts *f, const char *name);

/* o's number key, 0 when it is not a finite number. */
double sc__fact_num(json_object *o, const char *key);

/* r's seconds per repetition from metrics' "rep_seconds": {"<r's name>": [...]}, one per
   repetition of the card (iterations), or none. */
void sc__fact_rate_reps(sc_fact_rate *r, json_object *metrics, long iterations);

#endif
