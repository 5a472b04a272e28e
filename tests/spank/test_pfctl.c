/*
 * test_pfctl.c: the facade end to end on fake nodes, one job at a time: apply, evidence,
 * release, shared holders, stale and live journals, policy, governors, refusals, and the
 * platform gate reading the evidence. Between jobs and after failures: test_pfctl_jobs.c.
 */
#include "pfctl_node.h"
#include "platform.h"
#include "sc_gates.h"
#include "sc_test.h"

typedef struct apply_case {
    const char *name;
    fake_node spec;
    const char *cpus;
    sc_prefetch pf;
    uint64_t mask, value;
    const char *arch, *reg, *maskstr, *state_before, *state_after;
} apply_case;

static const apply_case apply_cases[] = {
    {"intel off on 1-2",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     "1-2",
     SC_PREFETCH_OFF,
     0xf,
     0xf,
     "intel-core",
     "0x1a4",
     "0xf",
     "on",
     "off"},
    {"intel on from off",
     {INTEL_CORE, 4, MSR_I, SEED | 0xf, NULL, NULL},
     "0-3",
     SC_PREFETCH_ON,
     0xf,
     0x0,
     "intel-core",
     "0x1a4",
     "0xf",
     "off",
     "on"},
    {"atom off on 1",
     {INTEL_ATOM, 4, MSR_I, 0x40, NULL, NULL},
     "1",
     SC_PREFETCH_OFF,
     0x5,
     0x5,
     "intel-atom",
     "0x1a4",
     "0x5",
     "on",
     "off"},
    {"amd zen4 off on 0,3",
     {AMD_ZEN4, 4, MSR_A, 0x3c0, NULL, NULL},
     "0,3",
     SC_PREFETCH_OFF,
     0x2f,
     0x2f,
     "amd-zen3-5",
     "0xc0000108",
     "0x2f",
     "on",
     "off"},
};

/* Apply, check every file and the evidence, release, check the originals are back. */
static void test_apply_release_table(void)
{
    for (size_t i = 0; i < sizeof(apply_cases) / sizeof(apply_cases[0]); i++) {
        const apply_case *c = &apply_cases[i];
        sc_pfctl_evidence ev;
        char why[512], line[128], *log = NULL;
        node n;

        SC_CHECK_MSG(node_make(&n, &c->spec, c->cpus, c->pf, "unchanged") == 0, "%s", c->name);
        int rc = sc_pfctl_apply(&n.cfg, 100, getpid(), &n.req, &ev, why, sizeof(why));
        SC_CHECK_MSG(rc == 0, "%s: rc %d: %s", c->name, rc, why);
        for (unsigned cpu = 0; cpu < c->spec.ncpus; cpu++) {
            uint64_t want = hwloc_bitmap_isset(n.cpus, cpu) ? (c->spec.seed & ~c->mask) | c->value
                                                            : c->spec.seed;
            uint64_t got = fake_msr_get(n.root, cpu, c->spec.reg);
            SC_CHECK_MSG(got == want, "%s: cpu %u: 0x%llx, expected 0x%llx", c->name, cpu,
                         (unsigned long long)got, (unsigned long long)want);
        }
        SC_CHECK_STR_EQ(env(&ev, "REQUESTED_PREFETCH"), sc_prefetch_name(c->pf));
        SC_CHECK_STR_EQ(env(&ev, "OBSERVED_STATE"), c->state_after);
        SC_CHECK_STR_EQ(env(&ev, "STATE_VALID"), "1");
        SC_CHECK_STR_EQ(env(&ev, "REQUESTED_GOVERNOR"), "unchanged");
        SC_CHECK_STR_EQ(env(&ev, "OBSERVED_GOVERNOR"), "unchanged");
        SC_CHECK_STR_EQ(env(&ev, "GOVERNOR_VALID"), "1");
        SC_CHECK_STR_EQ(env(&ev, "ARCH"), c->arch);
        SC_CHECK_STR_EQ(env(&ev, "REGISTER"), c->reg);
        SC_CHECK_STR_EQ(env(&ev, "MASK"), c->maskstr);
        SC_CHECK_STR_EQ(env(&ev, "CPUS"), c->cpus);
        unsigned first = (unsigned)hwloc_bitmap_first(n.cpus);
        snprintf(line, sizeof(line), "cpu=%u reg=%s value=0x%016llx state=%s\n", first, c->reg,
                 (unsigned long long)c->spec.seed, c->state_before);
        SC_CHECK_STR_CONTAINS(ev.msr_readback_before, line);
        snprintf(line, sizeof(line), "cpu=%u reg=%s value=0x%016llx state=%s\n", first, c->reg,
                 (unsigned long long)((c->spec.seed & ~c->mask) | c->value), c->state_after);
        SC_CHECK_STR_CONTAINS(ev.msr_readback_after, line);
        /* The journal is synced before the first write. */
        const char *journaled = strstr(ev.control_log, "journal: "),
                   *written = strstr(ev.control_log, "write: cpu");
        SC_CHECK_MSG(journaled && written && journaled < written, "%s: log order:\n%s", c->name,
                     ev.control_log);
        SC_CHECK_STR_CONTAINS(ev.control_log, "identify: ");
        SC_CHECK(journal_exists(&n, 100));
        sc_pfctl_evidence_free(&ev);

        rc = sc_pfctl_release(&n.cfg, 100, getpid(), &log);
        SC_CHECK_MSG(rc == 0, "%s: release rc %d:\n%s", c->name, rc, log);
        SC_CHECK_STR_CONTAINS(log, "journal removed");
        free(log);
        for (unsigned cpu = 0; cpu < c->spec.ncpus; cpu++)
            SC_CHECK_MSG(fake_msr_get(n.root, cpu, c->spec.reg) == c->spec.seed,
                         "%s: cpu %u not restored", c->name, cpu);
        SC_CHECK(!journal_exists(&n, 100));
        node_free(&n);
    }
}

