/*
 * card_check.c: the rules the card of one run must satisfy before anything runs.
 * sc__card_check_run() holds the rules that are the same everywhere (sbatch on a login node
 * runs only these; sc_card_check() in series.c applies them to every run of a card);
 * sc_card_check_machine() the ones that depend on the node the workload runs on.
 */
#include "sc_card.h"
#include "sc_card_schema.h"
#include "sc_cpulist.h"
#include "sc_hostlist.h"
#include "sc_linkmatrix.h"
#include "sc_machine.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a field came from, for messages: "card.yaml:5", "--threads" or "card.yaml". */
static const char *sc__where(const sc_card *card, sc_card_field f, char *buf, size_t len)
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

/* Neither of the two keys had its value refused: a rule relating them can be checked. */
static bool sc__valid(const sc_card *card, sc_card_field a, sc_card_field b)
{
    return !card->invalid[a] && !card->invalid[b];
}

static double sc__gib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

uint64_t sc_card_memory_bytes(const sc_card *card)
{
    switch (card->workload) {
    case SC_WORKLOAD_STREAM:
        return card->array_size * 3 * sizeof(double);
    case SC_WORKLOAD_IPSEARCH:
        /* database + queries (float32), plus per-query top-k (score + id). */
        return (card->nb + card->nq) * card->dim * 4 + card->nq * card->k * 12;
    case SC_WORKLOAD_MPI_PINGPONG:
        /* Send and receive buffers; uniband's receiver holds a window of messages. */
        return card->max_bytes * (uint64_t)(2 + card->window) *
               (uint64_t)(card->ranks ? card->ranks : 2);
    default:
        return 0;
    }
}

static int sc__set_default_string(char **slot, const char *value)
{
    if (*slot)
        return 0;
    *slot = strdup(value);
    return *slot ? 0 : -ENOMEM;
}

/* Defaults that depend on the workload, applied only to keys the card does not give. */
static int sc__apply_defaults(sc_card *card)
{
    switch (card->workload) {
    case SC_WORKLOAD_STREAM:
        if (!card->present[SC_CF_ARRAY_SIZE])
            card->array_size = 10000000;
        if (!card->present[SC_CF_ITERATIONS])
            card->iterations = 10;
        return sc__set_default_string(&card->kernel, "all");
    case SC_WORKLOAD_IPSEARCH:
        if (!card->present[SC_CF_NB])
            card->nb = 200000;
        if (!card->present[SC_CF_NQ])
            card->nq = 1000;
        if (!card->present[SC_CF_DIM])
            card->dim = 128;
        if (!card->present[SC_CF_K])
            card->k = 10;
        if (!card->present[SC_CF_POOL_THREADS])
            card->pool_threads = card->threads;
        if (!card->present[SC_CF_ITERATIONS])
            card->iterations = 3;
        return 0;
    case SC_WORKLOAD_MPI_PINGPONG:
        if (!card->present[SC_CF_RANKS])
            card->ranks = 2;
        if (!card->present[SC_CF_MIN_BYTES])
            card->min_bytes = 1;
        if (!card->present[SC_CF_MAX_BYTES])
            card->max_bytes = 4u << 20;
        if (!card->present[SC_CF_ITERATIONS])
            card->iterations = 1000;
        if (sc__set_default_string(&card->kernel, "pingpong") < 0 ||
            sc__set_default_string(&card->pairs, "first") < 0)
            return -ENOMEM;
        /* pairs: all runs one rank per node: the nodes' count, or 0 for the allocation's
           (the wrapper reads it from Slurm) */
        if (!card->present[SC_CF_RANKS] && strcmp(card->pairs, "all") == 0)
            card->ranks = card->nodes ? (long)sc_hostlist_count(card->nodes) : 0;
        /* a link matrix's noise guard: what one pass shows and the others do not is not a
           fault to drain (doc/design.md, "Link matrix") */
        if (!card->present[SC_CF_PASSES] && strcmp(card->pairs, "all") == 0)
            card->passes = SC_LINKMATRIX_PASSES_DEFAULT;
        /* Only uniband has a window (0: none); its default is the kernel's. */
        if (!card->present[SC_CF_WINDOW] && strcmp(card->kernel, "uniband") == 0)
            card->window = 64;
        return 0;
    default:
        return 0;
    }
}

