/* results.c: results.json with json-c (see sc_results.h). */
#include "sc_results.h"
#include "sc_num.h"
#include "sc_results_protocol.h"
#include "sc_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_object *sc__gate_value(const sc_gate *g)
{
    if (g->state == SC_GATE_NULL)
        return NULL; /* json null */
    return json_object_new_boolean(g->state == SC_GATE_OK);
}

/* best: the larger of best and v, a figure (sc_num.h); NAN once one is not. */
static double sc__best(double best, json_object *v)
{
    double d;
    int rc = sc_num_json(v, &d);

    if (rc == -ERANGE || rc == -EINVAL || isnan(best))
        return NAN;
    return rc == 0 && d > best ? d : best;
}

double sc_results_best_rate(json_object *metrics)
{
    json_object *v, *arr;
    double best = 0;

    if (!metrics)
        return 0;
    if (json_object_object_get_ex(metrics, SC_RESULT_BEST_RATE_MBPS, &v))
        return sc__best(0, v);
    if (json_object_object_get_ex(metrics, SC_RESULT_RATES, &v) &&
        json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, rate)
        {
            (void)key;
            best = sc__best(best, rate);
        }
        return best;
    }
    if (json_object_object_get_ex(metrics, SC_RESULT_SIZES, &arr) &&
        json_object_is_type(arr, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            json_object *size = json_object_array_get_idx(arr, i), *mbps;
            if (json_object_object_get_ex(size, SC_RESULT_MBPS, &mbps))
                best = sc__best(best, mbps);
        }
    }
    return best;
}

/* "gates" and "notes" of o from gates. */
static void sc__add_gates(json_object *o, const sc_gates *gates)
{
    json_object *g = json_object_new_object(), *notes = json_object_new_object();

    for (int i = 0; i < SC_GATE_COUNT; i++) {
        json_object_object_add(g, sc_gate_name((sc_gate_id)i), sc__gate_value(&gates->g[i]));
        json_object_object_add(notes, sc_gate_name((sc_gate_id)i),
                               json_object_new_string(gates->g[i].note));
    }
    json_object_object_add(o, "verdict",
                           json_object_new_string(sc_gates_passed(gates) ? "ok" : "failed"));
    json_object_object_add(o, "gates", g);
    json_object_object_add(o, "notes", notes);
}

/*
 * The workload's own record, under its own keys: its metrics and everything it reported
 * beside them (ipsearch: the evidence block with BLAS, environment, thread counts and
 * bindings, counters; mpi-pingpong: transport, per-rank bindings; validation counts and
 * sizes). A key already set (schema, workload, kernel, the gates) stays; "metrics" is {} when
 * the workload wrote none.
 */
static void sc__merge_workload(json_object *o, json_object *kernel)
{
    json_object *metrics = NULL;

    if (kernel && json_object_is_type(kernel, json_type_object)) {
        json_object_object_foreach(kernel, key, value)
        {
            if (!json_object_object_get_ex(o, key, NULL))
                json_object_object_add(o, key, json_object_get(value));
        }
    }
    if (!json_object_object_get_ex(o, SC_RESULT_METRICS, &metrics) ||
        !json_object_is_type(metrics, json_type_object))
        json_object_object_add(o, SC_RESULT_METRICS, json_object_new_object());
}

static json_object *sc__run_object(const sc_results_run *r, size_t index)
{
    json_object *o = json_object_new_object();

    json_object_object_add(o, "run", json_object_new_int64((int64_t)index + 1));
    json_object_object_add(o, "dir", json_object_new_string(r->dir ? r->dir : ""));
    if (r->started_at)
        json_object_object_add(o, "started_at", json_object_new_string(r->started_at));
    if (r->ended_at)
        json_object_object_add(o, "ended_at", json_object_new_string(r->ended_at));
    sc__add_gates(o, r->gates);
    json_object_object_add(o, "interference", json_object_get(r->interference));
    sc__merge_workload(o, r->kernel);
    return o;
}

static json_object *sc__policy(const sc_card *card, const sc_results_info *info)
{
    json_object *p = json_object_new_object();

    json_object_object_add(p, "requested",
                           card->runs ? json_object_new_int64(card->runs)
                                      : json_object_new_string("auto"));
    if (!card->runs) {
        json_object_object_add(p, "runs_ci_pct", json_object_new_double(card->runs_ci_pct));
        json_object_object_add(p, "runs_max", json_object_new_int64(card->runs_max));
    }
    json_object_object_add(p, "done", json_object_new_int64((int64_t)info->n_runs));
    json_object_object_add(p, "stopped",
                           json_object_new_string(info->stopped ? info->stopped : ""));
    return p;
}

char *sc_results_build(const sc_card *card, const sc_gates *gates, const sc_results_info *info)
{
    json_object *root = json_object_new_object(), *runs = json_object_new_array();
    char *text = NULL;

    if (!root || !runs) {
        json_object_put(root);
        json_object_put(runs);
        return NULL;
    }
    json_object_object_add(root, "schema", json_object_new_int(SC_RESULTS_SCHEMA));
    json_object_object_add(root, "workload",
                           json_object_new_string(sc_workload_name(card->workload)));
    json_object_object_add(root, "kernel",
                           card->kernel ? json_object_new_string(card->kernel) : NULL);
    json_object_object_add(root, "run_name", json_object_new_string(card->run_name));
    json_object_object_add(root, "capture", json_object_new_string(sc_workload_capture(card)));
    json_object_object_add(root, "host", json_object_new_string(info->host ? info->host : ""));
    json_object_object_add(root, "card_sha256",
                           json_object_new_string(info->card_sha256 ? info->card_sha256 : ""));
    if (info->n_runs && info->runs[0].started_at)
        json_object_object_add(root, "started_at",
                               json_object_new_string(info->runs[0].started_at));
    if (info->n_runs && info->runs[info->n_runs - 1].ended_at)
        json_object_object_add(root, "ended_at",
                               json_object_new_string(info->runs[info->n_runs - 1].ended_at));
    sc__add_gates(root, gates);
    json_object_object_add(root, "runs_policy", sc__policy(card, info));
    for (size_t i = 0; i < info->n_runs; i++)
        json_object_array_add(runs, sc__run_object(&info->runs[i], i));
    json_object_object_add(root, "runs", runs);
    json_object_object_add(root, "stats", sc_runs_stats(card, runs));
    if (sc_runs_flat(card) && info->n_runs == 1) {
        json_object_object_add(root, "interference", json_object_get(info->runs[0].interference));
        sc__merge_workload(root, info->runs[0].kernel);
    }
    const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    text = s ? strdup(s) : NULL;
    json_object_put(root);
    return text;
}
