/*
 * card_keys.c: the table of card keys (sc_card_schema.h), one row per key: its YAML path,
 * flag, type, range and help, and how a key is named in messages. It knows no workload:
 * which workload reads which key is the workload module's to say (sc_workload.h, keys).
 */
#include "sc_card_schema.h"
#include "sc_text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sc__card_key sc__card_keys[SC_CF_COUNT] = {
    {SC_CF_VERSION, "version", NULL, SC__CT_LONG, 1, 1, NULL, "card schema version (1)",
     SC__EMIT_SET, SC__ROLE_LABEL},
    {SC_CF_QUESTION, "experiment.question", "question", SC__CT_STRING, 0, 0, NULL,
     "the one question this run answers", SC__EMIT_SET, SC__ROLE_LABEL},
    {SC_CF_RUN_NAME, "experiment.run_name", "run-name", SC__CT_NAME, 0, 0, NULL,
     "bundle name prefix (default: <workload>_<kernel>_<threads>thread)", SC__EMIT_SET,
     SC__ROLE_LABEL},
    {SC_CF_WORKLOAD, "experiment.workload", "workload", SC__CT_WORKLOAD, 0, 0, NULL,
     "stream | ipsearch | mpi-pingpong | exec", SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_KERNEL, "experiment.kernel", "kernel", SC__CT_NAME, 0, 0, NULL,
     "stream: copy|scale|add|triad|all; mpi-pingpong: pingpong|uniband", SC__EMIT_SET,
     SC__ROLE_VARIABLE},
    {SC_CF_COMMAND, "experiment.command", NULL, SC__CT_LIST, 0, 0, NULL,
     "exec: the program and its arguments as a list, no shell ([/usr/bin/dd, if=/dev/zero])",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_METRICS, "experiment.metrics", NULL, SC__CT_METRICS, 0, 0, NULL,
     "exec: figures read from the program's output: a list of {name, pattern (one capture "
     "group) or from: marker (its sc_marker_figure), unit, better: higher|lower, primary: true}",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_VALIDATE_PATTERN, "experiment.validate_pattern", NULL, SC__CT_STRING, 0, 0, NULL,
     "exec: a line of the program's output must match this regex (its own check)", SC__EMIT_SET,
     SC__ROLE_JUDGE},
    {SC_CF_BEGIN_PATTERN, "experiment.begin_pattern", NULL, SC__CT_STRING, 0, 0, NULL,
     "exec: the first line of the program's output matching this regex begins its main loop",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_END_PATTERN, "experiment.end_pattern", NULL, SC__CT_STRING, 0, 0, NULL,
     "exec: the first line after it matching this regex ends its main loop", SC__EMIT_SET,
     SC__ROLE_VARIABLE},
    {SC_CF_MARKERS, "experiment.markers", NULL, SC__CT_CHOICE, 0, 0, "library|patterns|none",
     "exec: how the program marks its main loop: library (streamcard/marker.h) | patterns "
     "(begin_pattern, end_pattern) | none (the whole process; default without patterns)",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_CPU_LIST, "experiment.cpu_list", "cpu-list", SC__CT_CPULIST, 0, 0, NULL,
     "CPUs to bind to, Linux cpulist syntax (0-3,8,10-11)", SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_THREADS, "experiment.threads", "threads", SC__CT_LONG, 1, 65536, NULL,
     "OpenMP threads (default: the CPUs in cpu_list)", SC__EMIT_THREADS, SC__ROLE_VARIABLE},
    {SC_CF_MEMORY_NODE, "experiment.memory_node", "memory-node", SC__CT_LONG, 0, 1023, NULL,
     "NUMA node for every page (membind; not for MPI ranks)", SC__EMIT_NOT_NEGATIVE,
     SC__ROLE_VARIABLE},
    {SC_CF_ONE_PER_CORE, "experiment.one_per_core", "one-per-core", SC__CT_SWITCH, 0, 0, NULL,
     "keep one hardware thread per physical core of cpu_list: on | off (default off)",
     SC__EMIT_NONZERO, SC__ROLE_EVIDENCE},
    {SC_CF_PREFETCH, "experiment.prefetch", "prefetch", SC__CT_PREFETCH, 0, 0, NULL,
     "hardware prefetchers: on | off | unchanged", SC__EMIT_SET, SC__ROLE_EVIDENCE},
    {SC_CF_GOVERNOR, "experiment.governor", "governor", SC__CT_NAME, 0, 0, NULL,
     "CPU frequency governor name | unchanged", SC__EMIT_SET, SC__ROLE_EVIDENCE},
    {SC_CF_ARRAY_SIZE, "experiment.array_size", "array-size", SC__CT_SIZE, 16, 1LL << 40, NULL,
     "stream: elements per array (8-byte doubles), or auto (the cache rule's)", SC__EMIT_SET,
     SC__ROLE_VARIABLE},
    {SC_CF_ITERATIONS, "experiment.iterations", "iterations", SC__CT_LONG, 2, 1000000000, NULL,
     "timed repetitions (stream, ipsearch: the first is a warm-up) or round trips per size (mpi)",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_NT_STORES, "experiment.nt_stores", "nt-stores", SC__CT_CHOICE, 0, 0, "auto|on|off",
     "stream: non-temporal stores: auto | on | off", SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_CACHE_RESIDENT, "experiment.cache_resident", "cache-resident", SC__CT_CHOICE, 0, 0,
     "refuse|accept",
     "stream: accept an array inside 4x the last-level caches on purpose: refuse | accept",
     SC__EMIT_SET, SC__ROLE_JUDGE},
    {SC_CF_NB, "experiment.nb", "nb", SC__CT_U64, 1, 1LL << 34, NULL, "ipsearch: database vectors",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_NQ, "experiment.nq", "nq", SC__CT_U64, 1, 1LL << 30, NULL, "ipsearch: query vectors",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_DIM, "experiment.dim", "dim", SC__CT_U64, 1, 65536, NULL, "ipsearch: vector dimension",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_K, "experiment.k", "k", SC__CT_U64, 1, 4096, NULL, "ipsearch: results per query",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_POOL_THREADS, "experiment.pool_threads", "pool-threads", SC__CT_LONG, 1, 65536, NULL,
     "ipsearch: the application's own worker threads", SC__EMIT_PRESENT, SC__ROLE_VARIABLE},
    {SC_CF_BLAS, "experiment.blas", "blas", SC__CT_CHOICE, 0, 0,
     "default|openblas-pthread|openblas-openmp|openblas-serial|/path",
     "ipsearch, exec: the BLAS loaded: default | openblas-pthread | openblas-openmp | "
     "openblas-serial | an absolute path to a shared library, preloaded",
     SC__EMIT_PRESENT, SC__ROLE_EVIDENCE},
    {SC_CF_RANKS, "experiment.ranks", "ranks", SC__CT_LONG, 1, 4096, NULL,
     "mpi-pingpong, exec: MPI ranks (mpi-pingpong 2, pairs: all one per node, 2 or more, "
     "default the nodes' count; exec: an MPI program's ranks, 1 or more, one per CPU of "
     "cpu_list)",
     SC__EMIT_NONZERO, SC__ROLE_VARIABLE},
    {SC_CF_MIN_BYTES, "experiment.min_bytes", "min-bytes", SC__CT_U64, 0, 1LL << 30, NULL,
     "mpi-pingpong: smallest message", SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_MAX_BYTES, "experiment.max_bytes", "max-bytes", SC__CT_U64, 1, 1LL << 30, NULL,
     "mpi-pingpong: largest message", SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_WINDOW, "experiment.window", "window", SC__CT_LONG, 1, 1024, NULL,
     "mpi-pingpong uniband: messages in flight per window", SC__EMIT_NONZERO, SC__ROLE_VARIABLE},
    {SC_CF_PAIRS, "experiment.pairs", "pairs", SC__CT_CHOICE, 0, 0, "first|all",
     "mpi-pingpong: first (ranks 0 and 1) | all (every node pair in rounds: a link matrix)",
     SC__EMIT_PAIRS_ALL, SC__ROLE_VARIABLE},
    {SC_CF_OUTLIER_MAD, "experiment.outlier_mad", "outlier-mad", SC__CT_DOUBLE, 0, 0, NULL,
     "pairs: all: a node or link is bad beyond this many MADs of the others (default 3)",
     SC__EMIT_PAIRS_ALL, SC__ROLE_JUDGE},
    {SC_CF_OUTLIER_MIN_PCT, "experiment.outlier_min_pct", "outlier-min-pct", SC__CT_DOUBLE, 0, 0,
     NULL, "pairs: all: and at least this % worse than the others (default 20)", SC__EMIT_PAIRS_ALL,
     SC__ROLE_JUDGE},
    {SC_CF_PASSES, "experiment.passes", "passes", SC__CT_LONG, 1, 100, NULL,
     "pairs: all: passes of the schedule, each pair measured once a pass (default 3)",
     SC__EMIT_PAIRS_ALL, SC__ROLE_MEASURE},
    {SC_CF_NODES, "experiment.nodes", "nodes", SC__CT_STRING, 0, 0, NULL,
     "Slurm hostlist the card may run on (node[01-02])", SC__EMIT_SET, SC__ROLE_MEASURE},
    {SC_CF_RUNS, "experiment.runs", "runs", SC__CT_RUNS, 1, 1000, NULL,
     "separate runs of the workload into one bundle, or auto (default 1)", SC__EMIT_SET,
     SC__ROLE_MEASURE},
    {SC_CF_RUNS_CI_PCT, "experiment.runs_ci_pct", "runs-ci-pct", SC__CT_DOUBLE, 0, 0, NULL,
     "runs: auto: stop when the median's 95% interval is within this % (default 2)",
     SC__EMIT_RUNS_AUTO, SC__ROLE_MEASURE},
    {SC_CF_RUNS_MAX, "experiment.runs_max", "runs-max", SC__CT_LONG, 6, 1000, NULL,
     "runs: auto: at most this many runs (default 30)", SC__EMIT_RUNS_AUTO, SC__ROLE_MEASURE},
    {SC_CF_INTERFERENCE_ACCOUNTING, "experiment.interference_accounting", "interference-accounting",
     SC__CT_SWITCH, 0, 0, NULL, "account foreign work on the card's CPUs: on | off (default on)",
     SC__EMIT_SET, SC__ROLE_MEASURE},
    {SC_CF_EXPECT_TRANSPORT, "experiment.expect.transport", "expect-transport", SC__CT_CARRIERS, 0,
     0, NULL,
     "mpi: carrier(s) the data must go over: shm, tcp, ofi:PROVIDER, ucx:TRANSPORT; a list "
     "(shm,tcp) means any of them",
     SC__EMIT_SET, SC__ROLE_EXPECT},
    {SC_CF_EXPECT_INTERFACE, "experiment.expect.interface", "expect-interface", SC__CT_NAME, 0, 0,
     NULL,
     "mpi: the network interface (eth0, hsn0, ib0) that must carry 90% of the payload bytes "
     "(exec: of every counted interface's bytes)",
     SC__EMIT_SET, SC__ROLE_EXPECT},
    {SC_CF_EXPECT_MIN_RATE, "experiment.expect.min_rate_MBps", "expect-min-rate", SC__CT_DOUBLE, 0,
     0, NULL, "best rate below this (MB/s) fails the run (mpi: the rate at at_bytes)",
     SC__EMIT_NONZERO, SC__ROLE_EXPECT},
    {SC_CF_EXPECT_AT_BYTES, "experiment.expect.at_bytes", "expect-at-bytes", SC__CT_U64, 0,
     1LL << 30, NULL, "mpi: the message size min_rate_MBps applies to (default: max_bytes)",
     SC__EMIT_PRESENT, SC__ROLE_EXPECT},
    {SC_CF_EXPECT_MAX_LATENCY, "experiment.expect.max_latency_us", "expect-max-latency",
     SC__CT_DOUBLE, 0, 0, NULL,
     "mpi pingpong: a latency (us) at the smallest size above this fails the run", SC__EMIT_NONZERO,
     SC__ROLE_EXPECT},
    {SC_CF_EXPECT_MAX_INTERFERENCE, "experiment.expect.max_interference_pct",
     "expect-max-interference", SC__CT_DOUBLE, 0, 0, NULL,
     "foreign share of any card CPU above this % fails the run (default 5)", SC__EMIT_ACCOUNTING,
     SC__ROLE_JUDGE},
    {SC_CF_ENV, "experiment.env", NULL, SC__CT_ENV, 0, 0, NULL, "variables set for the workload",
     SC__EMIT_SET, SC__ROLE_VARIABLE},
    {SC_CF_CONTROLLED, "experiment.controlled_variables", NULL, SC__CT_LIST, 0, 0, NULL,
     "what was held constant (documentation)", SC__EMIT_SET, SC__ROLE_LABEL},
};