static void test_two_holders_share_one_change(void)
{
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL};
    pid_t other = fake_holder_start();
    sc_pfctl_evidence ev;
    char why[512], *log = NULL;
    node n;

    SC_CHECK(other > 0);
    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-3", SC_PREFETCH_OFF, NULL), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 7, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 7, other, &n.req, &ev, why, sizeof(why)), 0);
    SC_CHECK_STR_CONTAINS(ev.control_log, "already holds this change");
    SC_CHECK_MSG(!strstr(ev.control_log, "write: cpu"), "second step wrote:\n%s", ev.control_log);
    SC_CHECK_STR_CONTAINS(ev.msr_readback_before, "value=0xdeadbeef00000040 state=on");
    SC_CHECK_STR_EQ(env(&ev, "STATE_VALID"), "1");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(journal_count(&n, 7, "holder="), 2);
    SC_CHECK_INT_EQ(journal_count(&n, 7, "msr="), 4);

    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 7, getpid(), &log), 0);
    SC_CHECK_STR_CONTAINS(log, "the change stays for the other steps");
    free(log);
    SC_CHECK(fake_msr_get(n.root, 2, MSR_I) == (SEED | 0xf));
    SC_CHECK_INT_EQ(journal_count(&n, 7, "holder="), 1);

    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 7, other, &log), 0);
    free(log);
    SC_CHECK(fake_msr_get(n.root, 2, MSR_I) == SEED);
    SC_CHECK(!journal_exists(&n, 7));
    fake_holder_stop(other);
    node_free(&n);
}

