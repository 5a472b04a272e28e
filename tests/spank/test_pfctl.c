/*
 * test_pfctl.c: the facade end to end on fake nodes: apply, evidence, release, shared
 * holders, stale and live journals, conflicts between jobs, policy, governors, refusals,
 * damaged journals and failed restores.
 */
#include "fake_node.h"
#include "journal.h"
#include "pfctl.h"
#include "platform.h"
#include "sc_cpulist.h"
#include "sc_gates.h"
#include "sc_kv.h"
#include "sc_test.h"

#define INTEL_CORE "GenuineIntel", 6, 0x55
#define INTEL_ATOM "GenuineIntel", 6, 0x5f
#define AMD_ZEN4 "AuthenticAMD", 0x19, 0x11
#define AMD_ZEN2 "AuthenticAMD", 0x17, 0x31
#define MSR_I SC_MSR_INTEL_MISC_FEATURE_CONTROL
#define MSR_A SC_MSR_AMD_PREFETCH_CONTROL
#define SEED 0xdeadbeef00000040ull
#define GOVS "performance powersave schedutil"

typedef struct node {
    char *root;
    char state[PATH_MAX / 2];
    sc_pfctl_config cfg;
    hwloc_bitmap_t cpus;
    sc_pfctl_request req;
} node;

/* A fake node and a request for cpus with the policy allowing everything. */
static int node_make(node *n, const fake_node *spec, const char *cpus, sc_prefetch pf,
                     const char *governor)
{
    memset(n, 0, sizeof(*n));
    n->root = fake_node_make(spec);
    n->cpus = hwloc_bitmap_alloc();
    if (!n->root || !n->cpus || (*cpus && sc_cpulist_parse(cpus, n->cpus, NULL, 0) < 0))
        return -1;
    snprintf(n->state, sizeof(n->state), "%s/state", n->root);
    n->cfg.sysroot = n->root;
    n->cfg.state_dir = n->state;
    n->req = (sc_pfctl_request){pf, governor, n->cpus, true, true, NULL};
    return 0;
}

static void node_free(node *n)
{
    hwloc_bitmap_free(n->cpus);
    sysroot_remove(n->root);
}

static bool journal_exists(const node *n, unsigned job)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/job_%u.journal", n->state, job);
    return stat(path, &st) == 0;
}

/* Number of lines starting with prefix in a journal. */
static int journal_count(const node *n, unsigned job, const char *prefix)
{
    char path[PATH_MAX], line[512];
    int count = 0;
    snprintf(path, sizeof(path), "%s/job_%u.journal", n->state, job);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f))
        count += strncmp(line, prefix, strlen(prefix)) == 0;
    if (f)
        fclose(f);
    return count;
}

/* The value of key in a state.env text, "" when absent (the gates read it the same way). */
static const char *env(const sc_pfctl_evidence *ev, const char *key)
{
    static char buf[8][128];
    static int next;
    char *b = buf[next++ % 8];
    if (!sc_kv_get(ev->state_env, key, b, sizeof(buf[0])))
        b[0] = '\0';
    return b;
}

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

static void test_conflicts(void)
{
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL};
    pid_t other = fake_holder_start();
    sc_pfctl_evidence ev;
    char why[512], *log = NULL;
    node n;

    SC_CHECK(other > 0);
    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-1", SC_PREFETCH_OFF, NULL), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 1, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);

    /* Job 2 asks prefetch=on while job 1 holds off: busy, nothing written. */
    n.req.prefetch = SC_PREFETCH_ON;
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 2, other, &n.req, &ev, why, sizeof(why)), -EBUSY);
    SC_CHECK_STR_CONTAINS(why, "streamcard: node busy: job 1 holds prefetch=off governor=unchanged "
                               "on cpus 0-1");
    SC_CHECK_STR_CONTAINS(ev.control_log, "REFUSED: streamcard: node busy");
    SC_CHECK_STR_EQ(env(&ev, "OBSERVED_STATE"), "off");
    SC_CHECK_STR_EQ(env(&ev, "STATE_VALID"), "0");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK(!journal_exists(&n, 2));
    SC_CHECK(fake_msr_get(n.root, 0, MSR_I) == (SEED | 0xf));

    /* The same settings from another job are refused too: one job owns the journal. */
    n.req.prefetch = SC_PREFETCH_OFF;
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 2, other, &n.req, &ev, why, sizeof(why)), -EBUSY);
    sc_pfctl_evidence_free(&ev);

    /* Another step of job 1 with other settings: busy. */
    n.req.prefetch = SC_PREFETCH_ON;
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 1, other, &n.req, &ev, why, sizeof(why)), -EBUSY);
    SC_CHECK_STR_CONTAINS(why, "job 1 already holds prefetch=off");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(journal_count(&n, 1, "holder="), 1);

    /* Job 1's step daemon dies: job 2 restores job 1's journal first, then applies. */
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 1, 999999, &log), 0); /* not a holder: kept */
    free(log);
    SC_CHECK(journal_exists(&n, 1));
    fake_holder_stop(other);
    pid_t dead = fake_holder_start();
    n.req.prefetch = SC_PREFETCH_OFF;
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 5, dead, &n.req, &ev, why, sizeof(why)), -EBUSY);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 1, getpid(), &log), 0); /* job 1 ends */
    free(log);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 5, dead, &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);
    fake_holder_stop(dead); /* job 5 crashes with prefetch off */
    n.req.prefetch = SC_PREFETCH_ON;
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 6, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    SC_CHECK_STR_CONTAINS(ev.control_log, "job 5 left a journal without a live holder");
    /* The originals job 6 journals are the node's, not job 5's leftovers. */
    SC_CHECK_STR_CONTAINS(ev.msr_readback_before, "value=0xdeadbeef00000040 state=on");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK(!journal_exists(&n, 5));
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 6, getpid(), &log), 0);
    free(log);
    SC_CHECK(fake_msr_get(n.root, 0, MSR_I) == SEED && fake_msr_get(n.root, 1, MSR_I) == SEED);
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
/* What one racing job reports to the test: its apply's result and reason. */
typedef struct race_result {
    unsigned job;
    int rc;
    bool refused_in_log; /* control.log says REFUSED */
    char why[256];
} race_result;

