/*
 * test_card_child.c: the card check under an account of its own (spank/card_child.h), run
 * as root the way slurmstepd runs it; nobody stands in for the check's account. With a
 * stand-in helper (card_child_helper.c) it shows the child's identity, session, limits and
 * sandbox, and how a child that spins, hangs, floods, fails, forks, execs or asks to be
 * traced is ended; with the real streamcard-card-check it shows the record of a good card,
 * of a bad one, and of the cost bombs, each refused within the limits, and that the check's
 * own filter kills what reading a card does not need. Needs root (it drops to nobody).
 */
#include "card_child.h"
#include "card_sandbox.h"
#include "sc_card_record.h"
#include "sc_hash.h"
#include "sc_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static char sha_of[SC_HASH_HEX_LEN + 1];

/* Runs helper as nobody with name and the card text; returns its result, output in *out. */
static int run(const char *helper, const char *name, const char *text, int deadline_ms, char **out,
               char *why, size_t whylen)
{
    size_t len = 0;
    sc_hash_buf(text, strlen(text), sha_of);
    sc_card_child_in in = {.helper = helper,
                           .text = text,
                           .len = strlen(text),
                           .sha = sha_of,
                           .name = name,
                           .uid = NOBODY,
                           .gid = NOBODY,
                           .deadline_ms = deadline_ms};
    return sc_card_child_run(&in, out, &len, why, whylen);
}

/* The child is nobody, with one group, no new privileges, the limits, in /, with the card on
   stdin and no descriptor of the parent's. */
static void test_identity_and_limits(void)
{
    char *out = NULL, why[512] = "";
    int rc = run(SC_TEST_HELPER, "ids", "version: 1\n", 5000, &out, why, sizeof(why));
    SC_CHECK_MSG(rc == 0, "rc %d: %s", rc, why);
    SC_CHECK_STR_CONTAINS(out, "uid=65534 euid=65534 gid=65534 egid=65534 groups=1:65534 nnp=1 ");
    SC_CHECK_STR_CONTAINS(out, " own_session=1 pdeath=9 ");
    if (SC_CARD_CHILD_LIMIT_NPROC) /* no process of its own: no fork succeeds */
        SC_CHECK_STR_CONTAINS(out, " nproc=0 own_session=1 ");
    SC_CHECK_STR_CONTAINS(out, " cpu=1 as=");
    SC_CHECK_STR_CONTAINS(out, " fsize=0 nofile=16 core=0 wrote=0 big=");
    SC_CHECK_STR_CONTAINS(out, " cwd=/ fd3=0 fd4=0 card=version: 1\n");
    if (SC_CARD_CHILD_LIMIT_AS) /* 256 MB of address space: 512 MB cannot be had */
        SC_CHECK_STR_CONTAINS(out, " as=268435456 fsize=0 nofile=16 core=0 wrote=0 big=0 ");
    free(out);
}

typedef struct bad_child {
    const char *name;
    int deadline_ms;
    int rc;
    const char *why;
} bad_child;

