/* results.c: results.json with json-c (see sc_results.h). */
#include "sc_results.h"

#include <stdlib.h>
#include <string.h>

static json_object *sc__gate_value(const sc_gate *g)
{
    if (g->state == SC_GATE_NULL)
        return NULL; /* json null */
    return json_object_new_boolean(g->state == SC_GATE_OK);
}

double sc_results_best_rate(json_object *metrics)
{
    json_object *v, *arr;
    double best = 0;

    if (!metrics)
        return 0;
    if (json_object_object_get_ex(metrics, "best_rate_MBps", &v))
        return json_object_get_double(v);
    if (json_object_object_get_ex(metrics, "rates", &v) && json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, rate)
        {
            (void)key;
            if (json_object_get_double(rate) > best)
                best = json_object_get_double(rate);
        }
        return best;
    }
    if (json_object_object_get_ex(metrics, "sizes", &arr) &&
        json_object_is_type(arr, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            json_object *size = json_object_array_get_idx(arr, i), *mbps;
            if (json_object_object_get_ex(size, "MBps", &mbps) &&
                json_object_get_double(mbps) > best)
                best = json_object_get_double(mbps);
        }
    }
    return best;
}

char *sc_results_build(const sc_card *card, const sc_gates *gates, const sc_results_info *info)
{
    json_object *root = json_object_new_object(), *g = json_object_new_object();
    json_object *notes = json_object_new_object(), *kernel = NULL, *metrics = NULL;
    char *text = NULL;
    bool passed = sc_gates_passed(gates);

    if (!root || !g || !notes)
        goto out;
    json_object_object_add(root, "schema", json_object_new_int(1));
    json_object_object_add(root, "workload", json_object_new_string(sc_workload_name(card->workload)));
    json_object_object_add(root, "kernel", card->kernel ? json_object_new_string(card->kernel)
                                                        : NULL);
    json_object_object_add(root, "run_name", json_object_new_string(card->run_name));
    json_object_object_add(root, "host", json_object_new_string(info->host ? info->host : ""));
    json_object_object_add(root, "card_sha256",
                           json_object_new_string(info->card_sha256 ? info->card_sha256 : ""));
    if (info->started_at)
        json_object_object_add(root, "started_at", json_object_new_string(info->started_at));
    if (info->ended_at)
        json_object_object_add(root, "ended_at", json_object_new_string(info->ended_at));
    json_object_object_add(root, "verdict", json_object_new_string(passed ? "ok" : "failed"));
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        json_object_object_add(g, sc_gate_name((sc_gate_id)i), sc__gate_value(&gates->g[i]));
        json_object_object_add(notes, sc_gate_name((sc_gate_id)i),
                               json_object_new_string(gates->g[i].note));
    }
    json_object_object_add(root, "gates", g);
    json_object_object_add(root, "notes", notes);
    g = notes = NULL;
    if (info->kernel_json)
        kernel = json_tokener_parse(info->kernel_json);
    /* The workload's own record, under its own keys: its metrics and everything it reported
       beside them (ipsearch: the evidence block with BLAS, environment, thread counts and
       bindings, counters; mpi-pingpong: transport, per-rank bindings; validation counts and
       sizes). A key the wrapper already set (schema, workload, kernel) stays the wrapper's. */
    if (kernel && json_object_is_type(kernel, json_type_object)) {
        json_object_object_foreach(kernel, key, value)
        {
            if (!json_object_object_get_ex(root, key, NULL))
                json_object_object_add(root, key, json_object_get(value));
        }
    }
    if (!json_object_object_get_ex(root, "metrics", &metrics) ||
        !json_object_is_type(metrics, json_type_object))
        json_object_object_add(root, "metrics", json_object_new_object());
    const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    text = s ? strdup(s) : NULL;
out:
    json_object_put(kernel);
    json_object_put(g);
    json_object_put(notes);
    json_object_put(root);
    return text;
}