enum { RACERS = 6 };

/* Racer i's settings: no two neighbours ask the same, so every pair conflicts somehow. */
static void race_request(node *n, int i)
{
    static const char *const govs[] = {"performance", "powersave"};
    n->req.prefetch = i % 2 ? SC_PREFETCH_ON : SC_PREFETCH_OFF;
    n->req.governor = govs[(i / 2) % 2];
}

/* A racing job (a child): waits on go until the test closes it, applies, reports, exits. */
static void race_child(node *n, int i, pid_t holder, int go, int report)
{
    sc_pfctl_evidence ev;
    race_result r = {.job = 100u + (unsigned)i};
    char byte;

    race_request(n, i);
    (void)!read(go, &byte, 1); /* EOF: every racer is released at once */
    r.rc = sc_pfctl_apply(&n->cfg, r.job, holder, &n->req, &ev, r.why, sizeof(r.why));
    r.refused_in_log = ev.control_log && strstr(ev.control_log, "REFUSED: ");
    sc_pfctl_evidence_free(&ev);
    /* One write below PIPE_BUF: the reports of the racers do not interleave. */
    _exit(write(report, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
}

/*
 * Several jobs ask for conflicting settings on one node at the same instant (released
 * together through a pipe): the state directory's lock lets exactly one in, the others
 * are refused as busy naming it, one journal with one holder is left, and releasing it
 * restores the node's originals.
 */
static void test_jobs_race_for_the_node(void)
{
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED, GOVS, "schedutil"};
    race_result res[RACERS], *won = NULL;
    pid_t holders[RACERS], kids[RACERS];
    int go[2], report[2], winners = 0;
    char why[512], buf[64], *log = NULL;
    node n;

    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-3", SC_PREFETCH_OFF, NULL), 0);
    for (int i = 0; i < RACERS; i++) {
        holders[i] = fake_holder_start(); /* before the pipes: holders must not keep them open */
        SC_CHECK(holders[i] > 0);
    }
    SC_CHECK(pipe(go) == 0 && pipe(report) == 0);
    for (int i = 0; i < RACERS; i++) {
        kids[i] = fork();
        SC_CHECK(kids[i] >= 0);
        if (kids[i] == 0) {
            close(go[1]);
            close(report[0]);
            race_child(&n, i, holders[i], go[0], report[1]);
        }
    }
    close(go[0]);
    close(report[1]);
    close(go[1]); /* the start signal */
    for (int i = 0; i < RACERS; i++) {
        int status = -1;
        SC_CHECK(waitpid(kids[i], &status, 0) == kids[i]);
        SC_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "racer %d did not report", i);
    }
    for (int i = 0; i < RACERS; i++)
        SC_CHECK(read(report[0], &res[i], sizeof(res[i])) == (ssize_t)sizeof(res[i]));
    close(report[0]);

    for (int i = 0; i < RACERS; i++)
        if (res[i].rc == 0) {
            won = &res[i];
            winners++;
        }
    SC_CHECK_INT_EQ(winners, 1);
    char holds[64];
    snprintf(holds, sizeof(holds), "streamcard: node busy: job %u holds ", won->job);
    for (int i = 0; i < RACERS; i++) {
        if (&res[i] == won)
            continue;
        SC_CHECK_MSG(res[i].rc == -EBUSY, "job %u: rc %d (%s)", res[i].job, res[i].rc, res[i].why);
        SC_CHECK_STR_CONTAINS(res[i].why, holds);
        SC_CHECK(res[i].refused_in_log);
        SC_CHECK(!journal_exists(&n, res[i].job));
    }

    /* One journal, the winner's, with its one holder; the node has the winner's settings. */
    int w = (int)(won->job - 100);
    SC_CHECK(journal_exists(&n, won->job));
    SC_CHECK_INT_EQ(journal_count(&n, won->job, "holder="), 1);
    race_request(&n, w);
    for (unsigned cpu = 0; cpu < 4; cpu++) {
        SC_CHECK(fake_msr_get(n.root, cpu, MSR_I) ==
                 (n.req.prefetch == SC_PREFETCH_OFF ? (SEED | 0xf) : SEED));
        SC_CHECK_STR_EQ(fake_governor(n.root, cpu, buf, sizeof(buf)), n.req.governor);
    }

    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, won->job, holders[w], &log), 0);
    free(log);
    SC_CHECK(!journal_exists(&n, won->job));
    for (unsigned cpu = 0; cpu < 4; cpu++) {
        SC_CHECK(fake_msr_get(n.root, cpu, MSR_I) == SEED);
        SC_CHECK_STR_EQ(fake_governor(n.root, cpu, buf, sizeof(buf)), "schedutil");
    }
    /* The node is free again: a loser now gets it. */
    int next = (w + 1) % RACERS;
    sc_pfctl_evidence ev;
    race_request(&n, next);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 100u + (unsigned)next, holders[next], &n.req, &ev, why,
                                   sizeof(why)),
                    0);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 100u + (unsigned)next, holders[next], &log), 0);
    free(log);
    for (int i = 0; i < RACERS; i++)
        fake_holder_stop(holders[i]);
    node_free(&n);
}

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