const sc__card_key *sc__card_key_by_path(const char *path)
{
    for (size_t i = 0; i < SC_CF_COUNT; i++)
        if (strcmp(sc__card_keys[i].path, path) == 0)
            return &sc__card_keys[i];
    return NULL;
}

const sc__card_key *sc__card_key_by_flag(const char *flag)
{
    for (size_t i = 0; i < SC_CF_COUNT; i++)
        if (sc__card_keys[i].flag && strcmp(sc__card_keys[i].flag, flag) == 0)
            return &sc__card_keys[i];
    return NULL;
}

const char *sc__card_key_name(const sc__card_key *key)
{
    const char *dot = strrchr(key->path, '.');

    return dot ? dot + 1 : key->path;
}

const sc__card_key *sc__card_key_by_name(const char *name)
{
    for (size_t i = 0; i < SC_CF_COUNT; i++)
        if (strcmp(sc__card_key_name(&sc__card_keys[i]), name) == 0)
            return &sc__card_keys[i];
    return NULL;
}

const char *sc__card_section_name(const char *path)
{
    if (!strncmp(path, "experiment.expect.", 18))
        return "under expect:";
    if (!strncmp(path, "experiment.", 11))
        return "under experiment:";
    return "at the top level";
}

const sc__card_key *sc__card_key_suggest(const char *name)
{
    const sc__card_key *best = NULL;
    size_t best_d = 3; /* suggest only close misspellings */

    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        size_t d = sc_text_distance(name, sc__card_key_name(&sc__card_keys[i]));
        if (d < best_d) {
            best_d = d;
            best = &sc__card_keys[i];
        }
    }
    return best;
}

