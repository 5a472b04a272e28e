/*
 * runs.c: a card's runs in one bundle: their folders, their figures, the statistics over
 * them and when runs: auto stops (see sc_runs.h).
 */
#include "sc_runs.h"
#include "sc_metric.h"
#include "sc_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sc_runs_flat(const sc_card *card)
{
    return card->runs == 1;
}

const char *sc_runs_dir(const sc_card *card, size_t i, char *buf, size_t len)
{
    if (sc_runs_flat(card))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "run-%zu", i + 1);
    return buf;
}

const char *sc_runs_path(const sc_card *card, size_t i, const char *name, char *buf, size_t len)
{
    if (sc_runs_flat(card))
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "run-%zu/%s", i + 1, name);
    return buf;
}

json_object *sc_runs_view(const sc_card *card, json_object *runs)
{
    json_object *v = json_object_new_object();

    if (!v)
        return NULL;
    json_object_object_add(v, "workload", json_object_new_string(sc_workload_name(card->workload)));
    json_object_object_add(v, "kernel", card->kernel ? json_object_new_string(card->kernel) : NULL);
    json_object_object_add(v, "runs", json_object_get(runs));
    return v;
}

static void sc__num(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_object_new_double(v));
}

static json_object *sc__metric_stats(const sc_metric *m, bool headline, const double *vals,
                                     size_t n)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array(), *ci = NULL;
    sc_stats s;

    json_object_object_add(o, "unit", json_object_new_string(m->unit));
    json_object_object_add(
        o, "better", json_object_new_string(m->better == SC_METRIC_HIGHER ? "higher" : "lower"));
    json_object_object_add(o, "headline", json_object_new_boolean(headline));
    for (size_t i = 0; i < n; i++)
        json_object_array_add(arr, json_object_new_double(vals[i]));
    json_object_object_add(o, "values", arr);
    json_object_object_add(o, "n", json_object_new_int64((int64_t)n));
    if (sc_stats_describe(vals, n, &s) == 0) {
        sc__num(o, "median", s.median);
        sc__num(o, "min", s.min);
        sc__num(o, "max", s.max);
        sc__num(o, "cv_pct", s.cv_pct);
        if (s.ci) {
            ci = json_object_new_object();
            sc__num(ci, "low", s.ci_low);
            sc__num(ci, "high", s.ci_high);
            sc__num(ci, "level", s.ci_level);
            sc__num(ci, "half_width_pct", sc_stats_ci_pct(&s));
            json_object_object_add(ci, "rank_low", json_object_new_int64((int64_t)s.ci_rank_low));
            json_object_object_add(ci, "rank_high", json_object_new_int64((int64_t)s.ci_rank_high));
        }
    }
    /* null: fewer than 6 runs, "interval unavailable" */
    json_object_object_add(o, "ci95", ci);
    return o;
}

static bool sc__is_headline(const sc_metric *m, const sc_metric *head, size_t nhead)
{
    for (size_t i = 0; i < nhead; i++)
        if (!strcmp(head[i].name, m->name))
            return true;
    return false;
}

json_object *sc_runs_stats(const sc_card *card, json_object *runs)
{
    size_t nruns = runs ? json_object_array_length(runs) : 0;
    json_object *view = sc_runs_view(card, runs), *stats = json_object_new_object();
    sc_metric *all = calloc(SC_METRIC_MAX, sizeof(*all)), head[SC_METRIC_MAX];
    double *vals = calloc(nruns + 1, sizeof(*vals));

    if (!view || !stats || !all || !vals) {
        json_object_put(stats);
        stats = NULL;
        goto out;
    }
    size_t nall = sc_metric_available(card, view, all, SC_METRIC_MAX);
    size_t nhead = sc_metric_defaults(card, view, SC_METRIC_HEADLINE, head, SC_METRIC_MAX);
    for (size_t i = 0; i < nall; i++) {
        size_t n = sc_metric_samples(&all[i], view, vals, nruns);
        json_object_object_add(
            stats, all[i].name,
            sc__metric_stats(&all[i], sc__is_headline(&all[i], head, nhead), vals, n));
    }
out:
    json_object_put(view);
    free(all);
    free(vals);
    return stats;
}

/*
 * runs: auto: whether every headline metric's interval is within runs_ci_pct of its median;
 * widest names the worst (an unavailable interval is the worst of all).
 */
