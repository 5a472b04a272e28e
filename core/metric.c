/*
 * metric.c: the registry of metrics (see sc_metric.h). The table sc__families is the one
 * definition of each metric's name, unit, direction, workload and place in results.json.
 */
#include "sc_metric.h"
#include "sc_num.h"
#include "sc_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A reader: the value of m in one run's "metrics" object, of a bundle of the card's kernel
   (NULL when the bundle names none). */
typedef int (*sc__reader)(const sc_metric *m, json_object *metrics, const char *kernel,
                          const char *key, double *value);

static int sc__rd_stream(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v);
static int sc__rd_number(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v);
static int sc__rd_size(const sc_metric *m, json_object *metrics, const char *kernel,
                       const char *key, double *v);

static const struct sc__family {
    const char *pattern; /* the name, or "<prefix><size>" */
    const char *prefix;  /* sized metrics: "latency_"; NULL for a fixed name */
    const char *unit;
    sc_metric_better better;
    sc_workload workload;
    const char *source; /* where results.json holds it, for help and the design */
    sc__reader read;
    const char *key; /* for the reader */
} sc__families[] = {
    {"copy", NULL, "MB/s", SC_METRIC_HIGHER, SC_WORKLOAD_STREAM,
     "metrics.rates.copy (best MB/s of the timed repetitions)", sc__rd_stream, "copy"},
    {"scale", NULL, "MB/s", SC_METRIC_HIGHER, SC_WORKLOAD_STREAM, "metrics.rates.scale",
     sc__rd_stream, "scale"},
    {"add", NULL, "MB/s", SC_METRIC_HIGHER, SC_WORKLOAD_STREAM, "metrics.rates.add", sc__rd_stream,
     "add"},
    {"triad", NULL, "MB/s", SC_METRIC_HIGHER, SC_WORKLOAD_STREAM, "metrics.rates.triad",
     sc__rd_stream, "triad"},
    {"qps", NULL, "queries/s", SC_METRIC_HIGHER, SC_WORKLOAD_IPSEARCH, "metrics.qps", sc__rd_number,
     "qps"},
    {"thread_seconds", NULL, "s", SC_METRIC_LOWER, SC_WORKLOAD_IPSEARCH,
     "metrics.total_thread_seconds (busy time of every search thread)", sc__rd_number,
     "total_thread_seconds"},
    {"latency_<size>", "latency_", "us", SC_METRIC_LOWER, SC_WORKLOAD_MPI_PINGPONG,
     "metrics.sizes[bytes = size].t_usec (half a round trip; kernel pingpong)", sc__rd_size,
     "t_usec"},
    {"bw_<size>", "bw_", "MB/s", SC_METRIC_HIGHER, SC_WORKLOAD_MPI_PINGPONG,
     "metrics.sizes[bytes = size].MBps", sc__rd_size, "MBps"},
};
#define SC__NFAMILIES (sizeof(sc__families) / sizeof(sc__families[0]))

static json_object *sc__get(json_object *o, const char *key)
{
    json_object *v = NULL;

    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
               ? v
               : NULL;
}

/* A figure: a finite number (sc_num.h, the one rule); -ENOENT otherwise. */
static int sc__finite(json_object *v, double *out)
{
    return sc_num_json(v, out) == 0 ? 0 : -ENOENT;
}

