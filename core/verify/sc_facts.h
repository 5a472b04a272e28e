/*
 * sc_facts.h: what one bundle says about its run, loaded once for `compare`, `classify`,
 * `report` and `export`: the controlled variables (the conditions a comparison must hold
 * constant) and the results.
 *
 * Every controlled variable has one row in a const table (facts.c) that says where it is
 * read; `streamcard compare --variables` prints that table. Values are normalised text, so
 * two runs under the same condition give byte-equal values ("0-1" and "0,1" are one cpu
 * list). A variable the workload does not have is "n/a"; a file that lacks it gives
 * "unavailable". Every text field is safe to show (sc_text_escape(): control characters,
 * ESC and invalid UTF-8 escaped, never cut inside a character). The loader does not judge
 * the evidence: sc_verify_bundle() does that, and callers refuse a bundle it rejects
 * before they use these facts.
 */
#ifndef SC_FACTS_H
#define SC_FACTS_H

#include "sc_card.h"
#include "sc_metric.h"
#include "sc_tracelog.h"

#include <stdbool.h>
#include <stddef.h>

#define SC_FACTS_MAX_VARS 64
#define SC_FACTS_MAX_NODES 64

typedef struct sc_fact {
    const char *name;    /* "binary_sha256" (static) */
    const char *group;   /* "build", "run" or "platform" (static) */
    char *value;         /* malloc'd */
    const char *follows; /* at the default derived from this variable ("cpu_list" for
                            threads that fill cpu_list); NULL otherwise */
} sc_fact;

/* One STREAM function's figures (from results.json "rates"/"times"), or ipsearch's search
   (its rate in queries/s: see rate_unit). */
typedef struct sc_fact_rate {
    char name[16];                    /* "copy", "search" */
    double MBps, avg_s, min_s, max_s; /* MBps: the best rate, in the bundle's rate_unit */
    double *rep_s; /* every repetition's seconds, the warm-up first ("rep_seconds"); NULL */
    size_t n_rep;
} sc_fact_rate;

/* One message size of mpi-pingpong (results.json "sizes"). */
typedef struct sc_fact_size {
    unsigned long long bytes;
    double t_usec, MBps;
} sc_fact_size;

/* One thread in the snapshot at main_loop_begin (threads_at_ready.txt). */
typedef struct sc_fact_thread {
    long tid, cpu;
    long rank; /* mpi-pingpong: the rank whose thread it is; -1 for other workloads */
} sc_fact_thread;

typedef struct sc_bundle_facts {
    char *path;
    const char *name; /* the bundle directory's own name (points into path) */
    sc_fact vars[SC_FACTS_MAX_VARS];
    size_t n_vars;

    sc_workload workload;
    bool mpi; /* its processes were MPI ranks (sc_workload_mpi()): rank snapshots, transport */
    /* host and run_name as results.json says (verify checks they agree with run.conf and
       the card); owner_uid: who owns the bundle directory, which the bundle cannot fake. */
    char host[256], run_name[256], verdict[16], started_at[32], ended_at[32];
    long owner_uid;
    /* mpi-pingpong: the transport that carried the data, from results.json; an outcome of
       the run (the transport gate), not a condition held constant. "" for other workloads,
       "not recorded" when the bundle lacks it. */
    char transport[64];
    /* The figures, chosen only through the metric registry (sc_metric.h): results.json
       as parsed (NULL when unreadable), the metrics the card's question is about, and the
       few of them a summary row shows. */
    json_object *results;
    sc_metric metrics[SC_METRIC_MAX];
    size_t n_metrics;
    sc_metric headline[8];
    size_t n_headline;
    sc_metric primary; /* the card's primary metric (sc_metric_primary()), when has_primary */
    bool has_primary;
    /* exec: the figures its card does not declare (sc_metric_undeclared()): shown, not
       judged */
    sc_metric undeclared[8];
    size_t n_undeclared;
    sc_fact_rate rates[8];
    size_t n_rates;
    const char *rate_unit; /* of rates[].MBps: "MB/s" (stream) or "queries/s" (ipsearch) */
    sc_fact_size *sizes;
    size_t n_sizes;
    sc_binding *bindings; /* the log's TRACE_THREAD_BINDING lines */
    size_t n_bindings;
    /* The snapshot at main_loop_begin: threads_at_ready.txt, or for mpi-pingpong every
       rank's own (TRACE_RANK_THREAD lines), not the launcher's; node_bytes likewise
       (numa_maps_at_ready.txt, or the ranks' TRACE_RANK_NUMA lines summed). */
    sc_fact_thread *threads;
    size_t n_threads;
    sc_rank_thread *rank_threads; /* mpi-pingpong: as the log shows them */
    size_t n_rank_threads;
    sc_rank_numa *rank_numa;
    size_t n_rank_numa;
    /* The environment the runtimes read (sc_runenv.h): the card's env and every variable
       of environ_at_ready.txt but the placement ones streamcard sets from the card, as
       "NAME=VALUE", sorted by name. The env controlled variable shows them joined. */
    char **env;
    size_t n_env;
    /* The inherited variables of that environment that change performance, one line each
       "NAME=VALUE: what it does on this CPU" (sc_envhazard.h); NULL when none or unknown. */
    char *hazards;
    size_t n_hazards;
    char *cpu_list;                                    /* the card's, normalised */
    unsigned long long node_bytes[SC_FACTS_MAX_NODES]; /* anonymous memory per NUMA node */
    int n_nodes;                                       /* highest node with pages + 1 */
    /* Raw texts for the report (NULL when absent). */
    char *card_text, *run_conf, *platform_before, *platform_after, *state_env;
} sc_bundle_facts;