/* The one damaged journal set aside in n's state directory ("" when none). */
static const char *damaged_name(const node *n, char *buf, size_t len)
{
    char cmd[PATH_MAX];
    buf[0] = '\0';
    snprintf(cmd, sizeof(cmd), "ls %s | grep '^damaged_' 2>/dev/null", n->state);
    FILE *p = popen(cmd, "r");
    if (p && fgets(buf, (int)len, p))
        buf[strcspn(buf, "\n")] = '\0';
    if (p)
        pclose(p);
    return buf;
}

/*
 * A journal that cannot be read never keeps the node from taking platform jobs: what can be
 * read of it is restored, the file is set aside under a dated name, one line says so. Only
 * a live step of its job (a holder that still parses) keeps the node busy.
 */
static void test_damaged_journal(void)
{
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED | 0xf, NULL, NULL};
    sc_pfctl_evidence ev;
    char why[512], name[256], line[128], *log = NULL;
    node n;

    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-1", SC_PREFETCH_OFF, NULL), 0);
    SC_CHECK_INT_EQ(mkdir(n.state, 0700), 0);
    /* One well-formed record for cpu 1, garbage, no end line, no holder. */
    static const char damaged[] = "version=1\njob=5\nprefetch=off\ngovernor=unchanged\ncpus=1\n"
                                  "msr=1 0x1a4 0xf 0xdeadbeef00000040\n\x01\x02garbage\n";
    SC_CHECK_INT_EQ(sysroot_put(n.root, "state/job_5.journal", damaged), 0);
    /* Another job: job 5's readable record restored, the file set aside, the change made. */
    int rc = sc_pfctl_apply(&n.cfg, 6, getpid(), &n.req, &ev, why, sizeof(why));
    SC_CHECK_MSG(rc == 0, "rc %d: %s", rc, why);
    SC_CHECK_STR_CONTAINS(ev.control_log, "restore: job 5 cpu 1 reg 0x1a4 mask 0xf");
    SC_CHECK_STR_CONTAINS(ev.control_log,
                          "job_5.journal is corrupt: line 7: malformed: ??garbage; restored what "
                          "could be read (1 register(s), 0 governor(s)), the file kept as ");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK(!journal_exists(&n, 5));
    SC_CHECK_STR_CONTAINS(damaged_name(&n, name, sizeof(name)), "damaged_job_5.journal.");
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 6, getpid(), &log), 0);
    free(log);
    SC_CHECK(fake_msr_get(n.root, 1, MSR_I) == SEED); /* job 5's original of cpu 1 */
    SC_CHECK(fake_msr_get(n.root, 0, MSR_I) == (SEED | 0xf));

    /* Damaged with a live step: that job still holds the node, by name. */
    pid_t holder = fake_holder_start();
    unsigned long long start = 0;
    SC_CHECK(holder > 0 && sc_proc_start_time(holder, &start) == 0);
    snprintf(line, sizeof(line), "holder=%ld %llu\n", (long)holder, start);
    char *text = NULL;
    SC_CHECK(asprintf(&text,
                      "version=1\njob=7\nprefetch=off\ngovernor=unchanged\ncpus=1\n"
                      "msr=1 0x1a4 0xf 0x40\n%sgarbage\n",
                      line) > 0);
    SC_CHECK_INT_EQ(sysroot_put(n.root, "state/job_7.journal", text), 0);
    free(text);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 8, getpid(), &n.req, &ev, why, sizeof(why)), -EBUSY);
    SC_CHECK_STR_CONTAINS(why, "node busy: job 7 holds prefetch=off");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_restore_stale(&n.cfg, &log), 0); /* slurmd restarts: left alone */
    SC_CHECK_STR_CONTAINS(log, "restore: job 7: 1 of 1 holder(s) alive, left alone (its journal "
                               "is damaged)");
    free(log);
    SC_CHECK(journal_exists(&n, 7));
    /* Its step ends: restored as far as it reads (prefetch on again: bits 0-3 clear), set
       aside. */
    SC_CHECK_INT_EQ(fake_msr_put(n.root, 1, MSR_I, SEED | 0xf), 0);
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 7, holder, &log), 0);
    SC_CHECK_STR_CONTAINS(log, "restored what could be read (1 register(s)");
    free(log);
    SC_CHECK(!journal_exists(&n, 7) && fake_msr_get(n.root, 1, MSR_I) == SEED);
    fake_holder_stop(holder);

    /* A directory where a journal should be, at the job's end: set aside too. */
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/job_9.journal", n.state);
    SC_CHECK_INT_EQ(mkdir(path, 0700), 0);
    SC_CHECK_INT_EQ(sc_pfctl_restore_job(&n.cfg, 9, &log), 0);
    SC_CHECK_STR_CONTAINS(log, "not a regular file; restored what could be read (0 register(s)");
    free(log);
    SC_CHECK(!journal_exists(&n, 9));
    /* And the node takes the next job. */
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 10, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 10, getpid(), &log), 0);
    free(log);
    node_free(&n);
}

