/*
 * test_journal.c: the restore journal: text round trip, corrupt texts, the state
 * directory's checks, atomic store/load/list/remove, holder liveness.
 */
#include "fake_node.h"
#include "journal.h"
#include "sc_cpulist.h"
#include "sc_test.h"

#include <sys/stat.h>

static void test_round_trip(void)
{
    sc_journal j, k;
    char why[256] = "";

    SC_CHECK_INT_EQ(sc_journal_init(&j, 42), 0);
    SC_CHECK_INT_EQ(sc_journal_init(&k, 42), 0);
    j.prefetch = SC_PREFETCH_OFF;
    snprintf(j.governor, sizeof(j.governor), "performance");
    snprintf(j.arch, sizeof(j.arch), "intel-core");
    SC_CHECK_INT_EQ(sc_cpulist_parse("1-2,7", j.cpus, NULL, 0), 0);
    sc_journal_msr m1 = {1, 0x1a4, 0xf, 0xdeadbeef00000040ull};
    sc_journal_msr m2 = {7, 0x1a4, 0xf, 0xffffffffffffffffull};
    SC_CHECK_INT_EQ(sc_journal_add_msr(&j, &m1), 0);
    SC_CHECK_INT_EQ(sc_journal_add_msr(&j, &m2), 0);
    SC_CHECK_INT_EQ(sc_journal_add_gov(&j, 2, "powersave"), 0);
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, 1234, 99), 0);
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, 1234, 100), 0); /* same pid: no second entry */
    SC_CHECK_INT_EQ(j.n_holders, 1);

    char *text = sc_journal_format(&j);
    SC_CHECK(text);
    SC_CHECK_STR_CONTAINS(text, "msr=1 0x1a4 0xf 0xdeadbeef00000040\n");
    SC_CHECK_STR_CONTAINS(text, "holder=1234 100\n");
    SC_CHECK_INT_EQ(sc_journal_parse(text, &k, why, sizeof(why)), 0);
    free(text);
    SC_CHECK(sc_journal_same_request(&k, SC_PREFETCH_OFF, "performance", j.cpus));
    SC_CHECK(!sc_journal_same_request(&k, SC_PREFETCH_ON, "performance", j.cpus));
    SC_CHECK(!sc_journal_same_request(&k, SC_PREFETCH_OFF, "unchanged", j.cpus));
    SC_CHECK_STR_EQ(k.arch, "intel-core");
    SC_CHECK_INT_EQ(k.n_msr, 2);
    SC_CHECK_INT_EQ(k.msr[1].cpu, 7);
    SC_CHECK(k.msr[1].orig == 0xffffffffffffffffull && k.msr[0].orig == m1.orig);
    SC_CHECK_INT_EQ(k.n_gov, 1);
    SC_CHECK_STR_EQ(k.gov[0].orig, "powersave");
    SC_CHECK_INT_EQ(k.holders[0].pid, 1234);
    SC_CHECK_INT_EQ(k.holders[0].start, 100);
    SC_CHECK(sc_journal_remove_holder(&k, 1234));
    SC_CHECK(!sc_journal_remove_holder(&k, 1234));
    sc_journal_free(&j);
    sc_journal_free(&k);
}

#define HEAD "version=1\njob=5\nprefetch=off\ngovernor=unchanged\ncpus=0-1\n"

static const struct corrupt_case {
    const char *name, *text, *why;
    size_t n_msr; /* well-formed records still returned */
} corrupt_cases[] = {
    {"empty", "", "version missing", 0},
    {"truncated", HEAD "msr=0 0x1a4 0xf 0x40\n", "end missing (the journal is truncated)", 1},
    {"unknown key", HEAD "color=blue\nend=1\n", "line 6: malformed: color", 0},
    {"no equals sign", HEAD "garbage\nend=1\n", "line 6: malformed: garbage", 0},
    {"bad hex", HEAD "msr=0 0x1a4 0xf 0x4g\nmsr=1 0x1a4 0xf 0x40\nend=1\n", "line 6", 1},
    {"decimal register", HEAD "msr=0 420 0xf 0x40\nend=1\n", "line 6", 0},
    {"negative cpu", HEAD "msr=-1 0x1a4 0xf 0x40\nend=1\n", "line 6", 0},
    {"cpu too large", HEAD "msr=99999999 0x1a4 0xf 0x40\nend=1\n", "line 6", 0},
    {"extra field", HEAD "msr=0 0x1a4 0xf 0x40 0x1\nend=1\n", "line 6", 0},
    {"governor path", HEAD "gov=0 ../../etc\nend=1\n", "line 6", 0},
    {"holder pid 0", HEAD "holder=0 5\nend=1\n", "line 6", 0},
    {"text after end", HEAD "end=1\nmsr=0 0x1a4 0xf 0x40\n", "line 7: text after end=1", 0},
    {"other job", "version=1\njob=6\nprefetch=off\ngovernor=unchanged\ncpus=0\nend=1\n", "line 2",
     0},
    {"version 2", "version=2\njob=5\nprefetch=off\ngovernor=unchanged\ncpus=0\nend=1\n", "line 1",
     0},
    {"bad prefetch", "version=1\njob=5\nprefetch=maybe\ngovernor=unchanged\ncpus=0\nend=1\n",
     "line 3", 0},
    {"binary",
     "\x7f"
     "ELF\x01\x02\n\xff\xfe\n",
     "line 1", 0},
};