static bool sc__intervals_met(const sc_card *card, json_object *runs, char *widest, size_t len)
{
    size_t nruns = json_object_array_length(runs), nhead = 0;
    json_object *view = sc_runs_view(card, runs);
    sc_metric head[SC_METRIC_MAX];
    double *vals = calloc(nruns + 1, sizeof(*vals)), worst = 0;
    bool met = true, unavailable = false;

    if (view && vals)
        nhead = sc_metric_defaults(card, view, SC_METRIC_HEADLINE, head, SC_METRIC_MAX);
    for (size_t j = 0; j < nhead; j++) {
        sc_stats s;
        size_t n = sc_metric_samples(&head[j], view, vals, nruns);
        double pct = sc_stats_describe(vals, n, &s) == 0 ? sc_stats_ci_pct(&s) : -1;
        if (pct < 0 || pct > card->runs_ci_pct)
            met = false;
        if (pct < 0 && !unavailable) {
            unavailable = true;
            snprintf(widest, len, "%.64s: interval unavailable", head[j].name);
        } else if (!unavailable && pct >= worst) {
            worst = pct;
            snprintf(widest, len, "%.64s +-%.2f%%", head[j].name, pct);
        }
    }
    json_object_put(view);
    free(vals);
    return met && nhead > 0;
}

int sc_runs_decided(const sc_card *card, size_t n, bool failed, char *why, size_t len)
{
    if (failed) {
        snprintf(why, len, "run %zu failed its gates", n);
        return 1;
    }
    if (card->runs > 0) {
        snprintf(why, len, "runs: %ld done", card->runs);
        return n >= (size_t)card->runs;
    }
    return -1;
}

bool sc_runs_done(const sc_card *card, json_object *runs, bool failed, char *why, size_t len)
{
    size_t n = runs ? json_object_array_length(runs) : 0;
    char widest[96] = "no figure";
    int decided = sc_runs_decided(card, n, failed, why, len);

    if (decided >= 0)
        return decided == 1;
    if (n >= SC_STATS_MIN_RUNS && sc__intervals_met(card, runs, widest, sizeof(widest))) {
        snprintf(why, len,
                 "every headline figure's 95%% interval within runs_ci_pct %g%% after %zu runs "
                 "(widest: %s)",
                 card->runs_ci_pct, n, widest);
        return true;
    }
    if (n < SC_STATS_MIN_RUNS)
        sc__intervals_met(card, runs, widest, sizeof(widest));
    snprintf(why, len, "runs_max %ld reached before every interval was within %g%% (widest: %s)",
             card->runs_max, card->runs_ci_pct, widest);
    return n >= (size_t)card->runs_max;
}

void sc_runs_combine_gates(const sc_gates *runs, size_t n, sc_gates *out)
{
    /* exit_code's class is the run's whose failure the bundle's gate reports (below) */
    out->ended_from_outside = out->signalled = false;
    for (size_t i = 0; i < n; i++)
        if (runs[i].g[SC_GATE_EXIT_CODE].state == SC_GATE_FAIL) {
            out->ended_from_outside = runs[i].ended_from_outside;
            out->signalled = runs[i].signalled;
            break;
        }
    for (int g = 0; g < SC_GATE_COUNT; g++) {
        const sc_gate *fail = NULL, *held = NULL;
        size_t fail_run = 0;
        for (size_t i = 0; i < n; i++) {
            const sc_gate *x = &runs[i].g[g];
            if (x->state == SC_GATE_FAIL && !fail) {
                fail = x;
                fail_run = i + 1;
            } else if (x->state == SC_GATE_OK) {
                held = x;
            }
        }
        if (fail && n > 1)
            sc_gate_set(&out->g[g], SC_GATE_FAIL, "run %zu: %s", fail_run, fail->note);
        else if (fail)
            out->g[g] = *fail;
        else if (held && n > 1)
            sc_gate_set(&out->g[g], SC_GATE_OK, "%zu runs; the last: %s", n, held->note);
        else if (held)
            out->g[g] = *held;
        else if (n)
            out->g[g] = runs[n - 1].g[g];
        else
            sc_gate_set(&out->g[g], SC_GATE_FAIL, "not supported by evidence: no run");
    }
}