static bool sc__kernel_ok(const sc_card *card)
{
    static const char *const stream[] = {"copy", "scale", "add", "triad", "all", NULL};
    static const char *const mpi[] = {"pingpong", "uniband", NULL};
    const char *const *valid = card->workload == SC_WORKLOAD_STREAM ? stream : mpi;

    for (; *valid; valid++)
        if (strcmp(*valid, card->kernel) == 0)
            return true;
    return false;
}

static bool sc__env_name_ok(const char *name)
{
    if (!isalpha((unsigned char)*name) && *name != '_')
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

static void sc__check_env(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];

    sc__where(card, SC_CF_ENV, where, sizeof(where));
    for (size_t i = 0; i < card->n_env; i++) {
        const char *key = card->env[i].key;
        if (!sc__env_name_ok(key)) {
            sc_diag_addf(diag,
                         "%s: env: \"%s\" is not a variable name (valid: letters, digits "
                         "and '_', not starting with a digit)",
                         where, key);
            (*errors)++;
        } else if (strcmp(key, "OMP_NUM_THREADS") == 0) {
            sc_diag_addf(diag,
                         "%s: env: OMP_NUM_THREADS is set from threads (remove it; set "
                         "threads instead)",
                         where);
            (*errors)++;
        } else if (strcmp(key, "GOMP_CPU_AFFINITY") == 0 || strcmp(key, "KMP_AFFINITY") == 0) {
            /* Beside OMP_PLACES one of the two is ignored, by which runtime depends: binding
               is the card's cpu_list, once. */
            sc_diag_addf(diag,
                         "%s: env: %s would contradict the OMP_PLACES streamcard sets "
                         "from cpu_list (remove it; the threads bind to cpu_list in "
                         "order, OMP_PROC_BIND may be set)",
                         where, key);
            (*errors)++;
        } else if (strcmp(key, "OMP_PLACES") == 0 || strncmp(key, "STREAMCARD_", 11) == 0 ||
                   strncmp(key, "SLURM_", 6) == 0) {
            sc_diag_addf(diag,
                         "%s: env: %s is set by streamcard or Slurm (remove it; binding "
                         "comes from cpu_list)",
                         where, key);
            (*errors)++;
        }
    }
}

/* Keys that only one workload reads may not appear in a card for another. */
static void sc__check_applicable(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];

    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        if (!card->present[i] || key->workloads == SC__WL_ANY ||
            (key->workloads & SC__WL_BIT(card->workload)))
            continue;
        char users[64] = "";
        for (int w = SC_WORKLOAD_STREAM; w <= SC_WORKLOAD_MPI_PINGPONG; w++)
            if (key->workloads & SC__WL_BIT(w))
                snprintf(users + strlen(users), sizeof(users) - strlen(users), "%s%s",
                         *users ? " or " : "", sc_workload_name((sc_workload)w));
        sc_diag_addf(diag, "%s: %s: not used by workload %s (valid only for %s; remove it)",
                     sc__where(card, key->field, where, sizeof(where)), sc__card_key_name(key),
                     sc_workload_name(card->workload), users);
        (*errors)++;
    }
}

/* The default run name's part that says the layout: "ipsearch_2thread_4pool". */
static void sc__layout_name(const sc_card *card, char *name, size_t len)
{
    if (card->workload == SC_WORKLOAD_STREAM)
        snprintf(name, len, "stream_%s_%ldthread", card->kernel, card->threads);
    else if (card->workload == SC_WORKLOAD_IPSEARCH)
        snprintf(name, len, "ipsearch_%ldthread_%ldpool", card->threads, card->pool_threads);
    else if (card->pairs && strcmp(card->pairs, "all") == 0)
        snprintf(name, len, "mpi_%s_allpairs", card->kernel);
    else
        snprintf(name, len, "mpi_%s_%ldrank", card->kernel, card->ranks);
}

