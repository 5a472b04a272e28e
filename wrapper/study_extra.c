/* study_extra.c: a study row's counters and whether its step did anything (study_extra.h). */
#include "study_extra.h"
#include "sc_bundle.h"
#include "sc_cpulist.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_runs.h"
#include "sc_stats.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* evidence.<object>.<key> of every run's object (one run: the top level), as a median. */
static double sc__median(json_object *root, const char *object, const char *key)
{
    json_object *runs = NULL, *ev, *o, *v;
    double x[SC_RUNS_MAX];
    size_t n = 0, count = 1;
    sc_stats st;

    if (json_object_object_get_ex(root, "runs", &runs) &&
        json_object_is_type(runs, json_type_array))
        count = json_object_array_length(runs);
    for (size_t i = 0; i < count && n < SC_RUNS_MAX; i++) {
        json_object *run = runs ? json_object_array_get_idx(runs, i) : root;
        if (run && json_object_object_get_ex(run, "evidence", &ev) &&
            json_object_object_get_ex(ev, object, &o) && json_object_object_get_ex(o, key, &v) &&
            (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
            x[n++] = json_object_get_double(v);
    }
    return n && sc_stats_describe(x, n, &st) == 0 ? st.median : -1;
}

/* The machine's allocations during the run made for a process on another node than the
   memory's (/sys numastat other_node over local_node + other_node, every node), or -1. */
static double sc__cross_numa(const char *before, const char *after)
{
    long was, now;
    double other = 0, all = 0;
    char key[64];

    for (int node = 0; before && after && node < 1024; node++) {
        snprintf(key, sizeof(key), "node%d.local_node", node);
        if (!sc_kv_get_long(before, key, &was) || !sc_kv_get_long(after, key, &now))
            break;
        all += (double)(now - was);
        snprintf(key, sizeof(key), "node%d.other_node", node);
        if (sc_kv_get_long(before, key, &was) && sc_kv_get_long(after, key, &now)) {
            other += (double)(now - was);
            all += (double)(now - was);
        }
    }
    return all > 0 ? other / all : -1;
}

/* The runtime's own OMP_DISPLAY_ENV block of a log, hashed ("" without one). */
static void sc__display(const char *log, char *hex)
{
    const char *begin = log ? strstr(log, "OPENMP DISPLAY ENVIRONMENT BEGIN") : NULL;
    const char *end = begin ? strstr(begin, "OPENMP DISPLAY ENVIRONMENT END") : NULL;

    hex[0] = '\0';
    if (end)
        sc_hash_buf(begin, (size_t)(end - begin), hex);
}

void sc_study_extra_read(const char *path, const sc_card *row_card, sc_study_extra *e)
{
    char rel[64];
    sc_bundle b;

    memset(e, 0, sizeof(*e));
    e->ipc = e->simd = e->cross_numa = -1;
    /* one_per_core: the CPUs it kept are the ones written (the card the run ran). */
    if (row_card && row_card->one_per_core && row_card->one_per_core_from) {
        hwloc_bitmap_t from = hwloc_bitmap_alloc();
        e->one_per_core_noop = from &&
                               sc_cpulist_parse(row_card->one_per_core_from, from, NULL, 0) == 0 &&
                               hwloc_bitmap_isequal(from, row_card->cpus);
        hwloc_bitmap_free(from);
    }
    if (!path || !row_card || sc_bundle_open(&b, path) < 0)
        return;
    e->read = true;
    char *results = sc_bundle_read_opt(&b, "results.json");
    char *build = sc_bundle_read_opt(&b, "build.json");
    char *log = sc_bundle_read_opt(&b, sc_runs_path(row_card, 0, "stream.log", rel, sizeof(rel)));
    char *before = sc_bundle_read_opt(&b, "platform/before.txt");
    char *after = sc_bundle_read_opt(&b, "platform/after.txt");
    json_object *root = results ? json_tokener_parse(results) : NULL;
    json_object *bj = build ? json_tokener_parse(build) : NULL, *v;
    if (root) {
        e->ipc = sc__median(root, "counters", "ipc");
        e->simd = sc__median(root, "simd_share", "share");
    }
    if (bj && json_object_object_get_ex(bj, "blas_library", &v))
        snprintf(e->blas, sizeof(e->blas), "%s", json_object_get_string(v));
    e->cross_numa = sc__cross_numa(before, after);
    sc__display(log, e->display);
    json_object_put(root);
    json_object_put(bj);
    free(results);
    free(build);
    free(log);
    free(before);
    free(after);
    sc_bundle_close(&b);
}

/* True when every change of step is a variable an OpenMP runtime reads. */
static bool sc__openmp_only(const sc_card_step *step)
{
    static const char *const prefixes[] = {"env.OMP_", "env.GOMP_", "env.KMP_"};
    size_t hits = 0;

    for (size_t i = 0; i < step->n_set; i++)
        for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++)
            if (!strncmp(step->set[i].key, prefixes[p], strlen(prefixes[p]))) {
                hits++;
                break;
            }
    return step->n_set && hits == step->n_set && !step->n_unset;
}

void sc_study_no_effect(const sc_card_step *step, const sc_study_extra *row,
                        const sc_study_extra *ref, char *why, size_t len)
{
    bool only_opc = step->n_set == 1 && !strcmp(step->set[0].key, "one_per_core");
    bool only_blas = step->n_set == 1 && !strcmp(step->set[0].key, "blas");

    why[0] = '\0';
    if (only_opc && row->one_per_core_noop)
        snprintf(why, len,
                 "no effect: one_per_core kept every CPU of cpu_list: no two of them "
                 "share a core here (no SMT)");
    else if (sc__openmp_only(step) && row->display[0] && !strcmp(row->display, ref->display))
        snprintf(why, len,
                 "no effect: the OpenMP runtime read the same settings with and "
                 "without it (its OMP_DISPLAY_ENV block)");
    else if (only_blas && row->blas[0] && !strcmp(row->blas, ref->blas))
        snprintf(why, len, "no effect: the same BLAS library loaded (%s, build.json)", row->blas);
}

void sc_study_extra_cell(const sc_study_extra *e, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    if (e->ipc >= 0)
        used += (size_t)snprintf(buf + used, len - used, "IPC %.2f", e->ipc);
    if (e->simd >= 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%sSIMD %.0f%%", used ? ", " : "",
                                 100 * e->simd);
    if (e->cross_numa >= 0 && used < len)
        snprintf(buf + used, len - used, "%scross-NUMA allocations %.1f%%", used ? ", " : "",
                 100 * e->cross_numa);
}
