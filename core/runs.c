/*
 * runs.c: a card's runs in one bundle: their folders, their figures, the statistics over
 * them and when runs: auto stops (see sc_runs.h).
 */
#include "sc_runs.h"
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

static bool sc__number(json_object *o, const char *key, double *v)
{
    json_object *x;

    if (!o || !json_object_object_get_ex(o, key, &x) || !x ||
        (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int)))
        return false;
    *v = json_object_get_double(x);
    return isfinite(*v);
}

/* A message size as the figure names spell it: 8B, 4KiB, 1MiB, 1536B. */
static void sc__size_name(unsigned long long bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;

    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%s", bytes, units[u]);
}

static size_t sc__add(sc_figure_value *out, size_t n, size_t max, const char *name,
                      const char *unit, bool higher, bool headline, double value)
{
    if (n >= max || !isfinite(value) || value <= 0)
        return n;
    snprintf(out[n].name, sizeof(out[n].name), "%s", name);
    out[n].unit = unit;
    out[n].higher = higher;
    out[n].headline = headline;
    out[n].value = value;
    return n + 1;
}

/* mpi-pingpong: the smallest size's latency, every size's bandwidth. */
static size_t sc__mpi_figures(json_object *metrics, sc_figure_value *out, size_t max)
{
    json_object *sizes;
    size_t n = 0, count;
    char name[32], size[24];
    double v;

    if (!json_object_object_get_ex(metrics, "sizes", &sizes) ||
        !json_object_is_type(sizes, json_type_array) || !(count = json_object_array_length(sizes)))
        return 0;
    json_object *first = json_object_array_get_idx(sizes, 0);
    if (sc__number(first, "bytes", &v) && v >= 0) {
        double t;
        sc__size_name((unsigned long long)v, size, sizeof(size));
        snprintf(name, sizeof(name), "latency_%s", size);
        if (sc__number(first, "t_usec", &t))
            n = sc__add(out, n, max, name, "us", false, true, t);
    }
    for (size_t i = 0; i < count; i++) {
        json_object *e = json_object_array_get_idx(sizes, i);
        double bytes, mbps;
        if (!sc__number(e, "bytes", &bytes) || !sc__number(e, "MBps", &mbps))
            continue;
        sc__size_name((unsigned long long)bytes, size, sizeof(size));
        snprintf(name, sizeof(name), "bw_%s", size);
        n = sc__add(out, n, max, name, "MB/s", true, i + 1 == count, mbps);
    }
    return n;
}

size_t sc_runs_figures(const sc_card *card, json_object *metrics, sc_figure_value *out, size_t max)
{
    json_object *rates;
    double v;
    size_t n = 0;

    if (!metrics)
        return 0;
    if (card->workload == SC_WORKLOAD_STREAM) {
        static const char *const order[] = {"copy", "scale", "add", "triad"};
        if (!json_object_object_get_ex(metrics, "rates", &rates))
            return 0;
        for (size_t i = 0; i < 4; i++)
            if (sc__number(rates, order[i], &v))
                n = sc__add(out, n, max, order[i], "MB/s", true, true, v);
    } else if (card->workload == SC_WORKLOAD_IPSEARCH) {
        if (sc__number(metrics, "qps", &v))
            n = sc__add(out, n, max, "qps", "queries/s", true, true, v);
        if (sc__number(metrics, "total_thread_seconds", &v))
            n = sc__add(out, n, max, "thread_seconds", "s", false, false, v);
    } else if (card->workload == SC_WORKLOAD_MPI_PINGPONG) {
        n = sc__mpi_figures(metrics, out, max);
    }
    return n;
}

static json_object *sc__metrics_of(json_object *run)
{
    json_object *m = NULL;

    return run && json_object_object_get_ex(run, "metrics", &m) ? m : NULL;
}

/* The values of the figure named name over the runs, into vals (n runs at most). */
static size_t sc__values(const sc_card *card, json_object *runs, const char *name, double *vals)
{
    size_t k = 0, nruns = json_object_array_length(runs);
    sc_figure_value *f = calloc(SC_RUNS_MAX_FIGURES, sizeof(*f));

    if (!f)
        return 0;
    for (size_t i = 0; i < nruns; i++) {
        size_t nf = sc_runs_figures(card, sc__metrics_of(json_object_array_get_idx(runs, i)), f,
                                    SC_RUNS_MAX_FIGURES);
        for (size_t j = 0; j < nf; j++)
            if (!strcmp(f[j].name, name))
                vals[k++] = f[j].value;
    }
    free(f);
    return k;
}

