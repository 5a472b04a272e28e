/*
 * sc_card.h: the experiment card (schema version 1; doc/contracts/card.md, "The experiment card").
 *
 * One card = one question = one independent variable. The card is parsed with libyaml;
 * every key is looked up in one table (card_schema.c) that also gives each key its
 * command-line flag, so `--threads 4` and `threads: 4` go through the same conversion
 * and the same checks. Checking is split in two:
 *   sc_card_check()          machine-independent rules (runs anywhere, e.g. sbatch on a
 *                            login node);
 *   sc_card_check_machine()  rules that depend on the node the workload runs on.
 * Both append one line per problem to an sc_diag:
 *   "card.yaml:5: threads: 17 is more than the 16 CPUs of cpu_list 0-15 (valid: 1-16)".
 */
#ifndef SC_CARD_H
#define SC_CARD_H

#include "sc_diag.h"
#include "sc_workload_id.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a card may hold, the same on every side that reads one (sbatch, the compute node,
 * `streamcard run`): checked on the text before anything is built from it, so reading any
 * card costs time and memory in proportion to these, whatever it holds. A card has no
 * anchors or aliases. (doc/contracts/limits.md, "Limits".)
 */
#define SC_CARD_MAX_BYTES 65536 /* the card's bytes */
#define SC_CARD_MAX_DEPTH 8     /* mappings and lists inside each other */
#define SC_CARD_MAX_SCALAR 4096 /* bytes of one key or value */
#define SC_CARD_MAX_ITEMS 256   /* entries of one mapping or list */

typedef enum sc_prefetch {
    SC_PREFETCH_UNCHANGED = 0,
    SC_PREFETCH_ON,
    SC_PREFETCH_OFF,
} sc_prefetch;

/* Card keys, in schema order. Each has a row in the schema table (card_schema.c). */
typedef enum sc_card_field {
    SC_CF_VERSION = 0,
    SC_CF_QUESTION,
    SC_CF_RUN_NAME,
    SC_CF_WORKLOAD,
    SC_CF_KERNEL,
    SC_CF_COMMAND,
    SC_CF_METRICS,
    SC_CF_VALIDATE_PATTERN,
    SC_CF_BEGIN_PATTERN,
    SC_CF_END_PATTERN,
    SC_CF_MARKERS,
    SC_CF_CPU_LIST,
    SC_CF_THREADS,
    SC_CF_MEMORY_NODE,
    SC_CF_ONE_PER_CORE,
    SC_CF_PREFETCH,
    SC_CF_GOVERNOR,
    SC_CF_ARRAY_SIZE,
    SC_CF_ITERATIONS,
    SC_CF_NT_STORES,
    SC_CF_CACHE_RESIDENT,
    SC_CF_NB,
    SC_CF_NQ,
    SC_CF_DIM,
    SC_CF_K,
    SC_CF_POOL_THREADS,
    SC_CF_BLAS,
    SC_CF_RANKS,
    SC_CF_MIN_BYTES,
    SC_CF_MAX_BYTES,
    SC_CF_WINDOW,
    SC_CF_PAIRS,
    SC_CF_OUTLIER_MAD,
    SC_CF_OUTLIER_MIN_PCT,
    SC_CF_PASSES,
    SC_CF_NODES,
    SC_CF_RUNS,
    SC_CF_RUNS_CI_PCT,
    SC_CF_RUNS_MAX,
    SC_CF_INTERFERENCE_ACCOUNTING,
    SC_CF_EXPECT_TRANSPORT,
    SC_CF_EXPECT_INTERFACE,
    SC_CF_EXPECT_MIN_RATE,
    SC_CF_EXPECT_AT_BYTES,
    SC_CF_EXPECT_MAX_LATENCY,
    SC_CF_EXPECT_MAX_INTERFERENCE,
    SC_CF_ENV,
    SC_CF_CONTROLLED,
    SC_CF_COUNT
} sc_card_field;

/* exec: a figure of the program, read from its log by a pattern (doc/contracts/layout.md,
   "Figures of a program"). */
typedef struct sc_card_metric {
    char *name;    /* a name: [A-Za-z0-9._:-] */
    char *pattern; /* a POSIX extended regex with one capture group, the figure; NULL with
                      from_marker */
    bool from_marker; /* from: marker: the figure the program reports under name with
                         sc_marker_figure() (doc/markers.md), in place of a pattern */
    char *unit;    /* as the program prints it ("GB/s") */
    bool higher;   /* better: higher (else lower) */
    bool primary;  /* the one compare and classify judge by (at most one) */
    int line;      /* its YAML line */
} sc_card_metric;