const char *sc_card_flag(size_t index, const char **help)
{
    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        if (!sc__card_keys[i].flag)
            continue;
        if (index-- == 0) {
            if (help)
                *help = sc__card_keys[i].help;
            return sc__card_keys[i].flag;
        }
    }
    return NULL;
}

const char *sc_card_field_name(sc_card_field field)
{
    return field < SC_CF_COUNT ? sc__card_key_name(&sc__card_keys[field]) : "none";
}

/* Where a field came from, for messages: "card.yaml:5", "--threads" or "card.yaml". */
const char *sc__card_where(const sc_card *card, sc_card_field f, char *buf, size_t len)
{
    const sc__card_key *key = &sc__card_keys[f];

    if (card->line[f] > 0 && card->swept == f)
        snprintf(buf, len, "%s:%d (sweep value %zu)", card->source_name, card->line[f],
                 card->swept_index + 1);
    else if (card->line[f] > 0)
        snprintf(buf, len, "%s:%d", card->source_name, card->line[f]);
    else if (card->present[f] && key->flag)
        snprintf(buf, len, "--%s", key->flag);
    else
        snprintf(buf, len, "%s", card->source_name);
    return buf;
}

/* Keys a sweep may vary: what a run is, not what the card is or where it may run. */
bool sc__card_key_sweepable(const sc__card_key *key)
{
    switch (key->field) {
    case SC_CF_VERSION:
    case SC_CF_QUESTION:
    case SC_CF_RUN_NAME:
    case SC_CF_WORKLOAD:
    case SC_CF_COMMAND:
    case SC_CF_METRICS:
    case SC_CF_VALIDATE_PATTERN:
    case SC_CF_BEGIN_PATTERN:
    case SC_CF_END_PATTERN:
    case SC_CF_MARKERS:
    case SC_CF_NODES:
    case SC_CF_RUNS:
    case SC_CF_RUNS_CI_PCT:
    case SC_CF_RUNS_MAX:
    case SC_CF_PAIRS: /* one matrix is one run: its shape and its judgement stay put */
    case SC_CF_OUTLIER_MAD:
    case SC_CF_OUTLIER_MIN_PCT:
    case SC_CF_PASSES:
    case SC_CF_ENV:
    case SC_CF_CONTROLLED:
        return false;
    default:
        return true;
    }
}

int sc__card_default_string(char **slot, const char *value)
{
    if (*slot)
        return 0;
    *slot = strdup(value);
    return *slot ? 0 : -ENOMEM;
}

/* Names (run names, metric names, a program's in a run name): in card_keys.c, not
   card_schema.c, so the workload modules can ask without a call loop through the table. */
static bool sc__name_char(char c)
{
    return isalnum((unsigned char)c) || (c && strchr("._-:", c));
}

bool sc__card_is_name(const char *s)
{
    if (!*s || *s == '.' || *s == '-')
        return false;
    for (const char *p = s; *p; p++)
        if (!sc__name_char(*p))
            return false;
    return strlen(s) <= SC__CARD_NAME_MAX;
}

void sc__card_name_sanitize(char *name)
{
    for (char *p = name; *p; p++)
        if (!sc__name_char(*p))
            *p = '_';
    if (strlen(name) > SC__CARD_NAME_MAX)
        name[SC__CARD_NAME_MAX] = '\0';
}
