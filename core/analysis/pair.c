/*
 * pair.c: a paired run's order, its stopping rule and its record (see sc_pair.h). Both
 * `streamcard run` and verify call these, so the order, the pairs and their statistics in
 * pair.json are recomputed exactly.
 */
#include "sc_pair.h"
#include "sc_hash.h"
#include "sc_metric.h"
#include "sc_runs.h"
#include "sc_stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sc_pair_b_first(uint64_t seed, size_t i)
{
    char text[96], hex[SC_HASH_HEX_LEN + 1];

    snprintf(text, sizeof(text), "streamcard pair order %" PRIu64 " %zu", seed, i);
    if (sc_hash_buf(text, strlen(text), hex) < 0)
        return false;
    unsigned byte = (unsigned)strtoul((char[3]){hex[0], hex[1], '\0'}, NULL, 16);
    return byte & 1;
}

void sc_pair_compare_opts(sc_compare_opts *o)
{
    *o = (sc_compare_opts){.bound_pct = SC_STATS_NOISE_BOUND,
                           .max_interference_pct = SC_COMPARE_MAX_INTERFERENCE,
                           .paired = true};
}

bool sc_pair_done(const sc_card *card, json_object *a_runs, json_object *b_runs, bool failed,
                  char *why, size_t len)
{
    size_t na = a_runs ? json_object_array_length(a_runs) : 0;
    size_t nb = b_runs ? json_object_array_length(b_runs) : 0, n = na < nb ? na : nb;
    json_object *va = NULL, *vb = NULL;
    sc_comparison c;
    sc_compare_opts o;
    sc_metric m;
    double half = -1;

    if (failed) {
        snprintf(why, len, "pair %zu failed its gates", (na > nb ? na : nb));
        return true;
    }
    if (card->runs > 0) {
        snprintf(why, len, "runs: %ld pairs done", card->runs);
        return n >= (size_t)card->runs;
    }
    sc_pair_compare_opts(&o);
    /* the sizes measured, for an MPI card's primary metric, are side A's */
    if ((va = sc_runs_view(card, a_runs)) && (vb = sc_runs_view(card, b_runs)) &&
        sc_metric_primary(card, va, &m) == 0 && sc_compare_metric(va, vb, &m, &o, &c) == 0 &&
        c.r.ci)
        half = 100 * (c.r.ci_high - c.r.ci_low) / 2 / c.r.ratio;
    json_object_put(va);
    json_object_put(vb);
    if (half >= 0 && half <= card->runs_ci_pct) {
        snprintf(why, len,
                 "the paired 95%% interval of %s within runs_ci_pct %g%% after %zu pairs "
                 "(+-%.2f%%)",
                 m.name, card->runs_ci_pct, n, half);
        return true;
    }
    if (half >= 0)
        snprintf(why, len,
                 "runs_max %ld pairs reached before the paired interval of %s was within %g%% "
                 "(+-%.2f%%)",
                 card->runs_max, m.name, card->runs_ci_pct, half);
    else
        snprintf(why, len,
                 "runs_max %ld pairs reached before the paired interval was within %g%% "
                 "(interval unavailable)",
                 card->runs_max, card->runs_ci_pct);
    return n >= (size_t)card->runs_max;
}

bool sc_pair_differences_ok(const char *variable, const sc_bundle_facts *a,
                            const sc_bundle_facts *b, sc_diag *problems)
{
    size_t idx[SC_FACTS_MAX_VARS], n = sc_facts_diff(a, b, idx);
    bool ok = true;
    bool build = !strcmp(variable, SC_PAIR_BUILD), none = !strcmp(variable, SC_PAIR_NONE);
    char why[400];

    /* Both sides judged by the same figures (sc_pair_against() refused others at the start). */
    if (!sc_metric_same_declared(a->metrics, a->n_metrics, b->metrics, b->n_metrics, why,
                                 sizeof(why))) {
        sc_diag_addf(problems, "the sides' cards declare other metrics: %s", why);
        ok = false;
    }

    for (size_t i = 0; i < n; i++) {
        const sc_fact *v = &a->vars[idx[i]];
        char names[400] = "";
        if (sc_facts_follows(a, b, idx[i]))
            continue;
        if (!none && ((build && !strcmp(v->group, "build")) ||
                      (!build && sc_facts_key_changes(variable, v->name)))) {
            /* env: the one variable against: names, and no other */
            if (strcmp(v->name, "env") != 0 ||
                (sc_facts_env_diff(a, b, names, sizeof(names)) == 1 &&
                 !strcmp(names, variable + 4)))
                continue;
        }
        if (!strcmp(v->name, "env"))
            sc_facts_env_diff(a, b, names, sizeof(names));
        sc_diag_addf(problems,
                     "the sides differ in %s%s%s%s (A %s, B %s), which the pair's variable %s "
                     "does not change",
                     v->name, *names ? " (" : "", names, *names ? ")" : "", v->value,
                     b->vars[idx[i]].value, variable);
        ok = false;
    }
    return ok;
}