static void test_restore_stale(void)
{
    fake_node spec = {AMD_ZEN4, 4, MSR_A, 0x3c0, NULL, NULL};
    pid_t dead = fake_holder_start();
    sc_pfctl_evidence ev;
    char why[512], *log = NULL;
    node n;

    SC_CHECK(dead > 0);
    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-1", SC_PREFETCH_OFF, NULL), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 3, dead, &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);
    fake_holder_stop(dead); /* job 3's step daemon crashes */
    SC_CHECK(fake_msr_get(n.root, 0, MSR_A) == 0x3ef);

    /* slurmd restarts: job 3 has no live holder, so it is restored. */
    SC_CHECK_INT_EQ(sc_pfctl_restore_stale(&n.cfg, &log), 0);
    SC_CHECK_STR_CONTAINS(log, "job 3: none of its 1 holder(s) is alive: restoring");
    free(log);
    SC_CHECK(fake_msr_get(n.root, 0, MSR_A) == 0x3c0 && fake_msr_get(n.root, 1, MSR_A) == 0x3c0);
    SC_CHECK(!journal_exists(&n, 3));

    /* A live job: restore_stale leaves it alone (slurmd restarted under a running job). */
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 4, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_restore_stale(&n.cfg, &log), 0);
    SC_CHECK_STR_CONTAINS(log, "job 4: 1 of 1 holder(s) alive, left alone");
    free(log);
    SC_CHECK(fake_msr_get(n.root, 0, MSR_A) == 0x3ef && journal_exists(&n, 4));

    /* The job epilog restores unconditionally. */
    SC_CHECK_INT_EQ(sc_pfctl_restore_job(&n.cfg, 4, &log), 0);
    free(log);
    SC_CHECK(fake_msr_get(n.root, 0, MSR_A) == 0x3c0 && !journal_exists(&n, 4));
    SC_CHECK_INT_EQ(sc_pfctl_restore_job(&n.cfg, 4, &log), 0);
    SC_CHECK_STR_CONTAINS(log, "no journal, nothing to restore");
    free(log);
    node_free(&n);
}

typedef struct refuse_case {
    const char *name;
    fake_node spec;
    const char *cpus;
    sc_prefetch pf;
    const char *governor;
    bool allow_pf, allow_gov;
    int rc;
    const char *why;
} refuse_case;

