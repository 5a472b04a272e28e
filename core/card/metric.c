/*
 * metric.c: the registry of metrics (see sc_metric.h): the rows the workload modules declare
 * (their metrics, sc_metric_def.h), walked in table order, are the one definition of each
 * metric's name, unit, direction, workload and place in results.json; the card's default
 * and primary metrics are the module's to say.
 */
#include "sc_metric.h"
#include "sc_metric_def.h"
#include "sc_results_protocol.h"
#include "sc_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The family of global registry index index (workloads in table order, each one's rows in
   its order), and its workload; NULL past the last. */
static const sc_metric_def *sc__family_at(size_t index, const sc_workload_ops **owner)
{
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops));) {
        if (index < ops->n_metrics) {
            *owner = ops;
            return &ops->metrics[index];
        }
        index -= ops->n_metrics;
    }
    return NULL;
}

static const char *sc__str(json_object *results, const char *key)
{
    json_object *v = sc__metric_get(results, key);

    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int sc_metric_lookup(const char *name, sc_metric *m)
{
    if (!name)
        return -EINVAL;
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops));)
        if (sc__metric_match(ops, name, m) == 0)
            return 0;
    return -EINVAL;
}

const char *sc_metric_family(size_t index, const char **unit, const char **better,
                             const char **workload, const char **source)
{
    const sc_workload_ops *ops = NULL;
    const sc_metric_def *fam = sc__family_at(index, &ops);

    if (!fam)
        return NULL;
    if (unit)
        *unit = fam->unit;
    if (better)
        *better = fam->declared ? "card's" : fam->better == SC_METRIC_HIGHER ? "higher" : "lower";
    if (workload)
        *workload = ops->name;
    if (source)
        *source = fam->source;
    return fam->pattern;
}

/* m of a bundle of another workload is not there. */
static bool sc__applies(const sc_metric *m, json_object *results)
{
    const char *workload = sc__str(results, "workload");
    const sc_workload_ops *ops = m ? sc_workload_ops_of(m->workload) : NULL;

    return ops && m->family < ops->n_metrics && results &&
           !(workload && strcmp(workload, sc_workload_name(m->workload)) != 0);
}

size_t sc_metric_samples(const sc_metric *m, json_object *results, double *out, size_t max)
{
    json_object *runs = sc__metric_runs(results);
    const sc_metric_def *fam;
    size_t n = 0;

    if (!sc__applies(m, results))
        return 0;
    fam = &sc_workload_ops_of(m->workload)->metrics[m->family];
    if (!runs)
        return max && fam->read(m, sc__metric_get(results, SC_RESULT_METRICS),
                                sc__str(results, "kernel"), fam->key, &out[0]) == 0;
    for (size_t i = 0; i < json_object_array_length(runs) && n < max; i++)
        n += fam->read(m, sc__metric_get(json_object_array_get_idx(runs, i), SC_RESULT_METRICS),
                       sc__str(results, "kernel"), fam->key, &out[n]) == 0;
    return n;
}

int sc_metric_value(const sc_metric *m, json_object *results, double *value)
{
    double samples[1024];
    sc_stats s;
    size_t n = sc_metric_samples(m, results, samples, sizeof(samples) / sizeof(samples[0]));

    if (!n)
        return -ENOENT;
    if (n == 1) {
        *value = samples[0];
        return 0;
    }
    if (sc_stats_describe(samples, n, &s) < 0)
        return -ENOENT;
    *value = s.median;
    return 0;
}

size_t sc_metric_defaults(const sc_card *card, json_object *results, unsigned which, sc_metric *out,
                          size_t max)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;

    return ops && ops->metric_defaults ? ops->metric_defaults(card, results, which, out, max) : 0;
}

int sc_metric_primary(const sc_card *card, json_object *results, sc_metric *out)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;

    return ops && ops->metric_primary ? ops->metric_primary(card, results, out) : -ENOENT;
}

int sc_metric_study(const sc_card *card, sc_metric *out)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;

    return ops && ops->metric_study ? ops->metric_study(card, out) : -EINVAL;
}