static void sc__num(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_object_new_double(v));
}

static json_object *sc__trend(const sc_trend *t)
{
    json_object *o = json_object_new_object();

    json_object_object_add(o, "tested", json_object_new_boolean(t->tested));
    sc__num(o, "rho", t->rho);
    sc__num(o, "p", t->p);
    json_object_object_add(o, "method", t->method ? json_object_new_string(t->method) : NULL);
    return o;
}

/* The primary metric compared pair by pair: each side's values, the ratio, its interval,
   each side's trend and worst foreign share, the verdict. */
static json_object *sc__primary(const sc_bundle_facts *a, const sc_bundle_facts *b)
{
    json_object *o = json_object_new_object(), *ci = NULL;
    sc_compare_opts opts;
    sc_comparison c;

    sc_pair_compare_opts(&opts);
    if (!a->has_primary) {
        json_object_object_add(o, "metric", NULL);
        return o;
    }
    int rc = sc_compare_metric(a->results, b->results, &a->primary, &opts, &c);
    json_object_object_add(o, "metric", json_object_new_string(a->primary.name));
    json_object_object_add(o, "unit", json_object_new_string(a->primary.unit));
    json_object_object_add(
        o, "better",
        json_object_new_string(a->primary.better == SC_METRIC_HIGHER ? "higher" : "lower"));
    json_object_object_add(o, "pairs", json_object_new_int64(rc == 0 ? (int64_t)c.n_a : 0));
    if (rc < 0)
        return o;
    sc__num(o, "median_a", c.sa.median);
    sc__num(o, "median_b", c.sb.median);
    sc__num(o, "ratio", c.r.ratio);
    if (c.r.ci) {
        ci = json_object_new_object();
        sc__num(ci, "low", c.r.ci_low);
        sc__num(ci, "high", c.r.ci_high);
        sc__num(ci, "level", c.r.ci_level);
        json_object_object_add(ci, "method", json_object_new_string(c.r.method));
    }
    json_object_object_add(o, "ci95", ci);
    json_object_object_add(o, "trend_a", sc__trend(&c.trend_a));
    json_object_object_add(o, "trend_b", sc__trend(&c.trend_b));
    sc__num(o, "worst_share_pct_a", c.worst_a);
    sc__num(o, "worst_share_pct_b", c.worst_b);
    json_object_object_add(o, "interval_verdict",
                           json_object_new_string(sc_stats_verdict_name(c.interval)));
    json_object_object_add(o, "verdict", json_object_new_string(sc_stats_verdict_name(c.verdict)));
    return o;
}

json_object *sc_pair_record(const sc_pair_info *info, const sc_bundle_facts *a,
                            const sc_bundle_facts *b)
{
    json_object *r = json_object_new_object(), *order = json_object_new_array();
    json_object *differs = json_object_new_array();
    size_t idx[SC_FACTS_MAX_VARS], n = sc_facts_diff(a, b, idx);
    char seed[32];

    if (!r || !order || !differs) {
        json_object_put(r);
        json_object_put(order);
        json_object_put(differs);
        return NULL;
    }
    snprintf(seed, sizeof(seed), "%" PRIu64, info->seed);
    json_object_object_add(r, "schema", json_object_new_int(SC_PAIR_SCHEMA));
    json_object_object_add(r, "seed", json_object_new_string(seed));
    for (size_t i = 0; i < info->started; i++)
        json_object_array_add(order,
                              json_object_new_string(sc_pair_b_first(info->seed, i) ? "BA" : "AB"));
    json_object_object_add(r, "order", order);
    json_object_object_add(r, "variable", json_object_new_string(info->variable));
    for (size_t i = 0; i < n; i++) {
        if (sc_facts_follows(a, b, idx[i]))
            continue;
        json_object *d = json_object_new_object();
        json_object_object_add(d, "name", json_object_new_string(a->vars[idx[i]].name));
        json_object_object_add(d, "a", json_object_new_string(a->vars[idx[i]].value));
        json_object_object_add(d, "b", json_object_new_string(b->vars[idx[i]].value));
        json_object_array_add(differs, d);
    }
    json_object_object_add(r, "differs", differs);
    json_object_object_add(r, "stopped",
                           json_object_new_string(info->stopped ? info->stopped : ""));
    sc__num(r, "noise_bound_pct", SC_STATS_NOISE_BOUND);
    sc__num(r, "max_interference_pct", SC_COMPARE_MAX_INTERFERENCE);
    json_object_object_add(r, "method", json_object_new_string(SC_STATS_PAIRED_METHOD));
    json_object_object_add(r, "primary", sc__primary(a, b));
    return r;
}
