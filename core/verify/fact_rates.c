/*
 * fact_rates.c: the rows of rates of a bundle's facts (sc_facts.h), as the workload modules
 * read them from their results.json (sc_workload.h, facts): a row, its figures, the
 * seconds of each repetition.
 */
#include "sc_fact_rates.h"
#include "sc_num.h"
#include "sc_results_protocol.h"

#include <stdio.h>
#include <stdlib.h>

double sc__fact_num(json_object *o, const char *key)
{
    double v;

    return sc_num_get(o, key, &v) == 0 ? v : 0;
}

/* A function's per-repetition seconds from "rep_seconds": {"copy": [...]}, one per
   repetition of the card (iterations), or none. */
void sc__fact_rate_reps(sc_fact_rate *r, json_object *metrics, long iterations)
{
    json_object *reps, *arr;

    if (!metrics || !json_object_object_get_ex(metrics, SC_RESULT_REP_SECONDS, &reps) ||
        !json_object_object_get_ex(reps, r->name, &arr) ||
        !json_object_is_type(arr, json_type_array))
        return;
    size_t n = json_object_array_length(arr);
    if (iterations < 0 || n != (size_t)iterations)
        return; /* not one per repetition of the card (verify says so): not drawn */
    r->rep_s = n ? calloc(n, sizeof(double)) : NULL;
    if (!r->rep_s)
        return;
    for (size_t i = 0; i < n; i++)
        if (sc_num_json(json_object_array_get_idx(arr, i), &r->rep_s[i]) < 0)
            r->rep_s[i] = 0; /* not a figure: not drawn */
    r->n_rep = n;
}

sc_fact_rate *sc__fact_rate_add(sc_bundle_facts *f, const char *name)
{
    if (f->n_rates >= sizeof(f->rates) / sizeof(f->rates[0]))
        return NULL;
    sc_fact_rate *r = &f->rates[f->n_rates++];
    snprintf(r->name, sizeof(r->name), "%s", name);
    return r;
}