size_t sc_metric_available(const sc_card *card, json_object *results, sc_metric *out, size_t max)
{
    unsigned long long sizes[SC_METRIC_MAX];
    size_t n = 0, ns = sc__metric_sizes(results, sizes, SC_METRIC_MAX);
    const sc_workload_ops *ops = NULL;
    const sc_metric_def *fam;
    sc_metric declared[SC_CARD_MAX_METRICS];
    size_t nd = sc_metric_declared(card, declared, SC_CARD_MAX_METRICS);
    double v;

    for (size_t g = 0; (fam = sc__family_at(g, &ops)) && n < max; g++) {
        size_t f = (size_t)(fam - ops->metrics);
        if (fam->declared)
            continue; /* the card's, after the registry's */
        if (!fam->prefix) {
            sc__metric_make(ops, f, 0, &out[n]);
            n += sc_metric_value(&out[n], results, &v) == 0;
            continue;
        }
        for (size_t i = 0; i < ns && n < max; i++) {
            sc__metric_make(ops, f, sizes[i], &out[n]);
            n += sc_metric_value(&out[n], results, &v) == 0;
        }
    }
    for (size_t i = 0; i < nd && n < max; i++)
        if (sc_metric_value(&declared[i], results, &v) == 0)
            out[n++] = declared[i];
    return n;
}

size_t sc_metric_declared(const sc_card *card, sc_metric *out, size_t max)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;

    return ops ? sc__metric_declared(ops, card, out, max) : 0;
}

size_t sc_metric_undeclared(const sc_card *card, json_object *results, sc_metric *out, size_t max)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;
    json_object *metrics = sc__metric_first(results);
    size_t row = 0, n = 0;

    if (!ops || !ops->foreign || !metrics || !json_object_is_type(metrics, json_type_object))
        return 0;
    while (row < ops->n_metrics && !ops->metrics[row].declared)
        row++;
    if (row == ops->n_metrics)
        return 0; /* its figures are not read by name */
    json_object_object_foreach(metrics, key, value)
    {
        bool declared = false;
        for (size_t i = 0; i < card->n_metrics && !declared; i++)
            declared = card->metrics[i].name && !strcmp(card->metrics[i].name, key);
        if (declared || n >= max || strlen(key) >= sizeof(out->name) ||
            !(json_object_is_type(value, json_type_double) ||
              json_object_is_type(value, json_type_int)))
            continue; /* a figure the program reports is a number (exec_figures.c) */
        sc_metric *m = &out[n++];
        memset(m, 0, sizeof(*m));
        snprintf(m->name, sizeof(m->name), "%s", key);
        m->workload = ops->id; /* unit "" and no direction of its own: never judged */
        m->family = (unsigned)row;
    }
    return n;
}

int sc_metric_lookup_card(const sc_card *card, const char *name, sc_metric *m)
{
    sc_metric declared[SC_CARD_MAX_METRICS];
    size_t n = sc_metric_declared(card, declared, SC_CARD_MAX_METRICS);

    return sc_metric_find(declared, n, name, m) == 0 ? 0 : sc_metric_lookup(name, m);
}

/* The first of a's declared metrics that b lacks or declares otherwise, said into why with
   a_side and b_side naming the two ("A", "B"): true when there is one. */
static bool sc__declared_differs(const sc_metric *a, size_t na, const sc_metric *b, size_t nb,
                                 const char *a_side, const char *b_side, char *why, size_t len)
{
    for (size_t i = 0; i < na; i++) {
        const sc_metric *x = &a[i];
        size_t j = 0;
        if (!x->declared)
            continue;
        while (j < nb && !(b[j].declared && strcmp(b[j].name, x->name) == 0))
            j++;
        if (j == nb)
            snprintf(why, len, "metric %s: declared by %s's card, not by %s's", x->name, a_side,
                     b_side);
        else if (strcmp(b[j].unit, x->unit) != 0)
            snprintf(why, len, "metric %s: unit %s in %s, %s in %s", x->name, x->unit, a_side,
                     b[j].unit, b_side);
        else if (b[j].better != x->better)
            snprintf(why, len, "metric %s: better %s in %s, %s in %s", x->name,
                     x->better == SC_METRIC_HIGHER ? "higher" : "lower", a_side,
                     b[j].better == SC_METRIC_HIGHER ? "higher" : "lower", b_side);
        else
            continue;
        return true;
    }
    return false;
}

bool sc_metric_same_declared(const sc_metric *a, size_t na, const sc_metric *b, size_t nb,
                             char *why, size_t len)
{
    return !sc__declared_differs(a, na, b, nb, "A", "B", why, len) &&
           !sc__declared_differs(b, nb, a, na, "B", "A", why, len);
}

double sc_metric_change(double base, double value)
{
    return base > 0 ? 100.0 * (value - base) / base : 0;
}

double sc_metric_loss(const sc_metric *m, double base, double value)
{
    double change = sc_metric_change(base, value);

    return m->better == SC_METRIC_HIGHER ? -change : change;
}
