/*
 * metric_def.c: the parts of the metric registry the workload modules share (see
 * sc_metric_def.h): making a metric from a module's row, its name, and the common readers.
 */
#include "sc_metric_def.h"
#include "sc_num.h"
#include "sc_results_protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_object *sc__metric_get(json_object *o, const char *key)
{
    json_object *v = NULL;

    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
               ? v
               : NULL;
}

/* A figure: a finite number (sc_num.h, the one rule); -ENOENT otherwise. */
int sc__metric_finite(json_object *v, double *out)
{
    return sc_num_json(v, out) == 0 ? 0 : -ENOENT;
}

int sc__metric_rd_number(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v)
{
    (void)m;
    (void)kernel;
    return sc__metric_finite(sc__metric_get(metrics, key), v);
}

int sc__metric_rd_named(const sc_metric *m, json_object *metrics, const char *kernel,
                        const char *key, double *v)
{
    (void)kernel;
    (void)key;
    return sc__metric_finite(sc__metric_get(metrics, m->name), v);
}

/* One message size's row of metrics.sizes; latency only where it is one (not uniband). */
int sc__metric_rd_size(const sc_metric *m, json_object *metrics, const char *kernel,
                       const char *key, double *v)
{
    json_object *sizes = sc__metric_get(metrics, SC_RESULT_SIZES);
    double bytes;

    if (!strcmp(key, "t_usec") && kernel && strcmp(kernel, "pingpong") != 0)
        return -ENOENT;
    if (!sizes || !json_object_is_type(sizes, json_type_array))
        return -ENOENT;
    for (size_t i = 0; i < json_object_array_length(sizes); i++) {
        json_object *row = json_object_array_get_idx(sizes, i);
        if (sc__metric_finite(sc__metric_get(row, "bytes"), &bytes) == 0 &&
            bytes == (double)m->bytes)
            return sc__metric_finite(sc__metric_get(row, key), v);
    }
    return -ENOENT;
}

void sc_metric_size_name(unsigned long long bytes, char *buf, size_t len)
{
    static const struct {
        unsigned long long unit;
        const char *name;
    } units[] = {{1ULL << 30, "GiB"}, {1ULL << 20, "MiB"}, {1ULL << 10, "KiB"}};

    for (size_t i = 0; bytes && i < sizeof(units) / sizeof(units[0]); i++)
        if (bytes % units[i].unit == 0) {
            snprintf(buf, len, "%llu%s", bytes / units[i].unit, units[i].name);
            return;
        }
    snprintf(buf, len, "%lluB", bytes);
}