static const refuse_case refuse_cases[] = {
    {"policy forbids prefetch",
     {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"},
     "0-3",
     SC_PREFETCH_OFF,
     "unchanged",
     false,
     true,
     -EPERM,
     "streamcard: prefetch=off refused: the node's policy does not let users change prefetch "
     "(valid: prefetch: unchanged)"},
    {"policy forbids governor",
     {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"},
     "0-3",
     SC_PREFETCH_OFF,
     "performance",
     true,
     false,
     -EPERM,
     "governor=performance refused"},
    {"zen 2",
     {AMD_ZEN2, 4, MSR_A, 0x0, GOVS, "powersave"},
     "0-3",
     SC_PREFETCH_OFF,
     NULL,
     true,
     true,
     -ENOTSUP,
     "streamcard: prefetch=off refused: AuthenticAMD family 0x17 model 0x31 (Zen 1/2): its "
     "prefetch control registers are undocumented; refusing to write them"},
    {"xeon phi",
     {"GenuineIntel", 6, 0x57, 4, MSR_I, SEED, NULL, NULL},
     "0",
     SC_PREFETCH_ON,
     NULL,
     true,
     true,
     -ENOTSUP,
     "Xeon Phi"},
    {"governor not offered",
     {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"},
     "0-3",
     SC_PREFETCH_OFF,
     "ondemand",
     true,
     true,
     -ENOTSUP,
     "governor=ondemand refused: streamcard: governor ondemand is not offered by cpu 0 (valid: "
     "performance powersave schedutil)"},
    {"no cpufreq",
     {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL},
     "0-3",
     SC_PREFETCH_UNCHANGED,
     "performance",
     true,
     true,
     -ENOTSUP,
     "has no cpufreq governors"},
    {"bad governor name",
     {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"},
     "0",
     SC_PREFETCH_OFF,
     "../../../etc/x",
     true,
     true,
     -EINVAL,
     "governor name refused"},
    {"offline cpu",
     {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"},
     "3-5",
     SC_PREFETCH_OFF,
     NULL,
     true,
     true,
     -EINVAL,
     "cpu 4 refused: it is not online (valid: 0-3)"},
    {"empty cpu list",
     {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"},
     "",
     SC_PREFETCH_OFF,
     NULL,
     true,
     true,
     -EINVAL,
     "the cpu list is empty"},
};

/* Every refusal changes nothing: no MSR, no governor, no journal. */
static void test_refusals_change_nothing(void)
{
    for (size_t i = 0; i < sizeof(refuse_cases) / sizeof(refuse_cases[0]); i++) {
        const refuse_case *c = &refuse_cases[i];
        sc_pfctl_evidence ev;
        char why[512] = "", buf[64];
        node n;

        SC_CHECK_MSG(node_make(&n, &c->spec, c->cpus, c->pf, c->governor) == 0, "%s", c->name);
        n.req.allow_prefetch = c->allow_pf;
        n.req.allow_governor = c->allow_gov;
        int rc = sc_pfctl_apply(&n.cfg, 9, getpid(), &n.req, &ev, why, sizeof(why));
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, expected %d: %s", c->name, rc, c->rc, why);
        SC_CHECK_MSG(strstr(why, c->why), "%s: \"%s\" lacks \"%s\"", c->name, why, c->why);
        SC_CHECK_MSG(strstr(ev.control_log, why), "%s: the log lacks the reason", c->name);
        SC_CHECK_STR_EQ(env(&ev, "STATE_VALID"), c->pf == SC_PREFETCH_UNCHANGED ? "1" : "0");
        sc_pfctl_evidence_free(&ev);
        for (unsigned cpu = 0; cpu < c->spec.ncpus; cpu++) {
            SC_CHECK_MSG(fake_msr_get(n.root, cpu, c->spec.reg) == c->spec.seed,
                         "%s: cpu %u written", c->name, cpu);
            if (c->spec.governors)
                SC_CHECK_STR_EQ(fake_governor(n.root, cpu, buf, sizeof(buf)), "powersave");
        }
        SC_CHECK_MSG(!journal_exists(&n, 9), "%s: journal left", c->name);
        node_free(&n);
    }
}

static void test_governor_apply_release(void)
{
    fake_node spec = {INTEL_CORE, 4, 0, 0, GOVS, "powersave"};
    sc_pfctl_evidence ev;
    char why[512], buf[64], *log = NULL;
    node n;

    SC_CHECK_INT_EQ(node_make(&n, &spec, "2-3", SC_PREFETCH_UNCHANGED, "performance"), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 11, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(env(&ev, "OBSERVED_GOVERNOR"), "performance");
    SC_CHECK_STR_EQ(env(&ev, "GOVERNOR_VALID"), "1");
    SC_CHECK_STR_EQ(env(&ev, "OBSERVED_STATE"), "unchanged");
    SC_CHECK_STR_EQ(env(&ev, "REGISTER"), "none");
    SC_CHECK_STR_CONTAINS(ev.control_log, "write: cpu 2 governor powersave -> performance, "
                                          "readback performance");
    SC_CHECK_STR_CONTAINS(ev.msr_readback_before, "prefetch unchanged");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_STR_EQ(fake_governor(n.root, 1, buf, sizeof(buf)), "powersave");
    SC_CHECK_STR_EQ(fake_governor(n.root, 2, buf, sizeof(buf)), "performance");
    SC_CHECK_STR_EQ(fake_governor(n.root, 3, buf, sizeof(buf)), "performance");
    SC_CHECK_INT_EQ(journal_count(&n, 11, "gov=2 powersave"), 1);

    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 11, getpid(), &log), 0);
    SC_CHECK_STR_CONTAINS(log, "restore: job 11 cpu 3 governor powersave, read back powersave");
    free(log);
    for (unsigned cpu = 0; cpu < 4; cpu++)
        SC_CHECK_STR_EQ(fake_governor(n.root, cpu, buf, sizeof(buf)), "powersave");
    SC_CHECK(!journal_exists(&n, 11));
    node_free(&n);
}

/* What root signs for a card that leaves the platform alone: what it reads now, and the
   node's own state, from a journal's originals while a job holds a change. */
static void test_read_baseline(void)
{
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"};
    sc_pfctl_evidence ev;
    sc_pfctl_readback rb;
    hwloc_bitmap_t others = hwloc_bitmap_alloc();
    char why[512], *log = NULL;
    node n;

    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-1", SC_PREFETCH_OFF, "performance"), 0);
    hwloc_bitmap_set_range(others, 2, 3);
    SC_CHECK_INT_EQ(sc_pfctl_read(&n.cfg, n.cpus, &rb), 0);
    SC_CHECK_STR_EQ(rb.prefetch, "on");
    SC_CHECK_STR_EQ(rb.governor, "powersave");
    SC_CHECK_STR_EQ(rb.base_prefetch, "on");
    SC_CHECK_STR_EQ(rb.changed_by, "none");
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 31, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    SC_CHECK(ev.started);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 31, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    SC_CHECK(!ev.started); /* joined: the change was started by the first */
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_read(&n.cfg, n.cpus, &rb), 0);
    SC_CHECK_STR_EQ(rb.prefetch, "off");
    SC_CHECK_STR_EQ(rb.governor, "performance");
    SC_CHECK_STR_EQ(rb.base_prefetch, "on");
    SC_CHECK_STR_EQ(rb.base_governor, "powersave");
    SC_CHECK_STR_EQ(rb.changed_by, "31");
    SC_CHECK_STR_EQ(rb.arch, "intel-core");
    SC_CHECK_INT_EQ(sc_pfctl_read(&n.cfg, others, &rb), 0); /* CPUs the change does not cover */
    SC_CHECK_STR_EQ(rb.prefetch, "on");
    SC_CHECK_STR_EQ(rb.base_governor, "powersave");
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 31, getpid(), &log), 0);
    free(log);
    SC_CHECK_INT_EQ(sc_pfctl_read(&n.cfg, n.cpus, &rb), 0);
    SC_CHECK_STR_EQ(rb.prefetch, "on");
    SC_CHECK_STR_EQ(rb.governor, "powersave");
    SC_CHECK_STR_EQ(rb.changed_by, "none");
    hwloc_bitmap_free(others);
    node_free(&n);
}

static void test_nothing_to_do(void)
{
    fake_node spec = {AMD_ZEN2, 2, MSR_A, 0, NULL, NULL};
    sc_pfctl_evidence ev;
    char why[512] = "x";
    struct stat st;
    node n;

    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-1", SC_PREFETCH_UNCHANGED, "unchanged"), 0);
    n.req.allow_prefetch = n.req.allow_governor = false;
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 1, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(why, "");
    SC_CHECK_STR_CONTAINS(ev.control_log, "nothing to do: prefetch and governor are unchanged");
    SC_CHECK_STR_EQ(env(&ev, "OBSERVED_STATE"), "unchanged");
    SC_CHECK_STR_EQ(env(&ev, "STATE_VALID"), "1");
    SC_CHECK_STR_EQ(env(&ev, "GOVERNOR_VALID"), "1");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(stat(n.state, &st), -1); /* the state directory was not even created */
    node_free(&n);
}

static void test_gate_reads_the_evidence(void)
{
    static const char yaml[] = "version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n"
                               "  cpu_list: 1-2\n  threads: 2\n  prefetch: off\n"
                               "  governor: performance\n";
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED, GOVS, "powersave"};
    sc_card *card = sc_card_new();
    sc_pfctl_evidence ev;
    sc_gates gates;
    char why[512], *log = NULL;
    sc_diag d;
    node n;

    sc_diag_init(&d);
    SC_CHECK(card && sc_card_parse(card, yaml, strlen(yaml), "card", &d) == 0);
    sc_diag_free(&d);
    SC_CHECK_INT_EQ(node_make(&n, &spec, "1-2", card->prefetch, card->governor), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 21, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    sc_evidence e = {.state_env = ev.state_env};
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &e, &gates), 0);
    SC_CHECK_MSG(gates.g[SC_GATE_PLATFORM_STATE].state == SC_GATE_OK, "gate: %s",
                 gates.g[SC_GATE_PLATFORM_STATE].note);
    sc_pfctl_evidence_free(&ev);

    /* A second job is refused: its evidence must fail the gate. */
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 22, getpid(), &n.req, &ev, why, sizeof(why)), -EBUSY);
    e.state_env = ev.state_env;
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &e, &gates), 0);
    SC_CHECK_MSG(gates.g[SC_GATE_PLATFORM_STATE].state == SC_GATE_FAIL, "gate: %s",
                 gates.g[SC_GATE_PLATFORM_STATE].note);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 21, getpid(), &log), 0);
    free(log);
    sc_card_free(card);
    node_free(&n);
}

int main(void)
{
    SC_TEST_RUN(test_apply_release_table);
    SC_TEST_RUN(test_two_holders_share_one_change);
    SC_TEST_RUN(test_restore_stale);
    SC_TEST_RUN(test_refusals_change_nothing);
    SC_TEST_RUN(test_governor_apply_release);
    SC_TEST_RUN(test_nothing_to_do);
    SC_TEST_RUN(test_read_baseline);
    SC_TEST_RUN(test_gate_reads_the_evidence);
    return SC_TEST_RESULT();
}