static void test_corrupt_table(void)
{
    char longline[2048];

    for (size_t i = 0; i < sizeof(corrupt_cases) / sizeof(corrupt_cases[0]); i++) {
        const struct corrupt_case *c = &corrupt_cases[i];
        char why[256] = "";
        sc_journal j;

        SC_CHECK_INT_EQ(sc_journal_init(&j, 5), 0);
        int rc = sc_journal_parse(c->text, &j, why, sizeof(why));
        SC_CHECK_MSG(rc == -EBADMSG, "%s: rc %d", c->name, rc);
        SC_CHECK_MSG(strstr(why, c->why), "%s: \"%s\" lacks \"%s\"", c->name, why, c->why);
        SC_CHECK_MSG(j.n_msr == c->n_msr, "%s: %zu msr records", c->name, j.n_msr);
        sc_journal_free(&j);
    }
    memset(longline, 'a', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\0';
    sc_journal j;
    char why[256];
    SC_CHECK_INT_EQ(sc_journal_init(&j, 5), 0);
    SC_CHECK_INT_EQ(sc_journal_parse(longline, &j, why, sizeof(why)), -EBADMSG);
    SC_CHECK_STR_CONTAINS(why, "line 1: malformed: aaaaaaaa");
    sc_journal_free(&j);
}

/*
 * What is written is read: a journal of a 384-CPU node whose request holds every other CPU
 * (a cpus= line of 700 bytes, a holder line per step) reads back as the same journal.
 */
static void test_long_lines_read_back(void)
{
    sc_journal j, back;
    char why[256] = "";

    SC_CHECK_INT_EQ(sc_journal_init(&j, 7), 0);
    SC_CHECK_INT_EQ(sc_journal_init(&back, 7), 0);
    j.prefetch = SC_PREFETCH_OFF;
    for (unsigned cpu = 0; cpu < 380; cpu += 2) {
        sc_journal_msr m = {cpu, 0x1a4, 0xf, 0x40};
        hwloc_bitmap_set(j.cpus, cpu);
        SC_CHECK_INT_EQ(sc_journal_add_msr(&j, &m), 0);
    }
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, getpid(), 1234), 0);
    char *text = sc_journal_format(&j);
    SC_CHECK(text != NULL);
    const char *cpus = strstr(text, "\ncpus=");
    SC_CHECK(cpus && strcspn(cpus + 1, "\n") > 512);
    SC_CHECK_MSG(sc_journal_parse(text, &back, why, sizeof(why)) == 0, "%s", why);
    SC_CHECK(hwloc_bitmap_isequal(back.cpus, j.cpus));
    SC_CHECK_INT_EQ(back.n_msr, 190);
    char *again = sc_journal_format(&back);
    SC_CHECK_STR_EQ(again, text);
    free(again);
    free(text);
    sc_journal_free(&j);
    sc_journal_free(&back);
}

/* A state directory under a fresh temporary directory. */
static char *statedir_path(char *buf, size_t len, char **tmp)
{
    *tmp = sysroot_make();
    if (!*tmp)
        return NULL;
    snprintf(buf, len, "%s/state", *tmp);
    return buf;
}

