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
#include "sc_machine.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);

    return ops && ops->memory_bytes ? ops->memory_bytes(card) : 0;
}

/* The card's kernel is one of its workload's (a workload without kernels has no key). */
static void sc__check_kernel(const sc_card *card, const sc_workload_ops *ops, sc_diag *diag,
                             int *errors)
{
    char where[512], valid[256] = "";
    size_t used = 0;

    if (!card->kernel || !ops->kernels)
        return;
    for (const char *const *k = ops->kernels; *k; k++) {
        if (strcmp(*k, card->kernel) == 0)
            return;
        if (used < sizeof(valid))
            used +=
                (size_t)snprintf(valid + used, sizeof(valid) - used, "%s%s", used ? ", " : "", *k);
    }
    sc_diag_addf(diag, "%s: kernel: \"%s\" is not a %s kernel (valid: %s)",
                 sc__card_where(card, SC_CF_KERNEL, where, sizeof(where)), card->kernel, ops->name,
                 valid);
    (*errors)++;
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

    sc__card_where(card, SC_CF_ENV, where, sizeof(where));
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

/* Keys that only some workloads read may not appear in a card for another. */
static void sc__check_applicable(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512], users[128];

    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        if (!card->present[i] || sc_workload_reads(card->workload, key->field))
            continue;
        sc_workload_readers(key->field, " or ", users, sizeof(users));
        sc_diag_addf(diag, "%s: %s: not used by workload %s (valid only for %s; remove it)",
                     sc__card_where(card, key->field, where, sizeof(where)), sc__card_key_name(key),
                     sc_workload_name(card->workload), users);
        (*errors)++;
    }
}

/* The default run name's part that says the layout: "ipsearch_2thread_4pool". */
static void sc__layout_name(const sc_card *card, char *name, size_t len)
{
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);

    if (ops && ops->layout_name)
        ops->layout_name(card, name, len);
    else
        snprintf(name, len, "%s_%ldthread", sc_workload_name(card->workload), card->threads);
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
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);
    if (ops && ops->follow_threads)
        ops->follow_threads(card);
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
 * runs_ci_pct and runs_max steer runs: auto only; the interference limit is a percentage of
 * the main loop and needs the accounting that measures it.
 */