/* The most metrics a card declares, and the longest pattern (validate_pattern too). */
#define SC_CARD_MAX_METRICS 16
#define SC_CARD_MAX_PATTERN 256

typedef struct sc_card_kv {
    char *key;
    char *value;
} sc_card_kv;

/* One step of an ablation study (sc_ablation.h): named card changes. */
typedef struct sc_card_step {
    char *name;
    int line;
    sc_card_kv *set; /* key as under experiment ("threads", "expect.min_rate_MBps") or
                        "env.NAME", and its value as written */
    int *set_lines;
    size_t n_set;
    char **unset; /* environment variables the step removes */
    size_t n_unset;
} sc_card_step;

#define SC_ABLATION_MAX_STEPS 32 /* a study of n steps makes 2n runs, each with runs: N */
/* What a study's metric: that names no metric is told (the card's reader and check). */
#define SC_ABLATION_METRIC_INVALID                                                                 \
    "not a metric of the registry (valid: qps, thread_seconds, copy, scale, add, triad, "          \
    "latency_<size>, bw_<size>, or a name the card's metrics: declare)"

/* pairs: all: the defaults of outlier_mad and outlier_min_pct, the bounds of a bad node or
   link (the link matrix's, sc_linkmatrix.h, are these). */
#define SC_CARD_OUTLIER_MAD_DEFAULT 3.0
#define SC_CARD_OUTLIER_MIN_PCT_DEFAULT 20.0

typedef struct sc_card {
    char *source; /* the YAML exactly as given; NULL for a card made of flags only */
    size_t source_len;
    char *source_name; /* for messages: the file name, or "command line" */
    /* Rebuilt from a node's card record (sc_card_record_read): the keys that stay in the
       YAML (lists, patterns, the question) are absent from it, not missing; what they
       require of each other was checked by the card-check child on the whole card. */
    bool from_record;

    long version;
    char *question;
    char *run_name; /* NULL until sc_card_check() derives the default */
    sc_workload workload;
    char *kernel; /* stream: copy|scale|add|triad|all; mpi: pingpong|uniband */
    /* exec: the program and its arguments, no shell: command[0] is an absolute path or a
       name looked up on PATH when the run is planned */
    char **command;
    size_t n_command;
    sc_card_metric *metrics; /* exec: its figures, by pattern */
    size_t n_metrics;
    char *validate_pattern; /* exec: a line of the log must match it (the program's check) */
    /* exec: the program's own lines as its phase markers: the first line matching
       begin_pattern begins the main loop, the first after it matching end_pattern ends it */
    char *begin_pattern, *end_pattern;
    /* exec: how the program marks its main loop (doc/markers.md): "library" (marker.h),
       "patterns" (begin_pattern), "none"; NULL: patterns with begin_pattern, else none */
    char *markers;
    char *cpu_list; /* as written */
    hwloc_bitmap_t cpus;
    long threads;     /* 0 until set or derived (= CPUs in cpu_list) */
    long memory_node; /* -1: not bound */
    /* one_per_core: cpus keeps one hardware thread per physical core, resolved with hwloc on
       the node that runs the workload; one_per_core_from is then cpu_list as written. */
    bool one_per_core;
    char *one_per_core_from;
    sc_prefetch prefetch;
    char *governor; /* "unchanged" or a scaling governor name */
    uint64_t array_size;
    long iterations;
    char *nt_stores; /* stream: auto|on|off */
    /* stream: "refuse" (default) or "accept": an array inside 4x the last-level caches
       (and its short iterations) accepted on purpose, for cache studies and tests */
    char *cache_resident;
    uint64_t nb, nq, dim, k;
    long pool_threads;
    char *blas; /* ipsearch: "default" or the Debian OpenBLAS build (openblas-openmp, ...) */
    long ranks;
    uint64_t min_bytes, max_bytes;
    long window; /* mpi uniband: messages in flight per window */
    char *pairs; /* mpi: "first" (ranks 0 and 1) or "all" (every node pair, "Link matrix") */
    double outlier_mad, outlier_min_pct; /* pairs: all: the bounds of a bad node or link */
    long passes; /* pairs: all: every pair measured in this many passes of the schedule */
    char *nodes; /* Slurm hostlist the card may run on; NULL: any */
    /* How many times the workload runs, each a separate process, into one bundle: a number,
       or 0 for "auto": until the median's 95% interval is within runs_ci_pct % of the
       median, at most runs_max runs (doc/contracts/run.md, "Runs"). */
    long runs;
    double runs_ci_pct;
    long runs_max;
    bool interference_accounting; /* the sampler runs and the interference gate is asked */
    char *expect_transport;
    char *expect_interface;       /* mpi: the NIC that must carry >= 90% of the payload bytes */
    double expect_min_rate_MBps;  /* 0: no minimum */
    uint64_t expect_at_bytes;     /* mpi: the size min_rate applies to (present[]: else the
                                     largest) */
    double expect_max_latency_us; /* mpi pingpong: at the smallest size; 0: no maximum */
    double expect_max_interference_pct; /* the interference gate's limit per CPU */
    sc_card_kv *env;
    size_t n_env;
    char **controlled;
    size_t n_controlled;

    /* A sweep: one key with a list of values ("threads: [1, 2]" or
       "sweep: {prefetch: [on, off]}"); each value is its own run and bundle. */
    sc_card_field sweep_field; /* SC_CF_COUNT when the card has no sweep */
    char *sweep_env;           /* sweep_field SC_CF_ENV: the variable swept (its values below) */
    char **sweep_values;
    int *sweep_lines; /* the YAML line of each value */
    size_t n_sweep;
    char *name_suffix;   /* appended to run_name by a sweep instance ("_threads-2") */
    sc_card_field swept; /* after sc_card_sweep_select(): the key it set, for messages */
    size_t swept_index;

    /* An ablation study (top-level ablation: and metric:, sc_ablation.h): the card's
       experiment is the baseline. A run's card holds none (sc_card_dup() copies none). */
    sc_card_step *steps;
    size_t n_steps;
    int ablation_line;
    char *study_metric; /* metric: the study's figure of merit; NULL: the workload's */
    int study_metric_line;
    /* A paired run (top-level against:, sc_pair.h): the one change that makes side B of
       the card's experiment (side A), as a step without a name: set: at most one key
       (none: an A/A pair). NULL for any other card; a run's card holds none. */
    sc_card_step *against;
    int against_line;
    /* Inherited environment variables this run's workload starts without (a step's unset). */
    char **env_unset;
    size_t n_env_unset;

    bool present[SC_CF_COUNT]; /* given in the YAML or by a flag */
    /* Given, but the value was refused (and reported): the checks that relate it to other
       keys skip it, so that one mistake makes one message. */
    bool invalid[SC_CF_COUNT];
    int line[SC_CF_COUNT]; /* YAML line (1-based); 0 when given by a flag */
    bool overridden;       /* a flag changed a value after the YAML was read */
} sc_card;