static void test_statedir_checks(void)
{
    char *tmp, path[PATH_MAX / 2], other[PATH_MAX], why[512] = "";
    struct stat st;
    sc_statedir d;

    SC_CHECK(statedir_path(path, sizeof(path), &tmp));
    /* Missing: created 0700. */
    SC_CHECK_INT_EQ(sc_statedir_open(&d, path, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(stat(path, &st), 0);
    SC_CHECK_INT_EQ(st.st_mode & 07777, 0700);
    SC_CHECK_INT_EQ(sc_statedir_lock(&d, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(sc_statedir_lock(&d, why, sizeof(why)), 0); /* already held: no-op */
    snprintf(other, sizeof(other), "%s/streamcard.lock", path);
    SC_CHECK_INT_EQ(stat(other, &st), 0);
    SC_CHECK_INT_EQ(st.st_mode & 07777, 0600);
    sc_statedir_close(&d);

    /* Writable by others: refused. */
    SC_CHECK_INT_EQ(chmod(path, 0777), 0);
    SC_CHECK_INT_EQ(sc_statedir_open(&d, path, why, sizeof(why)), -EPERM);
    SC_CHECK_STR_CONTAINS(why, "mode 0777 lets others write (valid: 0700)");
    SC_CHECK_INT_EQ(chmod(path, 0700), 0);

    /* Owned by someone else: refused. */
    SC_CHECK_INT_EQ(chown(path, 12345, 12345), 0);
    SC_CHECK_INT_EQ(sc_statedir_open(&d, path, why, sizeof(why)), -EPERM);
    SC_CHECK_STR_CONTAINS(why, "owned by uid 12345");
    SC_CHECK_INT_EQ(chown(path, 0, 0), 0);

    /* A symlink to a good directory: refused. */
    snprintf(other, sizeof(other), "%s/link", tmp);
    SC_CHECK_INT_EQ(symlink(path, other), 0);
    SC_CHECK_INT_EQ(sc_statedir_open(&d, other, why, sizeof(why)), -ELOOP);
    SC_CHECK_STR_CONTAINS(why, "it is a symlink");

    /* A regular file: refused. */
    snprintf(other, sizeof(other), "%s/file", tmp);
    SC_CHECK_INT_EQ(sysroot_put(tmp, "file", "x"), 0);
    SC_CHECK_INT_EQ(sc_statedir_open(&d, other, why, sizeof(why)), -ENOTDIR);

    /* Relative: refused; missing parent: an error, nothing created. */
    SC_CHECK_INT_EQ(sc_statedir_open(&d, "state", why, sizeof(why)), -EINVAL);
    snprintf(other, sizeof(other), "%s/no/such/state", tmp);
    SC_CHECK_INT_EQ(sc_statedir_open(&d, other, why, sizeof(why)), -ENOENT);
    sysroot_remove(tmp);
}

static void test_store_load_list(void)
{
    char *tmp, path[PATH_MAX / 2], why[512] = "";
    uint32_t *jobs = NULL;
    size_t count = 0;
    sc_statedir d;
    sc_journal j;

    SC_CHECK(statedir_path(path, sizeof(path), &tmp));
    SC_CHECK_INT_EQ(sc_statedir_open(&d, path, why, sizeof(why)), 0);
    static const uint32_t ids[] = {4294967295u, 12, 7};
    for (size_t i = 0; i < 3; i++) {
        SC_CHECK_INT_EQ(sc_journal_init(&j, ids[i]), 0);
        SC_CHECK_INT_EQ(sc_cpulist_parse("0", j.cpus, NULL, 0), 0);
        SC_CHECK_INT_EQ(sc_journal_add_holder(&j, 77, 1), 0);
        SC_CHECK_INT_EQ(sc_journal_store(&d, &j, why, sizeof(why)), 0);
        sc_journal_free(&j);
    }
    /* Names that are not journals are ignored. */
    static const char *const stray[] = {"job_012.journal",   "job_x.journal",
                                        "job_5.journal.tmp", "job_4294967296.journal",
                                        "job_-1.journal",    "notes"};
    for (size_t i = 0; i < sizeof(stray) / sizeof(stray[0]); i++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "state/%s", stray[i]);
        SC_CHECK_INT_EQ(sysroot_put(tmp, rel, "x"), 0);
    }
    SC_CHECK_INT_EQ(sc_journal_list(&d, &jobs, &count), 0);
    SC_CHECK_INT_EQ(count, 3);
    SC_CHECK(jobs[0] == 7 && jobs[1] == 12 && jobs[2] == 4294967295u);
    free(jobs);

    SC_CHECK_INT_EQ(sc_journal_init(&j, 12), 0);
    SC_CHECK_INT_EQ(sc_journal_load(&d, 12, &j, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(j.holders[0].pid, 77);
    sc_journal_free(&j);
    SC_CHECK_INT_EQ(sc_journal_init(&j, 13), 0);
    SC_CHECK_INT_EQ(sc_journal_load(&d, 13, &j, why, sizeof(why)), -ENOENT);
    sc_journal_free(&j);
    SC_CHECK_INT_EQ(sc_journal_remove(&d, 12, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(sc_journal_remove(&d, 12, why, sizeof(why)), -ENOENT);

    /* A corrupt file, a directory and a symlink in a journal's place. */
    SC_CHECK_INT_EQ(sysroot_put(tmp, "state/job_7.journal", "version=1\njob=7\n"), 0);
    SC_CHECK_INT_EQ(sc_journal_init(&j, 7), 0);
    SC_CHECK_INT_EQ(sc_journal_load(&d, 7, &j, why, sizeof(why)), -EBADMSG);
    SC_CHECK_STR_CONTAINS(why, "job_7.journal is corrupt: prefetch missing");
    sc_journal_free(&j);
    SC_CHECK_INT_EQ(sysroot_put(tmp, "state/job_8.journal/x", ""), 0);
    SC_CHECK_INT_EQ(sc_journal_init(&j, 8), 0);
    SC_CHECK_INT_EQ(sc_journal_load(&d, 8, &j, why, sizeof(why)), -EBADMSG);
    SC_CHECK_STR_CONTAINS(why, "not a regular file");
    sc_journal_free(&j);
    char link[PATH_MAX];
    snprintf(link, sizeof(link), "%s/job_9.journal", path);
    SC_CHECK_INT_EQ(symlink("/etc/passwd", link), 0);
    SC_CHECK_INT_EQ(sc_journal_init(&j, 9), 0);
    SC_CHECK_INT_EQ(sc_journal_load(&d, 9, &j, why, sizeof(why)), -ELOOP);
    sc_journal_free(&j);
    sc_statedir_close(&d);
    sysroot_remove(tmp);
}

static void test_holders(void)
{
    unsigned long long start = 0, zstart = 0, s;
    int gate[2];
    pid_t child = fake_holder_start(), zombie;
    sc_journal j;

    SC_CHECK_INT_EQ(pipe(gate), 0);
    zombie = fork();
    if (zombie == 0) { /* exits when the pipe closes; not reaped until the end */
        char c;
        close(gate[1]);
        /* cppcheck-suppress invalidFunctionArgBool ; the status is the comparison, 0 or 1 */
        _exit(read(gate[0], &c, 1) < 0);
    }
    close(gate[0]);
    SC_CHECK(child > 0 && zombie > 0);
    SC_CHECK_INT_EQ(sc_proc_start_time(zombie, &zstart), 0); /* alive: its real start time */
    close(gate[1]);
    for (int i = 0; i < 10000 && sc_proc_start_time(zombie, &s) == 0; i++)
        usleep(1000); /* wait for the state to become Z, not for a time */
    SC_CHECK_INT_EQ(sc_proc_start_time(zombie, &s), -ESRCH);

    SC_CHECK_INT_EQ(sc_proc_start_time(getpid(), &start), 0);
    SC_CHECK(start > 0);
    SC_CHECK_INT_EQ(sc_journal_init(&j, 1), 0);
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, getpid(), start), 0); /* alive */
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, child, 1), 0);        /* pid reused: start differs */
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, 4194303, start), 0);  /* no such pid */
    SC_CHECK_INT_EQ(sc_journal_add_holder(&j, zombie, zstart), 0);  /* exited, not reaped */
    SC_CHECK_INT_EQ(sc_journal_prune_holders(&j), 1);
    SC_CHECK_INT_EQ(j.holders[0].pid, getpid());
    sc_journal_free(&j);
    waitpid(zombie, NULL, 0);
    SC_CHECK_INT_EQ(sc_proc_start_time(child, &s), 0);
    fake_holder_stop(child);
    SC_CHECK_INT_EQ(sc_proc_start_time(child, &s), -ESRCH);
}

int main(void)
{
    SC_TEST_RUN(test_round_trip);
    SC_TEST_RUN(test_corrupt_table);
    SC_TEST_RUN(test_long_lines_read_back);
    SC_TEST_RUN(test_statedir_checks);
    SC_TEST_RUN(test_store_load_list);
    SC_TEST_RUN(test_holders);
    return SC_TEST_RESULT();
}