/* "8B", "4KiB", "1MiB", "2GiB" (up to 2^40 bytes). 0 or -EINVAL. */
static int sc__parse_size(const char *text, unsigned long long *bytes)
{
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {{"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
    char *end = NULL;

    if (*text < '0' || *text > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno || end == text)
        return -EINVAL;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(end, units[i].suffix) == 0 && n <= (1ULL << (40 - units[i].shift))) {
            *bytes = n << units[i].shift;
            return 0;
        }
    return -EINVAL;
}

void sc__metric_make(const sc_workload_ops *ops, size_t f, unsigned long long bytes, sc_metric *m)
{
    const sc_metric_def *fam = &ops->metrics[f];
    char size[24];

    memset(m, 0, sizeof(*m));
    snprintf(m->unit, sizeof(m->unit), "%s", fam->unit);
    m->better = fam->better;
    m->workload = ops->id;
    m->family = (unsigned)f;
    m->bytes = bytes;
    if (fam->prefix) {
        sc_metric_size_name(bytes, size, sizeof(size));
        snprintf(m->name, sizeof(m->name), "%s%s", fam->prefix, size);
    } else {
        snprintf(m->name, sizeof(m->name), "%s", fam->pattern);
    }
}

int sc__metric_match(const sc_workload_ops *ops, const char *name, sc_metric *m)
{
    unsigned long long bytes;

    for (size_t f = 0; f < ops->n_metrics; f++) {
        const sc_metric_def *fam = &ops->metrics[f];
        if (fam->declared)
            continue; /* the card's metrics: resolved from the card, not by name */
        if (!fam->prefix && strcmp(name, fam->pattern) == 0) {
            sc__metric_make(ops, f, 0, m);
            return 0;
        }
        size_t n = fam->prefix ? strlen(fam->prefix) : 0;
        if (n && strncmp(name, fam->prefix, n) == 0 && sc__parse_size(name + n, &bytes) == 0) {
            sc__metric_make(ops, f, bytes, m);
            return 0;
        }
    }
    return -EINVAL;
}

void sc__metric_add(const sc_workload_ops *ops, const char *name, sc_metric *out, size_t max,
                    size_t *n)
{
    if (*n < max && sc__metric_match(ops, name, &out[*n]) == 0)
        (*n)++;
}

void sc__metric_add_sized(const sc_workload_ops *ops, const char *prefix, unsigned long long bytes,
                          sc_metric *out, size_t max, size_t *n)
{
    char name[SC_METRIC_NAME_MAX], size[24];

    sc_metric_size_name(bytes, size, sizeof(size));
    snprintf(name, sizeof(name), "%s%s", prefix, size);
    sc__metric_add(ops, name, out, max, n);
}

/* The runs of results: its "runs" (results.json schema 2), or none (schema 1: one run, at
   the top). */
json_object *sc__metric_runs(json_object *results)
{
    json_object *runs = sc__metric_get(results, "runs");

    return runs && json_object_is_type(runs, json_type_array) && json_object_array_length(runs)
               ? runs
               : NULL;
}

json_object *sc__metric_first(json_object *results)
{
    json_object *runs = sc__metric_runs(results), *top = sc__metric_get(results, SC_RESULT_METRICS);

    return top || !runs ? top
                        : sc__metric_get(json_object_array_get_idx(runs, 0), SC_RESULT_METRICS);
}

size_t sc__metric_sizes(json_object *results, unsigned long long *out, size_t max)
{
    json_object *sizes = sc__metric_get(sc__metric_first(results), SC_RESULT_SIZES);
    size_t n = 0;
    double bytes;

    for (size_t i = 0; sizes && json_object_is_type(sizes, json_type_array) &&
                       i < json_object_array_length(sizes) && n < max;
         i++)
        if (sc__metric_finite(sc__metric_get(json_object_array_get_idx(sizes, i), "bytes"),
                              &bytes) == 0 &&
            bytes >= 0)
            out[n++] = (unsigned long long)bytes;
    return n;
}

size_t sc__metric_declared(const sc_workload_ops *ops, const sc_card *card, sc_metric *out,
                           size_t max)
{
    size_t row = 0, n = 0;

    while (row < ops->n_metrics && !ops->metrics[row].declared)
        row++;
    if (row == ops->n_metrics)
        return 0; /* a workload whose card declares no metrics of its own */
    for (size_t i = 0; i < card->n_metrics && n < max; i++) {
        const sc_card_metric *cm = &card->metrics[i];
        sc_metric *m = &out[n];
        if (!cm->name || !cm->unit || strlen(cm->name) >= sizeof(m->name) ||
            strlen(cm->unit) >= sizeof(m->unit))
            continue; /* the card check refuses these */
        memset(m, 0, sizeof(*m));
        snprintf(m->name, sizeof(m->name), "%s", cm->name);
        snprintf(m->unit, sizeof(m->unit), "%s", cm->unit);
        m->better = cm->higher ? SC_METRIC_HIGHER : SC_METRIC_LOWER;
        m->workload = ops->id;
        m->family = (unsigned)row;
        m->declared = true;
        m->primary = cm->primary;
        n++;
    }
    return n;
}

int sc_metric_find(const sc_metric *set, size_t n, const char *name, sc_metric *m)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(set[i].name, name) == 0) {
            *m = set[i];
            return 0;
        }
    return -EINVAL;
}