/* Allocates an empty card with the defaults of schema version 1. NULL on ENOMEM. */
sc_card *sc_card_new(void);
void sc_card_free(sc_card *card);

/*
 * Parses YAML text into card. name is used in messages. Every problem (syntax error,
 * unknown or duplicate key, bad value) is appended to diag. Returns 0 when nothing was
 * appended; -EINVAL when keys or values were wrong (the card holds whatever parsed, and
 * sc_card_check() can still report the rest); -EBADMSG when the text is not a YAML
 * mapping at all, or goes beyond a limit above (one line says which).
 */
int sc_card_parse(sc_card *card, const char *text, size_t len, const char *name, sc_diag *diag);

/* Reads the file at path (as the calling user) and parses it. -errno when unreadable. */
int sc_card_load_file(sc_card *card, const char *path, sc_diag *diag);

/*
 * Sets one key from a command-line flag (flag is the key with '-' for '_', e.g.
 * "cpu-list", "memory-node", "expect-transport"). Returns 0, -ENOENT for an unknown flag,
 * or -EINVAL with a line appended to diag.
 */
int sc_card_set_flag(sc_card *card, const char *flag, const char *value, sc_diag *diag);

/*
 * Iterates the command-line flags of the card keys: returns the flag of the index-th
 * one (0-based), or NULL after the last; *help (may be NULL) gets its one-line help.
 */
const char *sc_card_flag(size_t index, const char **help);

/*
 * Makes card the index-th run of its sweep: the swept key takes that value (checked like
 * any other value) and the sweep is cleared. Returns 0 or -EINVAL with a line in diag.
 */
int sc_card_sweep_select(sc_card *card, size_t index, sc_diag *diag);

/*
 * The index-th run of card's sweep as a card of its own (*out, to free): a copy of card
 * without the sweep and without the YAML text (source: the run's card.yaml is its resolved
 * card), the swept key set to that value; card itself is not changed. Nothing is parsed
 * again. Returns 0; -EINVAL with a line in diag when the value is refused (*out is still
 * the copy, for further checks); -ENOMEM (*out NULL).
 */
int sc_card_sweep_instance(const sc_card *card, size_t index, sc_card **out, sc_diag *diag);

/* The value card's env gives name, or NULL when it sets none. */
const char *sc_card_env_get(const sc_card *card, const char *name);