static const char *sc__str(json_object *results, const char *key)
{
    json_object *v = sc__get(results, key);

    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A STREAM function's best rate: metrics.rates.<key>, or the one kernel's best_rate_MBps. */
static int sc__rd_stream(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v)
{
    (void)m;
    if (sc__finite(sc__get(sc__get(metrics, "rates"), key), v) == 0)
        return 0;
    if (kernel && strcmp(kernel, key) == 0)
        return sc__finite(sc__get(metrics, "best_rate_MBps"), v);
    return -ENOENT;
}

static int sc__rd_number(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v)
{
    (void)m;
    (void)kernel;
    return sc__finite(sc__get(metrics, key), v);
}

/* One message size's row of metrics.sizes; latency only where it is one (not uniband). */
static int sc__rd_size(const sc_metric *m, json_object *metrics, const char *kernel,
                       const char *key, double *v)
{
    json_object *sizes = sc__get(metrics, "sizes");
    double bytes;

    if (!strcmp(key, "t_usec") && kernel && strcmp(kernel, "pingpong") != 0)
        return -ENOENT;
    if (!sizes || !json_object_is_type(sizes, json_type_array))
        return -ENOENT;
    for (size_t i = 0; i < json_object_array_length(sizes); i++) {
        json_object *row = json_object_array_get_idx(sizes, i);
        if (sc__finite(sc__get(row, "bytes"), &bytes) == 0 && bytes == (double)m->bytes)
            return sc__finite(sc__get(row, key), v);
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

/* The metric of family f (and size bytes, for a sized family). */
static void sc__make(size_t f, unsigned long long bytes, sc_metric *m)
{
    const struct sc__family *fam = &sc__families[f];
    char size[24];

    memset(m, 0, sizeof(*m));
    m->unit = fam->unit;
    m->better = fam->better;
    m->workload = fam->workload;
    m->family = (unsigned)f;
    m->bytes = bytes;
    if (fam->prefix) {
        sc_metric_size_name(bytes, size, sizeof(size));
        snprintf(m->name, sizeof(m->name), "%s%s", fam->prefix, size);
    } else {
        snprintf(m->name, sizeof(m->name), "%s", fam->pattern);
    }
}

int sc_metric_lookup(const char *name, sc_metric *m)
{
    unsigned long long bytes;

    if (!name)
        return -EINVAL;
    for (size_t f = 0; f < SC__NFAMILIES; f++) {
        const struct sc__family *fam = &sc__families[f];
        if (!fam->prefix && strcmp(name, fam->pattern) == 0) {
            sc__make(f, 0, m);
            return 0;
        }
        size_t n = fam->prefix ? strlen(fam->prefix) : 0;
        if (n && strncmp(name, fam->prefix, n) == 0 && sc__parse_size(name + n, &bytes) == 0) {
            sc__make(f, bytes, m);
            return 0;
        }
    }
    return -EINVAL;
}

const char *sc_metric_family(size_t index, const char **unit, const char **better,
                             const char **workload, const char **source)
{
    if (index >= SC__NFAMILIES)
        return NULL;
    const struct sc__family *fam = &sc__families[index];
    if (unit)
        *unit = fam->unit;
    if (better)
        *better = fam->better == SC_METRIC_HIGHER ? "higher" : "lower";
    if (workload)
        *workload = sc_workload_name(fam->workload);
    if (source)
        *source = fam->source;
    return fam->pattern;
}

/* The runs of results: its "runs" (results.json schema 2), or none (schema 1: one run, at
   the top). */
static json_object *sc__runs(json_object *results)
{
    json_object *runs = sc__get(results, "runs");

    return runs && json_object_is_type(runs, json_type_array) && json_object_array_length(runs)
               ? runs
               : NULL;
}

/* The "metrics" of a bundle's first run: the top level's (one run), or runs[0]'s. */
static json_object *sc__first_metrics(json_object *results)
{
    json_object *runs = sc__runs(results), *top = sc__get(results, "metrics");

    return top || !runs ? top : sc__get(json_object_array_get_idx(runs, 0), "metrics");
}

/* m of a bundle of another workload is not there. */
static bool sc__applies(const sc_metric *m, json_object *results)
{
    const char *workload = sc__str(results, "workload");

    return m && m->family < SC__NFAMILIES && results &&
           !(workload && strcmp(workload, sc_workload_name(m->workload)) != 0);
}

size_t sc_metric_samples(const sc_metric *m, json_object *results, double *out, size_t max)
{
    json_object *runs = sc__runs(results);
    const struct sc__family *fam;
    size_t n = 0;

    if (!sc__applies(m, results))
        return 0;
    fam = &sc__families[m->family];
    if (!runs)
        return max && fam->read(m, sc__get(results, "metrics"), sc__str(results, "kernel"),
                                fam->key, &out[0]) == 0;
    for (size_t i = 0; i < json_object_array_length(runs) && n < max; i++)
        n += fam->read(m, sc__get(json_object_array_get_idx(runs, i), "metrics"),
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

/* Appends the metric called name (a registry name) to out, when there is room. */
static void sc__add(const char *name, sc_metric *out, size_t max, size_t *n)
{
    if (*n < max && sc_metric_lookup(name, &out[*n]) == 0)
        (*n)++;
}

static void sc__add_sized(const char *prefix, unsigned long long bytes, sc_metric *out, size_t max,
                          size_t *n)
{
    char name[SC_METRIC_NAME_MAX], size[24];

    sc_metric_size_name(bytes, size, sizeof(size));
    snprintf(name, sizeof(name), "%s%s", prefix, size);
    sc__add(name, out, max, n);
}

/* The message sizes results.json holds, in its order; at most max. */
static size_t sc__sizes(json_object *results, unsigned long long *out, size_t max)
{
    json_object *sizes = sc__get(sc__first_metrics(results), "sizes");
    size_t n = 0;
    double bytes;

    for (size_t i = 0; sizes && json_object_is_type(sizes, json_type_array) &&
                       i < json_object_array_length(sizes) && n < max;
         i++)
        if (sc__finite(sc__get(json_object_array_get_idx(sizes, i), "bytes"), &bytes) == 0 &&
            bytes >= 0)
            out[n++] = (unsigned long long)bytes;
    return n;
}

size_t sc_metric_defaults(const sc_card *card, json_object *results, unsigned which, sc_metric *out,
                          size_t max)
{
    static const char *const stream_all[] = {"copy", "scale", "add", "triad"};
    unsigned long long sizes[SC_METRIC_MAX];
    size_t n = 0;

    if (!card)
        return 0;
    if (card->workload == SC_WORKLOAD_STREAM) {
        if (card->kernel && strcmp(card->kernel, "all") != 0)
            sc__add(card->kernel, out, max, &n);
        else
            for (size_t i = 0; i < sizeof(stream_all) / sizeof(stream_all[0]); i++)
                sc__add(stream_all[i], out, max, &n);
    } else if (card->workload == SC_WORKLOAD_IPSEARCH) {
        sc__add("qps", out, max, &n);
    } else if (card->workload == SC_WORKLOAD_MPI_PINGPONG) {
        size_t ns = sc__sizes(results, sizes, SC_METRIC_MAX);
        bool pingpong = !card->kernel || strcmp(card->kernel, "pingpong") == 0;
        if (ns == 0) { /* nothing measured: the card's smallest and largest sizes */
            sizes[ns++] = card->min_bytes;
            if (card->max_bytes != card->min_bytes)
                sizes[ns++] = card->max_bytes;
        }
        if (pingpong)
            sc__add_sized("latency_", sizes[0], out, max, &n);
        for (size_t i = which == SC_METRIC_HEADLINE ? ns - 1 : 0; i < ns; i++)
            sc__add_sized("bw_", sizes[i], out, max, &n);
    }
    return n;
}

int sc_metric_primary(const sc_card *card, json_object *results, sc_metric *out)
{
    unsigned long long sizes[SC_METRIC_MAX];
    size_t n = 0, ns;

    if (!card)
        return -ENOENT;
    if (card->workload == SC_WORKLOAD_STREAM) {
        const char *k = card->kernel && strcmp(card->kernel, "all") != 0 ? card->kernel : "triad";
        sc__add(k, out, 1, &n);
    } else if (card->workload == SC_WORKLOAD_IPSEARCH) {
        sc__add("qps", out, 1, &n);
    } else if (card->workload == SC_WORKLOAD_MPI_PINGPONG) {
        bool pingpong = !card->kernel || strcmp(card->kernel, "pingpong") == 0;
        if (card->present[SC_CF_EXPECT_AT_BYTES] || card->expect_min_rate_MBps > 0) {
            sc__add_sized("bw_",
                          card->present[SC_CF_EXPECT_AT_BYTES] ? card->expect_at_bytes
                                                               : card->max_bytes,
                          out, 1, &n);
        } else {
            ns = sc__sizes(results, sizes, SC_METRIC_MAX);
            unsigned long long lo = ns ? sizes[0] : card->min_bytes;
            unsigned long long hi = ns ? sizes[ns - 1] : card->max_bytes;
            sc__add_sized(pingpong ? "latency_" : "bw_", pingpong ? lo : hi, out, 1, &n);
        }
    }
    return n ? 0 : -ENOENT;
}

size_t sc_metric_available(json_object *results, sc_metric *out, size_t max)
{
    unsigned long long sizes[SC_METRIC_MAX];
    size_t n = 0, ns = sc__sizes(results, sizes, SC_METRIC_MAX);
    double v;

    for (size_t f = 0; f < SC__NFAMILIES && n < max; f++) {
        if (!sc__families[f].prefix) {
            sc__make(f, 0, &out[n]);
            n += sc_metric_value(&out[n], results, &v) == 0;
            continue;
        }
        for (size_t i = 0; i < ns && n < max; i++) {
            sc__make(f, sizes[i], &out[n]);
            n += sc_metric_value(&out[n], results, &v) == 0;
        }
    }
    return n;
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