static void sc__check_runs(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];

    for (sc_card_field f = SC_CF_RUNS_CI_PCT; f <= SC_CF_RUNS_MAX; f++)
        if (card->runs != 0 && card->present[f] && !card->invalid[f]) {
            sc_diag_addf(diag, "%s: %s: only with runs: auto (valid: runs: auto, or no %s)",
                         sc__card_where(card, f, where, sizeof(where)), sc_card_field_name(f),
                         sc_card_field_name(f));
            (*errors)++;
        }
    if (!card->present[SC_CF_EXPECT_MAX_INTERFERENCE] ||
        card->invalid[SC_CF_EXPECT_MAX_INTERFERENCE])
        return;
    sc__card_where(card, SC_CF_EXPECT_MAX_INTERFERENCE, where, sizeof(where));
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
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);
    char where[512], names[128];
    int errors = 0;
    int ncpus = hwloc_bitmap_weight(card->cpus);

    /* A key given with a refused value was reported where it was read: not "missing" too. */
    if (!ops) {
        sc_workload_names(", ", names, sizeof(names));
        if (!card->present[SC_CF_WORKLOAD])
            sc_diag_addf(diag, "%s: workload: missing (valid: %s)", card->source_name, names);
        return -EINVAL;
    }
    if (!card->present[SC_CF_CPU_LIST]) {
        sc_diag_addf(diag, "%s: cpu_list: missing (valid: Linux cpulist such as 0-3,8,10-11)",
                     card->source_name);
        errors++;
    }
    if (!card->present[SC_CF_THREADS])
        card->threads = ops->threads ? ops->threads : (ncpus > 0 ? ncpus : 1);
    else if (card->cpu_list && !card->invalid[SC_CF_THREADS] && card->threads > ncpus) {
        sc_diag_addf(diag, "%s: threads: %ld is more than the %d CPUs of cpu_list %s (valid: 1-%d)",
                     sc__card_where(card, SC_CF_THREADS, where, sizeof(where)), card->threads,
                     ncpus, card->cpu_list, ncpus);
        errors++;
    }
    if (ops->defaults && ops->defaults(card) < 0)
        return -ENOMEM;
    sc__check_applicable(card, diag, &errors);
    sc__check_kernel(card, ops, diag, &errors);
    if (ops->check)
        ops->check(card, diag, &errors);
    if (card->present[SC_CF_WINDOW] && !card->invalid[SC_CF_WINDOW] && card->kernel &&
        strcmp(card->kernel, "uniband") != 0) {
        sc_diag_addf(diag,
                     "%s: window: only the uniband kernel has a window (valid: kernel: "
                     "uniband, or no window)",
                     sc__card_where(card, SC_CF_WINDOW, where, sizeof(where)));
        errors++;
    }
    if (card->present[SC_CF_EXPECT_AT_BYTES] && !card->invalid[SC_CF_EXPECT_AT_BYTES] &&
        sc__valid(card, SC_CF_MIN_BYTES, SC_CF_MAX_BYTES) &&
        (card->expect_at_bytes < card->min_bytes || card->expect_at_bytes > card->max_bytes)) {
        sc_diag_addf(diag, "%s: at_bytes: %llu is not a message size of the run (valid: %llu-%llu)",
                     sc__card_where(card, SC_CF_EXPECT_AT_BYTES, where, sizeof(where)),
                     (unsigned long long)card->expect_at_bytes, (unsigned long long)card->min_bytes,
                     (unsigned long long)card->max_bytes);
        errors++;
    }
    if (card->present[SC_CF_EXPECT_AT_BYTES] && card->expect_min_rate_MBps <= 0 &&
        !card->invalid[SC_CF_EXPECT_MIN_RATE]) {
        sc_diag_addf(diag,
                     "%s: at_bytes: it says where min_rate_MBps applies, and the card sets "
                     "none (valid: expect: min_rate_MBps with at_bytes, or no at_bytes)",
                     sc__card_where(card, SC_CF_EXPECT_AT_BYTES, where, sizeof(where)));
        errors++;
    }
    if (card->present[SC_CF_EXPECT_MAX_LATENCY] && !card->invalid[SC_CF_EXPECT_MAX_LATENCY] &&
        card->kernel && strcmp(card->kernel, "pingpong") != 0) {
        sc_diag_addf(diag,
                     "%s: max_latency_us: only the pingpong kernel measures a latency "
                     "(valid: kernel: pingpong, or no max_latency_us)",
                     sc__card_where(card, SC_CF_EXPECT_MAX_LATENCY, where, sizeof(where)));
        errors++;
    }
    sc__check_env(card, diag, &errors);
    sc__check_runs(card, diag, &errors);
    char why[256];
    if (card->nodes && sc_hostlist_check(card->nodes, why, sizeof(why)) < 0) {
        sc_diag_addf(diag, "%s: nodes: %s (valid: a Slurm hostlist such as node[01-04],login1)",
                     sc__card_where(card, SC_CF_NODES, where, sizeof(where)), why);
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

    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);

    *t = (sc_card_tasks){.ntasks = 1, .nodes = 1, .per_node = 1};
    if (ops && ops->tasks)
        ops->tasks(card, t);
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

    sc__card_where(card, SC_CF_CPU_LIST, where, sizeof(where));
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
    char place[300];
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
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);
    if (ops && ops->memory_refused) {
        ops->memory_refused(card, need, have, limit, place, diag);
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
                         sc__card_where(card, SC_CF_NODES, where, sizeof(where)), host,
                         card->nodes);
            errors++;
        }
    }
    if (card->cpu_list)
        sc__check_cpus(card, m, diag, &errors);
    if (card->memory_node >= 0) {
        char *valid = sc_cpulist_format(m->mems_allowed);
        sc__card_where(card, SC_CF_MEMORY_NODE, where, sizeof(where));
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
        sc__card_where(card, SC_CF_GOVERNOR, where, sizeof(where));
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
                     sc__card_where(card, SC_CF_PREFETCH, where, sizeof(where)),
                     sc_prefetch_name(card->prefetch));
        errors++;
    }
    return errors ? -EINVAL : 0;
}
