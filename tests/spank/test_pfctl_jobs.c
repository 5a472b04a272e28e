/*
 * test_pfctl_jobs.c: the facade between jobs and after failures, on fake nodes: conflicts
 * between jobs, jobs racing for one node, damaged journals and failed restores.
 */
#include "journal.h"
#include "pfctl_node.h"
#include "platform.h"
#include "sc_test.h"

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
    SC_CHECK_INT_EQ(
        sc_pfctl_apply(&n.cfg, 100u + (unsigned)next, holders[next], &n.req, &ev, why, sizeof(why)),
        0);
    sc_pfctl_evidence_free(&ev);
    SC_CHECK_INT_EQ(sc_pfctl_release(&n.cfg, 100u + (unsigned)next, holders[next], &log), 0);
    free(log);
    for (int i = 0; i < RACERS; i++)
        fake_holder_stop(holders[i]);
    node_free(&n);
}

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

    /* Damaged, and its restore fails (cpu 1's msr device is gone): the next job is refused
       rather than handed job 11's values as originals; the file is set aside either way. */
    static const char damaged11[] = "version=1\njob=11\nprefetch=off\ngovernor=unchanged\n"
                                    "cpus=1\nmsr=1 0x1a4 0xf 0xdeadbeef00000040\ngarbage\n";
    char msr1[PATH_MAX], msr1_aside[PATH_MAX];
    snprintf(msr1, sizeof(msr1), "%s/dev/cpu/1/msr", n.root);
    snprintf(msr1_aside, sizeof(msr1_aside), "%s/msr-aside", n.root);
    SC_CHECK_INT_EQ(sysroot_put(n.root, "state/job_11.journal", damaged11), 0);
    SC_CHECK_INT_EQ(rename(msr1, msr1_aside), 0);
    SC_CHECK_INT_EQ(sc_pfctl_apply(&n.cfg, 12, getpid(), &n.req, &ev, why, sizeof(why)), -EBUSY);
    SC_CHECK_STR_CONTAINS(why, "node busy: the damaged journal of job 11 could not be restored");
    SC_CHECK_STR_CONTAINS(ev.control_log, "ERROR: restore of job 11: ");
    sc_pfctl_evidence_free(&ev);
    SC_CHECK(!journal_exists(&n, 11));
    SC_CHECK_INT_EQ(rename(msr1_aside, msr1), 0);

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

int main(void)
{
    SC_TEST_RUN(test_conflicts);
    SC_TEST_RUN(test_jobs_race_for_the_node);
    SC_TEST_RUN(test_damaged_journal);
    SC_TEST_RUN(test_failed_restore_keeps_journal);
    return SC_TEST_RESULT();
}
