/*
 * sc_metric_def.h: how a workload module declares its metrics (sc_workload.h's metrics),
 * and the readers and builders the modules share. The registry (metric.c) walks the
 * workload table over these rows; nothing here calls the table, so the modules can.
 */
#ifndef SC_METRIC_DEF_H
#define SC_METRIC_DEF_H

#include "sc_metric.h"
#include "sc_workload.h"

/* The value of m in one run's "metrics" object, of a bundle of the card's kernel (NULL
   when the bundle names none), reading key: 0, or -ENOENT. */
typedef int (*sc_metric_reader)(const sc_metric *m, json_object *metrics, const char *kernel,
                                const char *key, double *value);

/* One family of metrics: a fixed name ("qps") or a sized one ("latency_<size>"). */
typedef struct sc_metric_def {
    const char *pattern; /* the name, or "<prefix><size>" */
    const char *prefix;  /* sized metrics: "latency_"; NULL for a fixed name */
    const char *unit;
    sc_metric_better better;
    const char *source; /* where results.json holds it, for help and the design */
    sc_metric_reader read;
    const char *key; /* for the reader */
    /* The row that stands for the card's own metrics (exec's metrics:; sc_metric_declared()):
       shown in help, never resolved by name; its metrics read metrics.<their name>. */
    bool declared;
} sc_metric_def;

/* The metric of ops's family f (and size bytes, for a sized family). */
void sc__metric_make(const sc_workload_ops *ops, size_t f, unsigned long long bytes, sc_metric *m);

/* Resolves name against ops's families: 0, or -EINVAL when none of them has it. */
int sc__metric_match(const sc_workload_ops *ops, const char *name, sc_metric *m);

/* Appends ops's metric called name, or "<prefix><bytes>", to out when there is room. */
void sc__metric_add(const sc_workload_ops *ops, const char *name, sc_metric *out, size_t max,
                    size_t *n);
void sc__metric_add_sized(const sc_workload_ops *ops, const char *prefix, unsigned long long bytes,
                          sc_metric *out, size_t max, size_t *n);

/* The metrics card declares (its metrics:) as ops's declared row's (sc_metric_declared(),
   without the workload table, so a module may call it): how many, at most max. */
size_t sc__metric_declared(const sc_workload_ops *ops, const sc_card *card, sc_metric *out,
                           size_t max);

/* results.json's "runs" (schema 2), or NULL (schema 1: one run, at the top). */
json_object *sc__metric_runs(json_object *results);

/* The "metrics" of a bundle's first run: the top level's (one run), or runs[0]'s. */
json_object *sc__metric_first(json_object *results);

/* The message sizes results.json's first run holds, in its order; at most max. */
size_t sc__metric_sizes(json_object *results, unsigned long long *out, size_t max);

/* o's member key, NULL when o is no object or lacks it; a finite number, or -ENOENT. */
json_object *sc__metric_get(json_object *o, const char *key);
int sc__metric_finite(json_object *v, double *out);

/* Readers: a number at metrics.<key>; at metrics.<m's name> (a declared metric); the row of
 * metrics.sizes with bytes = m's size. */
int sc__metric_rd_number(const sc_metric *m, json_object *metrics, const char *kernel,
                         const char *key, double *v);
int sc__metric_rd_named(const sc_metric *m, json_object *metrics, const char *kernel,
                        const char *key, double *v);
int sc__metric_rd_size(const sc_metric *m, json_object *metrics, const char *kernel,
                       const char *key, double *v);

#endif