static int sc__derive_run_name(sc_card *card)
{
    char name[256];

    if (card->run_name && card->name_suffix) {
        /* A sweep instance of a named card: the name plus "_<key>-<value>". */
        snprintf(name, sizeof(name), "%s%s", card->run_name, card->name_suffix);
        sc__card_name_sanitize(name);
        free(card->run_name);
        card->run_name = strdup(name);
        free(card->name_suffix);
        card->name_suffix = NULL;
        return card->run_name ? 0 : -ENOMEM;
    }
    if (card->run_name)
        return 0;
    sc__layout_name(card, name, sizeof(name));
    if (card->name_suffix)
        snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s", card->name_suffix);
    sc__card_name_sanitize(name);
    card->run_name = strdup(name);
    return card->run_name ? 0 : -ENOMEM;
}

int sc_card_keep_cpus(sc_card *card, hwloc_const_bitmap_t kept, sc_diag *diag)
{
    long n = hwloc_bitmap_weight(kept);
    char before[256], after[256], *text = sc_cpulist_format(kept), *name = NULL;

    if (!text)
        return -ENOMEM;
    if (card->present[SC_CF_THREADS] && card->threads > n) {
        sc_diag_addf(diag,
                     "threads: %ld is more than the %ld physical cores of cpu_list %s "
                     "(one_per_core keeps %s; valid: 1-%ld)",
                     card->threads, n, card->cpu_list, text, n);
        free(text);
        return -EINVAL;
    }
    sc__layout_name(card, before, sizeof(before));
    if (!card->present[SC_CF_THREADS])
        card->threads = n;
    if (card->workload == SC_WORKLOAD_IPSEARCH && !card->present[SC_CF_POOL_THREADS])
        card->pool_threads = card->threads;
    sc__layout_name(card, after, sizeof(after));
    /* A name derived from the layout before (by sc_card_check() here, or on the host that
       submitted the job, whose card.yaml then carries it) names the layout now. */
    size_t nb = strlen(before);
    if (card->run_name && strcmp(before, after) != 0 && !strncmp(card->run_name, before, nb) &&
        (card->run_name[nb] == '\0' || card->run_name[nb] == '_')) {
        if (asprintf(&name, "%s%s", after, card->run_name + nb) < 0) {
            free(text);
            return -ENOMEM;
        }
        sc__card_name_sanitize(name);
        free(card->run_name);
        card->run_name = name;
    }
    hwloc_bitmap_copy(card->cpus, kept);
    free(card->one_per_core_from);
    card->one_per_core_from = card->cpu_list;
    card->cpu_list = text;
    card->overridden = true;
    return 0;
}

/*
 * pairs: first is one pair (exactly 2 ranks); the outlier bounds judge a link matrix, so
 * they belong to pairs: all (doc/design.md, "Link matrix").
 */
static void sc__check_pairs(const sc_card *card, sc_diag *diag, int *errors)
{
    bool all = card->pairs && strcmp(card->pairs, "all") == 0;
    char where[512];

    if (card->workload != SC_WORKLOAD_MPI_PINGPONG || card->invalid[SC_CF_PAIRS])
        return;
    if (!all && card->present[SC_CF_RANKS] && !card->invalid[SC_CF_RANKS] && card->ranks != 2) {
        sc_diag_addf(diag, "%s: ranks: %ld ranks make more than one pair (valid: 2, or pairs: all)",
                     sc__where(card, SC_CF_RANKS, where, sizeof(where)), card->ranks);
        (*errors)++;
    }
    for (sc_card_field f = SC_CF_OUTLIER_MAD; f <= SC_CF_PASSES; f++)
        if (!all && card->present[f] && !card->invalid[f]) {
            sc_diag_addf(diag, "%s: %s: only with pairs: all (valid: pairs: all, or no %s)",
                         sc__where(card, f, where, sizeof(where)), sc_card_field_name(f),
                         sc_card_field_name(f));
            (*errors)++;
        }
    if (all && card->present[SC_CF_NODES] && card->present[SC_CF_RANKS] &&
        !card->invalid[SC_CF_RANKS] && card->nodes &&
        (unsigned long)card->ranks != sc_hostlist_count(card->nodes)) {
        sc_diag_addf(diag, "%s: ranks: %ld with pairs: all is one rank per node of %s (valid: %lu)",
                     sc__where(card, SC_CF_RANKS, where, sizeof(where)), card->ranks, card->nodes,
                     sc_hostlist_count(card->nodes));
        (*errors)++;
    }
}

