/*
 * test_scope.c: what one platform write reaches (spank/scope.h) and the facade's rule for a
 * job that does not hold the whole node: every CPU a write reaches must be the job's. Fake
 * nodes with SMT siblings, Atom modules and shared cpufreq policies; and a fake 384-CPU
 * machine whose request names every other CPU: apply, release and restore go through (the
 * journal's long lines read back).
 */
#include "fake_node.h"
#include "pfctl.h"
#include "platform.h"
#include "scope.h"
#include "sc_cpulist.h"
#include "sc_test.h"

/* The reach of one register instance, as read under the fake node. */
static void test_scope_cpus(void)
{
    fake_node spec = {INTEL_CORE, 8, MSR_I, SEED, GOVS, "powersave"};
    char *root = fake_node_make(&spec), why[256] = "", *text;
    sc_fsroot fs;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();

    SC_CHECK(root && set && fake_topology(root, 8, 2, 4, 8) == 0);
    SC_CHECK_INT_EQ(sc_fsroot_open(&fs, root), 0);
    static const struct {
        sc_scope scope;
        unsigned cpu;
        const char *want;
    } cases[] = {{SC_SCOPE_THREAD, 5, "5"}, {SC_SCOPE_CORE, 5, "4-5"}, {SC_SCOPE_MODULE, 5, "4-7"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        SC_CHECK_INT_EQ(sc_scope_cpus(&fs, cases[i].cpu, cases[i].scope, set, why, sizeof(why)), 0);
        text = sc_cpulist_format(set);
        SC_CHECK_MSG(text && strcmp(text, cases[i].want) == 0, "%s of cpu %u: %s, want %s",
                     sc_scope_name(cases[i].scope), cases[i].cpu, text ? text : "(no list)",
                     cases[i].want);
        free(text);
    }
    SC_CHECK_INT_EQ(sc_scope_governor_cpus(&fs, 3, set, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(hwloc_bitmap_weight(set), 8);
    /* No package file in this tree: the reach is unknown, and says so. */
    SC_CHECK_INT_EQ(sc_scope_cpus(&fs, 1, SC_SCOPE_PACKAGE, set, why, sizeof(why)), -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "cannot read which CPUs share cpu 1's topology/package_cpus_list");
    SC_CHECK_INT_EQ(sc_scope_of_prefetch(SC_ARCH_INTEL_CORE), SC_SCOPE_CORE);
    SC_CHECK_INT_EQ(sc_scope_of_prefetch(SC_ARCH_INTEL_ATOM), SC_SCOPE_MODULE);
    sc_fsroot_close(&fs);
    hwloc_bitmap_free(set);
    sysroot_remove(root);
}

typedef struct reach_case {
    const char *name;
    fake_node spec;
    unsigned smt, module, policy; /* fake_topology() */
    const char *cpus, *job;       /* the request and the job's CPUs */
    sc_prefetch pf;
    const char *governor;
    int rc;
    const char *why; /* for a refusal */
} reach_case;

static const reach_case reach_cases[] = {
    {"a core split with another job",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     2,
     0,
     0,
     "0",
     "0",
     SC_PREFETCH_OFF,
     "unchanged",
     -EACCES,
     "MSR 0x1a4 is one per core on intel-core, and cpu 0 shares it with cpus 0-1, of which 1 "
     "are not this job's (valid: a cpu_list of whole cores that the job holds, or submit with "
     "--exclusive)"},
    {"a whole core of the job",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     2,
     0,
     0,
     "0",
     "0-1",
     SC_PREFETCH_OFF,
     "unchanged",
     0,
     NULL},
    {"no SMT",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     1,
     0,
     0,
     "2",
     "2",
     SC_PREFETCH_OFF,
     "unchanged",
     0,
     NULL},
    {"an Atom module split",
     {INTEL_ATOM, 4, MSR_I, SEED, NULL, NULL},
     1,
     4,
     0,
     "0-1",
     "0-1",
     SC_PREFETCH_OFF,
     "unchanged",
     -EACCES,
     "is one per module on intel-atom"},
    {"a cpufreq policy split",
     {INTEL_CORE, 4, 0, 0, GOVS, "powersave"},
     1,
     0,
     4,
     "0-1",
     "0-1",
     SC_PREFETCH_UNCHANGED,
     "performance",
     -EACCES,
     "governor=performance refused: cpu 0's cpufreq policy covers cpus 0-3, of which 2-3 are "
     "not this job's"},
    {"a topology that cannot be read",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     0,
     0,
     0,
     "0",
     "0",
     SC_PREFETCH_OFF,
     "unchanged",
     -EACCES,
     "cannot read which CPUs share cpu 0's topology/thread_siblings_list"},
    {"the whole node: not asked",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     0,
     0,
     0,
     "0",
     NULL,
     SC_PREFETCH_OFF,
     "unchanged",
     0,
     NULL},
};

/* A refused request changes nothing and leaves no journal; an accepted one applies. */
static void test_reach_table(void)
{
    for (size_t i = 0; i < sizeof(reach_cases) / sizeof(reach_cases[0]); i++) {
        const reach_case *c = &reach_cases[i];
        char *root = fake_node_make(&c->spec), state[PATH_MAX / 2], why[512] = "", *log = NULL;
        hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), job = hwloc_bitmap_alloc();
        sc_pfctl_evidence ev;

        SC_CHECK_MSG(root && fake_topology(root, c->spec.ncpus, c->smt, c->module, c->policy) == 0,
                     "%s", c->name);
        SC_CHECK(sc_cpulist_parse(c->cpus, cpus, NULL, 0) == 0);
        SC_CHECK(!c->job || sc_cpulist_parse(c->job, job, NULL, 0) == 0);
        snprintf(state, sizeof(state), "%s/state", root);
        sc_pfctl_config cfg = {root, state};
        sc_pfctl_request req = {c->pf, c->governor, cpus, true, true, c->job ? job : NULL};
        int rc = sc_pfctl_apply(&cfg, 40, getpid(), &req, &ev, why, sizeof(why));
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, want %d: %s", c->name, rc, c->rc, why);
        if (c->why)
            SC_CHECK_MSG(strstr(why, c->why), "%s: \"%s\" lacks \"%s\"", c->name, why, c->why);
        if (c->rc < 0 && c->spec.reg)
            for (unsigned cpu = 0; cpu < c->spec.ncpus; cpu++)
                SC_CHECK_MSG(fake_msr_get(root, cpu, MSR_I) == SEED, "%s: cpu %u written", c->name,
                             cpu);
        sc_pfctl_evidence_free(&ev);
        SC_CHECK_INT_EQ(sc_pfctl_release(&cfg, 40, getpid(), &log), 0);
        free(log);
        hwloc_bitmap_free(cpus);
        hwloc_bitmap_free(job);
        sysroot_remove(root);
    }
}

/*
 * A 384-CPU machine, cpu_list every other CPU up to 378 (190 CPUs: a journal whose cpus=
 * line is 700 bytes): the change is applied to each, released by its step (the journal read
 * back), applied again and restored at the job's end, and a third time left by a dead step
 * and restored at the next slurmd start.
 */
static void test_384_cpus(void)
{
    fake_node spec = {INTEL_CORE, 384, MSR_I, SEED, NULL, NULL};
    char *root = fake_node_make(&spec), state[PATH_MAX / 2], why[512] = "", *log = NULL;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    sc_pfctl_evidence ev;

    SC_CHECK(root && cpus);
    for (unsigned cpu = 0; cpu < 380; cpu += 2)
        hwloc_bitmap_set(cpus, cpu);
    snprintf(state, sizeof(state), "%s/state", root);
    sc_pfctl_config cfg = {root, state};
    sc_pfctl_request req = {SC_PREFETCH_OFF, "unchanged", cpus, true, true, NULL};
    for (int round = 0; round < 3; round++) {
        pid_t holder = round == 2 ? fake_holder_start() : getpid();
        int rc = sc_pfctl_apply(&cfg, 50, holder, &req, &ev, why, sizeof(why));
        SC_CHECK_MSG(rc == 0, "round %d: rc %d: %s", round, rc, why);
        SC_CHECK_STR_CONTAINS(ev.state_env, "OBSERVED_STATE=off\n");
        sc_pfctl_evidence_free(&ev);
        for (unsigned cpu = 0; cpu < 384; cpu++)
            SC_CHECK_MSG(fake_msr_get(root, cpu, MSR_I) ==
                             (hwloc_bitmap_isset(cpus, cpu) ? SEED | 0xf : SEED),
                         "round %d: cpu %u not as asked", round, cpu);
        if (round == 0)
            rc = sc_pfctl_release(&cfg, 50, holder, &log);
        else if (round == 1)
            rc = sc_pfctl_restore_job(&cfg, 50, &log);
        else {
            fake_holder_stop(holder);
            rc = sc_pfctl_restore_stale(&cfg, &log);
        }
        SC_CHECK_MSG(rc == 0, "round %d: restore rc %d:\n%s", round, rc, log);
        SC_CHECK_STR_CONTAINS(log, "journal removed");
        free(log);
        log = NULL;
        for (unsigned cpu = 0; cpu < 384; cpu++)
            SC_CHECK_MSG(fake_msr_get(root, cpu, MSR_I) == SEED, "round %d: cpu %u not restored",
                         round, cpu);
    }
    hwloc_bitmap_free(cpus);
    sysroot_remove(root);
}

int main(void)
{
    SC_TEST_RUN(test_scope_cpus);
    SC_TEST_RUN(test_reach_table);
    SC_TEST_RUN(test_384_cpus);
    return SC_TEST_RESULT();
}