/*
 * Sets name=value in card's env (replacing the value it had). 0 or -ENOMEM. The name is
 * checked with the card's other env names by sc_card_check().
 */
int sc_card_env_set(sc_card *card, const char *name, const char *value);

/* A copy of card that shares nothing with it (the sweep included). NULL on ENOMEM. */
sc_card *sc_card_dup(const sc_card *card);

/* The YAML key name of a card field ("threads"), for messages and tables. */
const char *sc_card_field_name(sc_card_field field);

/*
 * Machine-independent rules; derives run_name and threads when absent. 0 or -EINVAL. A
 * card with a sweep is checked as the runs it makes (sc_series_from_card(), series.c):
 * each value's card must pass, each problem is said once, and card is left as it is.
 */
int sc_card_check(sc_card *card, sc_diag *diag);

/*
 * one_per_core resolved on the node that runs the workload: card's CPUs become kept (one
 * hardware thread per physical core of its cpu_list, sc_cpulist_one_per_core()), cpu_list
 * names them and one_per_core_from keeps the list as written; threads and pool_threads not
 * given follow the kept CPUs, and a run name derived from the layout before
 * ("ipsearch_2thread_2pool_seq-4") names the layout now ("ipsearch_1thread_1pool_seq-4").
 * Returns 0, -EINVAL (threads given are more than the kept CPUs; a line in diag) or -ENOMEM.
 */
int sc_card_keep_cpus(sc_card *card, hwloc_const_bitmap_t kept, sc_diag *diag);

/* Facts about the node that runs the workload (see sc_machine.h). */
struct sc_machine;
/*
 * Rules that depend on the node: CPUs online and allowed, NUMA node present and allowed,
 * sizes fit in memory, governor offered. platform_control says whether something can set
 * prefetch and governor (the SPANK plugin) or read them back (`streamcard run` as root outside
 * a job, which then holds the run to them); without it they must be "unchanged".
 */
int sc_card_check_machine(const sc_card *card, const struct sc_machine *m, bool platform_control,
                          sc_diag *diag);

/*
 * What a checked card asks of Slurm, so that the job's tasks hold the CPUs of cpu_list on
 * each node: a threaded workload is one task holding every CPU of cpu_list; mpi-pingpong is
 * one task per rank (each node's ranks are bound in order to cpu_list), over the card's
 * nodes. The cli_filter asks for it (`streamcard resources`) and the node's refusal of a
 * job without the card's CPUs names it.
 */
typedef struct sc_card_tasks {
    long ntasks;        /* in all; 0: one per node of the allocation (pairs: all, no nodes) */
    long nodes;         /* 1, the card's nodes, or 0: the allocation's (pairs: all) */
    long per_node;      /* tasks on each node */
    long cpus_per_task; /* at least 1 */
} sc_card_tasks;

void sc_card_tasks_of(const sc_card *card, sc_card_tasks *t);

/* sbatch's options for t, into buf: "-c 2", "-n 2", "-n 2 -c 2", "-N 2 --ntasks-per-node=1",
   "-N NODES --ntasks-per-node=1" (the allocation's nodes). */
void sc_card_tasks_format(const sc_card_tasks *t, char *buf, size_t len);

/* Emits the resolved card as YAML (every key with its effective value). malloc'd. */
char *sc_card_to_yaml(const sc_card *card);

/* Bytes the workload allocates (for the memory check and the plan). */
uint64_t sc_card_memory_bytes(const sc_card *card);

/* One parameter of the workload's own run, with its effective value. */
typedef struct sc_card_param {
    const char *name; /* the card key: "nb" */
    const char *text; /* a word ("pingpong", "auto"), or NULL: the value is number */
    uint64_t number;
} sc_card_param;

#define SC_CARD_MAX_PARAMS 12

/*
 * The sizes and settings the card's workload reads, in schema order (stream: array_size,
 * iterations, nt_stores; ipsearch: iterations, nb, nq, dim, k, pool_threads; mpi-pingpong:
 * kernel, iterations, ranks, min_bytes, max_bytes), for run.conf and build.json.
 * Returns how many entries of out were filled.
 */
size_t sc_card_run_parameters(const sc_card *card, sc_card_param out[SC_CARD_MAX_PARAMS]);

/* Defaults of the runs and interference keys (doc/contracts/run.md, "Runs", "Interference"). */
#define SC_CARD_RUNS_CI_PCT_DEFAULT 2.0
#define SC_CARD_RUNS_MAX_DEFAULT 30
#define SC_CARD_MAX_INTERFERENCE_DEFAULT 5.0

const char *sc_prefetch_name(sc_prefetch p);

/* The workload modules (name, keys, checks, metrics): after the card, which they read. */
#include "sc_workload.h"

#endif
