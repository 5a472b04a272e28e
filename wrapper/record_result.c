/*
 * record_result.c: where a run's workload writes its own results, and those results (see
 * record.h), read and parsed once per run: the first time anything asks for them (its gates,
 * the runs policy, the pair's rule, the bundle's end), and kept in the execution until the
 * bundle is sealed. The guardian, a copy of this process made before the first run ended,
 * finds none kept and reads the files.
 */
#include "record.h"
#include "sc_file.h"
#include "sc_results.h"
#include "sc_results_protocol.h"
#include "sc_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sc_record_json_path(const sc_execution *x, size_t i)
{
    char *path = NULL;

    return asprintf(&path, "%s/run-%zu.json", x->tmpdir, i + 1) < 0 ? NULL : path;
}

/* The text run i's workload wrote (malloc'd), or NULL. */
static char *sc__read(const sc_execution *x, size_t i)
{
    char *path = sc_record_json_path(x, i), *text = NULL;

    /* A program we did not write was not asked for results: a file there is not its; its
       results are the figures its log shows by the card's patterns. */
    if (sc_workload_foreign(x->plan->card)) {
        const sc_workload_ops *ops = sc_workload_ops_of(x->plan->card->workload);
        char rel[64], *log = sc_bundle_read_opt(
                          &x->b, sc_runs_path(x->plan->card, i, "stream.log", rel, sizeof(rel)));
        text = log && ops->results_of_log ? ops->results_of_log(x->plan->card, log) : NULL;
        free(log);
    } else if (path) {
        sc_file_read_at(AT_FDCWD, path, 0, 1 << 20, &text, NULL);
    }
    free(path);
    return text;
}

/* Room for run i's result in x->results; false when out of memory. */
static bool sc__room(sc_execution *x, size_t i)
{
    if (i < x->n_results)
        return true;
    size_t n = i + 1 > 2 * x->n_results ? i + 1 : 2 * x->n_results;
    sc_run_result *more = realloc(x->results, n * sizeof(*more));
    if (!more)
        return false;
    memset(more + x->n_results, 0, (n - x->n_results) * sizeof(*more));
    x->results = more;
    x->n_results = n;
    return true;
}

const sc_run_result *sc_record_result(sc_execution *x, size_t i)
{
    static const sc_run_result none = {0};

    if (!sc__room(x, i))
        return &none;
    sc_run_result *r = &x->results[i];
    if (r->read)
        return r;
    r->read = true;
    r->text = sc__read(x, i);
    r->json = r->text ? json_tokener_parse(r->text) : NULL;
    json_object *metrics = NULL;
    if (r->json && json_object_is_type(r->json, json_type_object))
        json_object_object_get_ex(r->json, SC_RESULT_METRICS, &metrics);
    double best = sc_results_best_rate(metrics);
    r->best_rate_MBps = best > 0 ? best : 0; /* NAN: no figure */
    return r;
}

void sc_record_results_free(sc_execution *x)
{
    for (size_t i = 0; i < x->n_results; i++) {
        free(x->results[i].text);
        json_object_put(x->results[i].json);
    }
    free(x->results);
    x->results = NULL;
    x->n_results = 0;
}