/* Children that do not behave are ended, and the reason is one line. */
static void test_bad_children(void)
{
    static const bad_child cases[] = {
        {"spin", 10000, -ECHILD, "the card check was killed by signal"},
        {"hang", 300, -ETIME, "the card check did not finish within 300 ms (killed)"},
        {"late", 300, -ETIME, "the card check did not finish within 300 ms (killed)"},
        {"flood", 5000, -EFBIG, "the card check wrote more than 32768 bytes (killed)"},
        {"fail", 5000, -ECHILD, "the card check failed (exit status 5)"},
        /* The prefilter, whatever binary is installed as the check. */
        {"fork", 5000, -ECHILD, "a system call its sandbox forbids"},
        {"exec", 5000, -ECHILD, "a system call its sandbox forbids"},
        {"ptrace", 5000, -ECHILD, "a system call its sandbox forbids"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL, why[512] = "";
        if (!SC_CARD_SANDBOX_SECCOMP && i >= 5) {
            printf("SKIP case %s: a sanitizer build has no seccomp filter\n", cases[i].name);
            continue;
        }
        int rc =
            run(SC_TEST_HELPER, cases[i].name, "x", cases[i].deadline_ms, &out, why, sizeof(why));
        bool ok = rc == cases[i].rc && strstr(why, cases[i].why) && !out;
        if (!ok)
            fprintf(stderr, "case %s: rc %d, why \"%s\"; expected %d, \"%s\"\n", cases[i].name, rc,
                    why, cases[i].rc, cases[i].why);
        failures += !ok;
        free(out);
    }
    SC_CHECK_MSG(failures == 0, "%d of the cases failed (see above)", failures);
}

/* Never root: the check's account must be another. */
static void test_never_root(void)
{
    char *out = NULL, why[512] = "";
    size_t len = 0;
    sc_card_child_in in = {.helper = SC_TEST_HELPER,
                           .text = "x",
                           .len = 1,
                           .sha = sha_of,
                           .name = "ids",
                           .uid = 0,
                           .gid = 0,
                           .deadline_ms = 5000};
    SC_CHECK_INT_EQ(sc_card_child_run(&in, &out, &len, why, sizeof(why)), -EPERM);
    SC_CHECK_STR_CONTAINS(why, "never runs as root");
    uid_t uid;
    gid_t gid;
    SC_CHECK_INT_EQ(sc_card_child_account("root", &uid, &gid, why, sizeof(why)), -EPERM);
    SC_CHECK_INT_EQ(sc_card_child_account("no-such-user-sc", &uid, &gid, why, sizeof(why)),
                    -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "the card check's account no-such-user-sc does not exist on this "
                               "node (valid: install the streamcard package, or: useradd");
    SC_CHECK_INT_EQ(sc_card_child_account("nobody", &uid, &gid, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ((int)uid, NOBODY);
}

/* The check's own filter, as streamcard-card-check enters it: what reading a card needs
   goes through, anything else kills the process. In a child that takes nobody's identity
   first; what: 0 reads and writes, 1 opens a file, 2 asks its pid. Returns the signal that
   ended it, or 100 + its exit status. */
static int sandboxed(int what)
{
    pid_t pid = fork();
    if (pid == 0) {
        char buf[16];
        if (setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0 ||
            sc_card_sandbox_enter() < 0)
            _exit(3);
        if (what == 0)
            _exit(write(1, "", 0) == 0 && read(0, buf, 0) == 0 ? 0 : 4);
        if (what == 1) { /* killed on the open: the exit is never reached */
            int fd = open("/etc/hostname", O_RDONLY);
            _exit(fd >= 0 ? 6 : 7);
        }
        if (what == 2)
            _exit(getpid() > 0 ? 8 : 9);
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status);
}

/* Not dumpable once in its sandbox: its /proc files are root's, not nobody's, so a process
   of the same uid cannot attach to it or read its memory. The child waits on its stdin. */
static void test_not_dumpable(void)
{
    int fds[2];
    SC_CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(fds[1]);
        if (dup2(fds[0], 0) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
            setresuid(NOBODY, NOBODY, NOBODY) < 0 || sc_card_sandbox_enter() < 0)
            _exit(3);
        _exit(read(0, &c, 1) == 0 ? 0 : 4);
    }
    close(fds[0]);
    char path[64];
    struct stat st = {0};
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    /* Until the child has taken nobody's uid and entered the sandbox (bounded: 2 s). */
    for (int i = 0; i < 400; i++) {
        usleep(5000);
        if (stat(path, &st) == 0 && st.st_uid == 0 && i > 20)
            break;
    }
    close(fds[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    SC_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    SC_CHECK_MSG(st.st_uid == 0, "the sandboxed check's /proc files are uid %u's, not root's",
                 (unsigned)st.st_uid);
}

static void test_check_filter(void)
{
    if (!SC_CARD_SANDBOX_SECCOMP) {
        printf("SKIP: a sanitizer build has no seccomp filter\n");
        return;
    }
    SC_CHECK_INT_EQ(sandboxed(0), 100);
    SC_CHECK_INT_EQ(sandboxed(1), SIGSYS);
    SC_CHECK_INT_EQ(sandboxed(2), SIGSYS);
}

/* A helper that others could write, or that is not root's, is never run. */
static void test_helper_refused(void)
{
    char dir[] = "/tmp/sc-card-child-XXXXXX", path[64], cmd[256], *out = NULL, why[512] = "";
    SC_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/helper", dir);
    snprintf(cmd, sizeof(cmd), "cp %s %s", SC_TEST_HELPER, path);
    SC_CHECK(system(cmd) == 0);
    SC_CHECK(chmod(path, 0777) == 0);
    SC_CHECK_INT_EQ(run(path, "ids", "x", 5000, &out, why, sizeof(why)), -EPERM);
    SC_CHECK_STR_CONTAINS(why, "is not a root-owned executable that only root can write");
    SC_CHECK(chmod(path, 0755) == 0 && chown(path, NOBODY, NOBODY) == 0);
    SC_CHECK_INT_EQ(run(path, "ids", "x", 5000, &out, why, sizeof(why)), -EPERM);
    SC_CHECK_INT_EQ(run("/nonexistent/helper", "ids", "x", 5000, &out, why, sizeof(why)), -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "cannot open the card check /nonexistent/helper");
    unlink(path);
    rmdir(dir);
}

/* The real check: the record of a card as root then reads it. */
static int check(const char *yaml, sc_card **card, sc_diag *d, char *why, size_t whylen)
{
    char *out = NULL;
    int rc = run(SC_CARD_CHECK, "card.yaml", yaml, 5000, &out, why, whylen);
    if (rc == 0)
        rc = sc_card_record_read(out, strlen(out), sha_of, NOBODY, "card.yaml", card, d, why,
                                 whylen);
    free(out);
    return rc;
}

static void test_real_check(void)
{
    sc_card *card = NULL;
    sc_diag d;
    char why[600] = "";
    sc_diag_init(&d);
    int rc = check("version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0-1\n"
                   "  prefetch: off\n",
                   &card, &d, why, sizeof(why));
    SC_CHECK_MSG(rc == 0, "rc %d: %s", rc, why);
    SC_CHECK_INT_EQ(card->prefetch, SC_PREFETCH_OFF);
    SC_CHECK_INT_EQ(hwloc_bitmap_weight(card->cpus), 2);
    sc_card_free(card);
    card = NULL;
    rc = check("version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0-1\n  threads: 3\n",
               &card, &d, why, sizeof(why));
    SC_CHECK_INT_EQ(rc, -EINVAL);
    SC_CHECK_STR_CONTAINS(d.lines[0], "card.yaml:5: threads: 3 is more than the 2 CPUs");
    sc_diag_free(&d);
}

/* The bomb shapes, through the real check: each a refusal with its one line. */
static void test_bombs(void)
{
    static const char *const items[][3] = {
        {"  iterations: &i 2\n  array_size: [", "*i, ", "anchors (&) and aliases (*)"},
        {"  controlled_variables: ", "[", "nested deeper than 8 levels"},
        {"  env:\n", "    A: x\n", "more than 256 entries in one mapping"},
        {"  question: \"", "q", "is longer than a card allows"},
    };
    for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
        size_t cap = SC_CARD_MAX_BYTES - 8, len;
        char *yaml = malloc(cap + 8);
        SC_CHECK(yaml != NULL);
        len = (size_t)snprintf(yaml, cap,
                               "version: 1\nexperiment:\n  workload: stream\n"
                               "  cpu_list: 0\n%s",
                               items[i][0]);
        while (len + strlen(items[i][1]) < cap)
            len += (size_t)snprintf(yaml + len, cap + 8 - len, "%s", items[i][1]);
        snprintf(yaml + len, cap + 8 - len, "%s", strchr(items[i][0], '"') ? "\"\n" : "\n");
        sc_card *card = NULL;
        sc_diag d;
        char why[600] = "";
        sc_diag_init(&d);
        int rc = check(yaml, &card, &d, why, sizeof(why));
        SC_CHECK_MSG(rc == -EINVAL && d.count == 1 && strstr(d.lines[0], items[i][2]),
                     "bomb %zu: rc %d (%s), %zu lines", i, rc, why, d.count);
        sc_diag_free(&d);
        free(yaml);
    }
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP: needs root (the check drops to nobody)\n");
        return 77;
    }
    SC_TEST_RUN(test_identity_and_limits);
    SC_TEST_RUN(test_bad_children);
    SC_TEST_RUN(test_never_root);
    SC_TEST_RUN(test_check_filter);
    SC_TEST_RUN(test_not_dumpable);
    SC_TEST_RUN(test_helper_refused);
    SC_TEST_RUN(test_real_check);
    SC_TEST_RUN(test_bombs);
    return SC_TEST_RESULT();
}