/* Loads the bundle at path. Returns 0, -errno when it cannot be opened, or -ENOMEM. */
int sc_facts_load(const char *path, sc_bundle_facts *f);
void sc_facts_free(sc_bundle_facts *f);
/* Frees what only the bundle's own section of a report shows (the raw texts, the threads,
   bindings and ranks' snapshots, every repetition's time), keeping what a summary or a
   comparison of many bundles reads (the variables, results.json, the best rates, sizes). */
void sc_facts_drop_detail(sc_bundle_facts *f);

/*
 * Whether changing card key key (as a study's step names it: "pool_threads",
 * "expect.min_rate_MBps", "env.OMP_WAIT_POLICY") changes the controlled variable var: the
 * variable of that name, expect for expect.*, env for env.* (the variable's own name is
 * then among env's differences: sc_facts_env_diff()), cpu_list for one_per_core, blas and
 * blas_core for blas.
 */
bool sc_facts_key_changes(const char *key, const char *var);

/* The value of a controlled variable, or NULL when name is not one. */
const char *sc_facts_get(const sc_bundle_facts *f, const char *name);

/* The controlled variables in table order: name, group and where each is read. NULL after
   the last one. */
const char *sc_facts_var(size_t index, const char **group, const char **source);

/* The value of environment variable name in f's env, or NULL when it is not set. */
const char *sc_facts_env_get(const sc_bundle_facts *f, const char *name);

/*
 * The names of the environment variables whose values differ between a and b (set in
 * one only, or to different values), ", "-separated into buf. Returns how many.
 */
size_t sc_facts_env_diff(const sc_bundle_facts *a, const sc_bundle_facts *b, char *buf, size_t len);

/* True when a value is one the bundle could not show: its file or line is missing
   ("unavailable", the stores "not in stream.log"), as when the workload ended early. */
bool sc_facts_unshown(const char *value);

/* True when the first len bytes of name are the name of a controlled variable. */
bool sc_facts_var_known(const char *name, size_t len);

/*
 * The controlled variables whose values differ between a and b: their indexes into vars[]
 * (both loaded by sc_facts_load(), so the tables line up). Returns how many differ.
 */
size_t sc_facts_diff(const sc_bundle_facts *a, const sc_bundle_facts *b,
                     size_t idx[SC_FACTS_MAX_VARS]);

/*
 * When the variable at index i differs only as a consequence of another difference: in
 * both bundles it has the default derived from a variable that differs too (threads that
 * fill cpu_list, pool_threads equal to threads). Returns that variable's name, else NULL.
 */
const char *sc_facts_follows(const sc_bundle_facts *a, const sc_bundle_facts *b, size_t i);

/* Every metric this bundle holds (sc_metric_available(): the registry's, then the ones its
   card declares), into out (at most max): how many. */
size_t sc_facts_available(const sc_bundle_facts *f, sc_metric *out, size_t max);

/* The metric called name for this bundle: one its card declares, else the registry's. 0, or
   -EINVAL when neither has it. */
int sc_facts_metric_named(const sc_bundle_facts *f, const char *name, sc_metric *m);

/* The value of m in this bundle's results.json: 0, or -ENOENT when it holds none. */
int sc_facts_metric(const sc_bundle_facts *f, const sc_metric *m, double *value);

/* Seconds since the epoch of an ISO 8601 UTC time ("2026-11-30T06:48:24Z"); -1 if bad. */
long long sc_facts_epoch(const char *iso);

#endif