/*
 * runs_ci_pct and runs_max steer runs: auto only; the interference limit is a percentage of
 * the main loop and needs the accounting that measures it.
 */
static void sc__check_runs(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];

    for (sc_card_field f = SC_CF_RUNS_CI_PCT; f <= SC_CF_RUNS_MAX; f++)
        if (card->runs != 0 && card->present[f] && !card->invalid[f]) {
            sc_diag_addf(diag, "%s: %s: only with runs: auto (valid: runs: auto, or no %s)",
                         sc__where(card, f, where, sizeof(where)), sc_card_field_name(f),
                         sc_card_field_name(f));
            (*errors)++;
        }
    if (!card->present[SC_CF_EXPECT_MAX_INTERFERENCE] ||
        card->invalid[SC_CF_EXPECT_MAX_INTERFERENCE])
        return;
    sc__where(card, SC_CF_EXPECT_MAX_INTERFERENCE, where, sizeof(where));
    if (card->expect_max_interference_pct > 100) {
        sc_diag_addf(diag,
                     "%s: max_interference_pct: %g is more than 100 (valid: 0-100 percent "
                     "of the main loop)",
                     where, card->expect_max_interference_pct);
        (*errors)++;
    } else if (!card->interference_accounting) {
        sc_diag_addf(diag,
                     "%s: max_interference_pct: the card turns interference_accounting "
                     "off, so nothing measures it (valid: interference_accounting: on, or "
                     "no max_interference_pct)",
                     where);
        (*errors)++;
    }
}