static void sc__num(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_object_new_double(v));
}

static json_object *sc__figure_stats(const sc_figure_value *fig, const double *vals, size_t n)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array(), *ci = NULL;
    sc_stats s;

    json_object_object_add(o, "unit", json_object_new_string(fig->unit));
    json_object_object_add(o, "better", json_object_new_string(fig->higher ? "higher" : "lower"));
    json_object_object_add(o, "headline", json_object_new_boolean(fig->headline));
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

json_object *sc_runs_stats(const sc_card *card, json_object *runs)
{
    json_object *stats = json_object_new_object();
    size_t nruns = runs ? json_object_array_length(runs) : 0;
    sc_figure_value *f = calloc(SC_RUNS_MAX_FIGURES, sizeof(*f));
    double *vals = calloc(nruns + 1, sizeof(*vals));

    if (!stats || !f || !vals) {
        json_object_put(stats);
        stats = NULL;
        goto out;
    }
    /* Every figure any run has, in the order the first run that has it gives. */
    for (size_t i = 0; i < nruns; i++) {
        size_t nf = sc_runs_figures(card, sc__metrics_of(json_object_array_get_idx(runs, i)), f,
                                    SC_RUNS_MAX_FIGURES);
        for (size_t j = 0; j < nf; j++) {
            if (json_object_object_get_ex(stats, f[j].name, NULL))
                continue;
            size_t n = sc__values(card, runs, f[j].name, vals);
            json_object_object_add(stats, f[j].name, sc__figure_stats(&f[j], vals, n));
        }
    }
out:
    free(f);
    free(vals);
    return stats;
}

/*
 * runs: auto: whether every headline figure's interval is within runs_ci_pct of its median;
 * widest names the worst (an unavailable interval is the worst of all).
 */
static bool sc__intervals_met(const sc_card *card, json_object *runs, char *widest, size_t len)
{
    size_t nruns = json_object_array_length(runs), nf = 0, nhead = 0;
    sc_figure_value *f = calloc(SC_RUNS_MAX_FIGURES, sizeof(*f));
    double *vals = calloc(nruns + 1, sizeof(*vals)), worst = 0;
    bool met = true, unavailable = false;

    if (f && vals && nruns)
        nf = sc_runs_figures(card, sc__metrics_of(json_object_array_get_idx(runs, 0)), f,
                             SC_RUNS_MAX_FIGURES);
    for (size_t j = 0; j < nf; j++) {
        sc_stats s;
        if (!f[j].headline)
            continue;
        nhead++;
        size_t n = sc__values(card, runs, f[j].name, vals);
        double pct = sc_stats_describe(vals, n, &s) == 0 ? sc_stats_ci_pct(&s) : -1;
        if (pct < 0 || pct > card->runs_ci_pct)
            met = false;
        if (pct < 0 && !unavailable) {
            unavailable = true;
            snprintf(widest, len, "%s: interval unavailable", f[j].name);
        } else if (!unavailable && pct >= worst) {
            worst = pct;
            snprintf(widest, len, "%s +-%.2f%%", f[j].name, pct);
        }
    }
    free(f);
    free(vals);
    return met && nhead > 0;
}

bool sc_runs_done(const sc_card *card, json_object *runs, bool failed, char *why, size_t len)
{
    size_t n = runs ? json_object_array_length(runs) : 0;
    char widest[96] = "no figure";

    if (failed) {
        snprintf(why, len, "run %zu failed its gates", n);
        return true;
    }
    if (card->runs > 0) {
        snprintf(why, len, "runs: %ld done", card->runs);
        return n >= (size_t)card->runs;
    }
    if (sc__intervals_met(card, runs, widest, sizeof(widest)) && n >= SC_STATS_MIN_RUNS) {
        snprintf(why, len,
                 "every headline figure's 95%% interval within runs_ci_pct %g%% after %zu runs "
                 "(widest: %s)",
                 card->runs_ci_pct, n, widest);
        return true;
    }
    snprintf(why, len, "runs_max %ld reached before every interval was within %g%% (widest: %s)",
             card->runs_max, card->runs_ci_pct, widest);
    return n >= (size_t)card->runs_max;
}

void sc_runs_combine_gates(const sc_gates *runs, size_t n, sc_gates *out)
{
    /* exit_code's class is the run's whose failure the bundle's gate reports (below) */
    out->ended_from_outside = false;
    for (size_t i = 0; i < n; i++)
        if (runs[i].g[SC_GATE_EXIT_CODE].state == SC_GATE_FAIL) {
            out->ended_from_outside = runs[i].ended_from_outside;
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