/* A restore that cannot complete says where and keeps the journal for another try. */
static void test_failed_restore_keeps_journal(void)
{
    fake_node spec = {INTEL_CORE, 4, MSR_I, SEED, NULL, NULL};
    sc_pfctl_evidence ev;
    char why[512], path[PATH_MAX], aside[PATH_MAX], *log = NULL;
    node n;

    SC_CHECK_INT_EQ(node_make(&n, &spec, "0-1", SC_PREFETCH_OFF, NULL), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 8, getpid(), &n.req, &ev, why, sizeof(why)), 0);
    sc_pfctl_evidence_free(&ev);
    snprintf(path, sizeof(path), "%s/dev/cpu/1/msr", n.root);
    snprintf(aside, sizeof(aside), "%s/msr-aside", n.root);
    SC_CHECK_INT_EQ(rename(path, aside), 0); /* the msr device of cpu 1 disappears */
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 8, getpid(), &log), -ENOENT);
    SC_CHECK_STR_CONTAINS(log, "ERROR: restore of job 8: streamcard: cannot open dev/cpu/1/msr");
    SC_CHECK_STR_CONTAINS(log, "journal kept in");
    free(log);
    SC_CHECK(fake_msr_get(n.root, 0, MSR_I) == SEED); /* cpu 0 was still restored */
    SC_CHECK(journal_exists(&n, 8));
    SC_CHECK_INT_EQ(rename(aside, path), 0);
    SC_CHECK_INT_EQ(sc_pfctl_restore_job(&n.cfg, 8, &log), 0);
    free(log);
    SC_CHECK(fake_msr_get(n.root, 1, MSR_I) == SEED && !journal_exists(&n, 8));
    node_free(&n);
}

/* The evidence speaks the core's language: its platform gate accepts it, or fails it. */
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
    SC_TEST_RUN(test_conflicts);
    SC_TEST_RUN(test_jobs_race_for_the_node);
    SC_TEST_RUN(test_refusals_change_nothing);
    SC_TEST_RUN(test_governor_apply_release);
    SC_TEST_RUN(test_nothing_to_do);
    SC_TEST_RUN(test_damaged_journal);
    SC_TEST_RUN(test_failed_restore_keeps_journal);
    SC_TEST_RUN(test_gate_reads_the_evidence);
    return SC_TEST_RESULT();
}