int sc__card_check_run(sc_card *card, sc_diag *diag)
{
    char where[512];
    int errors = 0;
    int ncpus = hwloc_bitmap_weight(card->cpus);

    /* A key given with a refused value was reported where it was read: not "missing" too. */
    if (card->workload == SC_WORKLOAD_NONE) {
        if (!card->present[SC_CF_WORKLOAD])
            sc_diag_addf(diag, "%s: workload: missing (valid: stream, ipsearch, mpi-pingpong)",
                         card->source_name);
        return -EINVAL;
    }
    if (!card->present[SC_CF_CPU_LIST]) {
        sc_diag_addf(diag, "%s: cpu_list: missing (valid: Linux cpulist such as 0-3,8,10-11)",
                     card->source_name);
        errors++;
    }
    if (!card->present[SC_CF_THREADS])
        card->threads = card->workload == SC_WORKLOAD_MPI_PINGPONG ? 1 : (ncpus > 0 ? ncpus : 1);
    else if (card->cpu_list && !card->invalid[SC_CF_THREADS] && card->threads > ncpus) {
        sc_diag_addf(diag, "%s: threads: %ld is more than the %d CPUs of cpu_list %s (valid: 1-%d)",
                     sc__where(card, SC_CF_THREADS, where, sizeof(where)), card->threads, ncpus,
                     card->cpu_list, ncpus);
        errors++;
    }
    if (sc__apply_defaults(card) < 0)
        return -ENOMEM;
    sc__check_applicable(card, diag, &errors);
    if (card->kernel && card->workload != SC_WORKLOAD_IPSEARCH && !sc__kernel_ok(card)) {
        sc_diag_addf(diag, "%s: kernel: \"%s\" is not a %s kernel (valid: %s)",
                     sc__where(card, SC_CF_KERNEL, where, sizeof(where)), card->kernel,
                     sc_workload_name(card->workload),
                     card->workload == SC_WORKLOAD_STREAM ? "copy, scale, add, triad, all"
                                                          : "pingpong, uniband");
        errors++;
    }
    if (card->workload == SC_WORKLOAD_IPSEARCH && sc__valid(card, SC_CF_K, SC_CF_NB) &&
        card->k > card->nb) {
        sc_diag_addf(diag, "%s: k: %llu is more than the %llu database vectors nb (valid: 1-%llu)",
                     sc__where(card, SC_CF_K, where, sizeof(where)), (unsigned long long)card->k,
                     (unsigned long long)card->nb, (unsigned long long)card->nb);
        errors++;
    }
    if (card->workload == SC_WORKLOAD_MPI_PINGPONG &&
        sc__valid(card, SC_CF_MIN_BYTES, SC_CF_MAX_BYTES) && card->min_bytes > card->max_bytes) {
        sc_diag_addf(diag, "%s: min_bytes: %llu is more than max_bytes %llu (valid: 0-%llu)",
                     sc__where(card, SC_CF_MIN_BYTES, where, sizeof(where)),
                     (unsigned long long)card->min_bytes, (unsigned long long)card->max_bytes,
                     (unsigned long long)card->max_bytes);
        errors++;
    }
    if (card->present[SC_CF_WINDOW] && !card->invalid[SC_CF_WINDOW] && card->kernel &&
        strcmp(card->kernel, "uniband") != 0) {
        sc_diag_addf(diag,
                     "%s: window: only the uniband kernel has a window (valid: kernel: "
                     "uniband, or no window)",
                     sc__where(card, SC_CF_WINDOW, where, sizeof(where)));
        errors++;
    }
    sc__check_pairs(card, diag, &errors);
    if (card->present[SC_CF_EXPECT_AT_BYTES] && !card->invalid[SC_CF_EXPECT_AT_BYTES] &&
        sc__valid(card, SC_CF_MIN_BYTES, SC_CF_MAX_BYTES) &&
        (card->expect_at_bytes < card->min_bytes || card->expect_at_bytes > card->max_bytes)) {
        sc_diag_addf(diag, "%s: at_bytes: %llu is not a message size of the run (valid: %llu-%llu)",
                     sc__where(card, SC_CF_EXPECT_AT_BYTES, where, sizeof(where)),
                     (unsigned long long)card->expect_at_bytes, (unsigned long long)card->min_bytes,
                     (unsigned long long)card->max_bytes);
        errors++;
    }
    if (card->present[SC_CF_EXPECT_AT_BYTES] && card->expect_min_rate_MBps <= 0 &&
        !card->invalid[SC_CF_EXPECT_MIN_RATE]) {
        sc_diag_addf(diag,
                     "%s: at_bytes: it says where min_rate_MBps applies, and the card sets "
                     "none (valid: expect: min_rate_MBps with at_bytes, or no at_bytes)",
                     sc__where(card, SC_CF_EXPECT_AT_BYTES, where, sizeof(where)));
        errors++;
    }
    if (card->present[SC_CF_EXPECT_MAX_LATENCY] && !card->invalid[SC_CF_EXPECT_MAX_LATENCY] &&
        card->kernel && strcmp(card->kernel, "pingpong") != 0) {
        sc_diag_addf(diag,
                     "%s: max_latency_us: only the pingpong kernel measures a latency "
                     "(valid: kernel: pingpong, or no max_latency_us)",
                     sc__where(card, SC_CF_EXPECT_MAX_LATENCY, where, sizeof(where)));
        errors++;
    }
    sc__check_env(card, diag, &errors);
    sc__check_runs(card, diag, &errors);
    char why[256];
    if (card->nodes && sc_hostlist_check(card->nodes, why, sizeof(why)) < 0) {
        sc_diag_addf(diag, "%s: nodes: %s (valid: a Slurm hostlist such as node[01-04],login1)",
                     sc__where(card, SC_CF_NODES, where, sizeof(where)), why);
        errors++;
    }
    if (sc__derive_run_name(card) < 0)
        return -ENOMEM;
    return errors ? -EINVAL : 0;
}

/* "CPUs 2-15" for the members of set that are not in allowed; NULL when none. */
static char *sc__missing(hwloc_const_bitmap_t set, hwloc_const_bitmap_t allowed)
{
    hwloc_bitmap_t missing = hwloc_bitmap_alloc();
    char *text = NULL;

    if (!missing)
        return NULL;
    hwloc_bitmap_andnot(missing, set, allowed);
    if (!hwloc_bitmap_iszero(missing))
        text = sc_cpulist_format(missing);
    hwloc_bitmap_free(missing);
    return text;
}

void sc_card_tasks_of(const sc_card *card, sc_card_tasks *t)
{
    long cpus = card->cpus ? hwloc_bitmap_weight(card->cpus) : 1;

    *t = (sc_card_tasks){.ntasks = 1, .nodes = 1, .per_node = 1};
    if (card->workload == SC_WORKLOAD_MPI_PINGPONG) {
        bool all = card->pairs && strcmp(card->pairs, "all") == 0;
        long nodes = card->nodes ? (long)sc_hostlist_count(card->nodes) : 1;
        t->ntasks = card->ranks > 0 || all ? card->ranks : 2;
        t->nodes = all ? t->ntasks : nodes > 0 ? nodes : 1;
        t->per_node = all ? 1 : (t->ntasks + t->nodes - 1) / t->nodes;
    }
    t->cpus_per_task = cpus > t->per_node ? (cpus + t->per_node - 1) / t->per_node : 1;
}

void sc_card_tasks_format(const sc_card_tasks *t, char *buf, size_t len)
{
    char cpt[32] = "";

    if (t->cpus_per_task > 1)
        snprintf(cpt, sizeof(cpt), " -c %ld", t->cpus_per_task);
    if (t->ntasks == 1 && t->nodes == 1)
        snprintf(buf, len, "-c %ld", t->cpus_per_task);
    else if (t->nodes == 1)
        snprintf(buf, len, "-n %ld%s", t->ntasks, cpt);
    else if (t->nodes > 1)
        snprintf(buf, len, "-N %ld --ntasks-per-node=%ld%s", t->nodes, t->per_node, cpt);
    else
        snprintf(buf, len, "-N NODES --ntasks-per-node=%ld%s", t->per_node, cpt);
}

static void sc__check_cpus(const sc_card *card, const sc_machine *m, sc_diag *diag, int *errors)
{
    char where[512], ask[96], *missing, *valid;
    sc_card_tasks tasks;

    sc__where(card, SC_CF_CPU_LIST, where, sizeof(where));
    if ((missing = sc__missing(card->cpus, m->cpus_online))) {
        valid = sc_cpulist_format(m->cpus_online);
        sc_diag_addf(diag, "%s: cpu_list: CPUs %s are not online on %s (valid: %s)", where, missing,
                     m->hostname, valid ? valid : "?");
        (*errors)++;
    } else if ((missing = sc__missing(card->cpus, m->cpus_allowed))) {
        valid = sc_cpulist_format(m->cpus_allowed);
        sc_card_tasks_of(card, &tasks);
        sc_card_tasks_format(&tasks, ask, sizeof(ask));
        sc_diag_addf(diag,
                     "%s: cpu_list: CPUs %s are outside the CPUs this job may use on %s (valid: "
                     "%s; ask Slurm for the card's CPUs: sbatch --exclusive, or %s)",
                     where, missing, m->hostname, valid ? valid : "?", ask);
        (*errors)++;
    } else {
        return;
    }
    free(missing);
    free(valid);
}

static void sc__check_memory(const sc_card *card, const sc_machine *m, sc_diag *diag, int *errors)
{
    char where[512], place[300];
    uint64_t need = sc_card_memory_bytes(card), have = 0;
    unsigned node;

    if (card->memory_node >= 0) {
        if ((unsigned long)card->memory_node < m->n_node_mem)
            have = m->node_mem_bytes[card->memory_node];
        snprintf(place, sizeof(place), "NUMA node %ld", card->memory_node);
    } else {
        hwloc_bitmap_foreach_begin(node, m->mems_allowed)
        {
            if (node < m->n_node_mem)
                have += m->node_mem_bytes[node];
        }
        hwloc_bitmap_foreach_end();
        snprintf(place, sizeof(place), "%s", m->hostname);
    }
    /* Leave a tenth of the memory to the kernel and the rest of the job. */
    uint64_t limit = have / 10 * 9;
    if (have == 0 || need <= limit)
        return;
    if (card->workload == SC_WORKLOAD_STREAM) {
        sc_diag_addf(diag,
                     "%s: array_size: %llu needs %.1f GiB for 3 arrays of 8-byte elements but %s "
                     "has %.1f GiB (valid: at most %llu, 90%% of it)",
                     sc__where(card, SC_CF_ARRAY_SIZE, where, sizeof(where)),
                     (unsigned long long)card->array_size, sc__gib(need), place, sc__gib(have),
                     (unsigned long long)(limit / 24));
    } else {
        sc_diag_addf(diag,
                     "%s: the sizes need %.1f GiB but %s has %.1f GiB (valid: at most %.1f GiB, "
                     "90%% of it)",
                     card->source_name, sc__gib(need), place, sc__gib(have), sc__gib(limit));
    }
    (*errors)++;
}

int sc_card_check_machine(const sc_card *card, const sc_machine *m, bool platform_control,
                          sc_diag *diag)
{
    char where[512];
    int errors = 0;

    if (card->nodes) {
        char host[256];
        snprintf(host, sizeof(host), "%.*s", (int)strcspn(m->hostname, "."), m->hostname);
        if (!sc_hostlist_contains(card->nodes, host)) {
            sc_diag_addf(diag,
                         "%s: nodes: this host %s is not in %s (valid: run on those hosts, "
                         "or change nodes:)",
                         sc__where(card, SC_CF_NODES, where, sizeof(where)), host, card->nodes);
            errors++;
        }
    }
    if (card->cpu_list)
        sc__check_cpus(card, m, diag, &errors);
    if (card->memory_node >= 0) {
        char *valid = sc_cpulist_format(m->mems_allowed);
        sc__where(card, SC_CF_MEMORY_NODE, where, sizeof(where));
        if (!hwloc_bitmap_isset(m->nodes, (unsigned)card->memory_node)) {
            sc_diag_addf(diag,
                         "%s: memory_node: %ld is not a NUMA node with memory on %s (valid: "
                         "%s)",
                         where, card->memory_node, m->hostname, valid ? valid : "?");
            errors++;
        } else if (!hwloc_bitmap_isset(m->mems_allowed, (unsigned)card->memory_node)) {
            sc_diag_addf(diag,
                         "%s: memory_node: %ld is outside the memory this job may use on "
                         "%s (valid: %s)",
                         where, card->memory_node, m->hostname, valid ? valid : "?");
            errors++;
        }
        free(valid);
    }
    if (errors == 0)
        sc__check_memory(card, m, diag, &errors);
    if (strcmp(card->governor, "unchanged") != 0) {
        sc__where(card, SC_CF_GOVERNOR, where, sizeof(where));
        if (!m->has_cpufreq) {
            sc_diag_addf(diag,
                         "%s: governor: %s cannot be set: %s has no cpufreq (valid: "
                         "unchanged)",
                         where, card->governor, m->hostname);
            errors++;
        } else if (!sc_machine_offers_governor(m, card->governor)) {
            sc_diag_addf(diag, "%s: governor: %s is not offered on %s (valid: %s, unchanged)",
                         where, card->governor, m->hostname, m->governors);
            errors++;
        } else if (!platform_control) {
            sc_diag_addf(diag,
                         "%s: governor: %s needs the streamcard SPANK plugin to set it "
                         "(submit with sbatch --stream-card=CARD), or streamcard run as "
                         "root to read it back as it is (valid here: unchanged)",
                         where, card->governor);
            errors++;
        }
    }
    if (card->prefetch != SC_PREFETCH_UNCHANGED && !platform_control) {
        sc_diag_addf(diag,
                     "%s: prefetch: %s needs the streamcard SPANK plugin to set it (submit "
                     "with sbatch --stream-card=CARD), or streamcard run as root to read "
                     "it back as it is (valid here: unchanged)",
                     sc__where(card, SC_CF_PREFETCH, where, sizeof(where)),
                     sc_prefetch_name(card->prefetch));
        errors++;
    }
    return errors ? -EINVAL : 0;
}
