/*
 * test_attest_store.c: root's signed statements on the node (spank/attest_store.h). The
 * apply note reads back as written and once only; a note that is not the plugin's reads as
 * unknown. The directory stays bounded: of 200 jobs' statements the newest attest_keep are
 * left, none older than attest_days, temporary files an hour old go, other names and
 * directories stay, links are removed, never followed; one prune looks at a bounded number
 * of entries, and prunes in a row reach the bound.
 */
#include "attest_store.h"
#include "sc_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DAY 86400L

/* A file name in dir with modification time t. */
static void put(int dir, const char *name, time_t t)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    SC_CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    SC_CHECK(futimens(fd, ts) == 0);
    close(fd);
}

static bool there(int dir, const char *name)
{
    struct stat st;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int count(int dir, const char *prefix)
{
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY), n = 0;
    DIR *d = fdopendir(fd);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* A fresh directory (path: 64 bytes) opened; -1 when it cannot be made. */
static int tmpdir(char *path)
{
    strcpy(path, "/tmp/sc-attest-store-XXXXXX");
    return mkdtemp(path) ? open(path, O_RDONLY | O_DIRECTORY) : -1;
}

static void rmtree(const char *path)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", path);
    SC_CHECK(system(cmd) == 0);
}

static void test_note(void)
{
    char path[64], run[SC_ATTEST_RUN_MAX], sha[65], name[320];
    const char *hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    int dir = tmpdir(path);

    SC_CHECK(dir >= 0);
    SC_CHECK_INT_EQ(sc_attest_store_note(dir, 42, "n1", "1-1700000000", hex), 0);
    SC_CHECK(there(dir, "job_42_n1.apply"));
    sc_attest_store_take_note(dir, 42, "n1", run, sizeof(run), sha);
    SC_CHECK_STR_EQ(run, "1-1700000000");
    SC_CHECK_STR_EQ(sha, hex);
    SC_CHECK(!there(dir, "job_42_n1.apply")); /* taken once */
    sc_attest_store_take_note(dir, 42, "n1", run, sizeof(run), sha);
    SC_CHECK_STR_EQ(run, "unknown");
    SC_CHECK_STR_EQ(sha, "unknown");
    int fd = openat(dir, "job_43_n1.apply", O_WRONLY | O_CREAT, 0644);
    SC_CHECK(fd >= 0 && write(fd, "run=../x\napply_sha256=zz\n", 25) == 25);
    close(fd);
    sc_attest_store_take_note(dir, 43, "n1", run, sizeof(run), sha);
    SC_CHECK_STR_EQ(run, "unknown");
    sc_attest_store_restore_name(name, sizeof(name), 42, "n1", "1-1700000000");
    SC_CHECK_STR_EQ(name, "job_42_n1_1-1700000000.restore.dsse.json");
    close(dir);
    rmtree(path);
}

/* 200 jobs' statements, one a minute, and what else may be in the directory. */
static void test_prune_200_jobs(void)
{
    char path[64], name[128];
    int dir = tmpdir(path);
    time_t now = time(NULL);

    SC_CHECK(dir >= 0);
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof(name), "job_%d_n1_0-%d.restore.dsse.json", 1000 + i, i);
        put(dir, name, now - (200 - i) * 60);
    }
    put(dir, "job_1_n1.apply", now - 40 * DAY);                /* older than attest_days */
    put(dir, ".job_2_n1.apply.tmp", now - 2 * 3600);           /* a crash's leftover */
    put(dir, ".job_3_n1_0-1.restore.dsse.json.tmp", now - 60); /* being written now */
    put(dir, "README", now - 400 * DAY);                       /* not ours: left alone */
    SC_CHECK(mkdirat(dir, "job_4_n1.apply", 0755) == 0);       /* not a file: left alone */
    SC_CHECK(symlinkat("/etc/hostname", dir, "job_5_n1.apply") == 0);
    int removed = sc_attest_store_prune(dir, 50, 30 * DAY, now);
    SC_CHECK_INT_EQ(count(dir, "job_"), 50 + 1); /* the newest 50, and the directory */
    for (int i = 150; i < 200; i++) {
        snprintf(name, sizeof(name), "job_%d_n1_0-%d.restore.dsse.json", 1000 + i, i);
        SC_CHECK_MSG(there(dir, name), "%s is gone", name);
    }
    SC_CHECK(!there(dir, "job_1_n1.apply") && !there(dir, ".job_2_n1.apply.tmp"));
    SC_CHECK(there(dir, ".job_3_n1_0-1.restore.dsse.json.tmp") && there(dir, "README"));
    SC_CHECK(!there(dir, "job_5_n1.apply") && access("/etc/hostname", F_OK) == 0);
    SC_CHECK_INT_EQ(removed, 150 + 1 + 1 + 1);
    SC_CHECK_INT_EQ(sc_attest_store_prune(dir, 50, 30 * DAY, now), 0); /* nothing more */
    close(dir);
    rmtree(path);
}

/* More entries than one prune looks at: each call does bounded work, and calls in a row
   (one per restore) bring the directory to its bound. */
static void test_prune_bounded(void)
{
    char path[64], name[128];
    int dir = tmpdir(path), total = SC_ATTEST_STORE_SCAN + 1000;
    time_t now = time(NULL);

    SC_CHECK(dir >= 0);
    for (int i = 0; i < total; i++) {
        snprintf(name, sizeof(name), "job_%d_n1_0-1.restore.dsse.json", i);
        put(dir, name, now - i);
    }
    int first = sc_attest_store_prune(dir, 10, 30 * DAY, now);
    SC_CHECK_MSG(first > 0 && first <= SC_ATTEST_STORE_SCAN, "first prune removed %d", first);
    for (int i = 0; i < 3 && count(dir, "job_") > 10; i++)
        sc_attest_store_prune(dir, 10, 30 * DAY, now);
    SC_CHECK_INT_EQ(count(dir, "job_"), 10);
    close(dir);
    rmtree(path);
}

int main(void)
{
    SC_TEST_RUN(test_note);
    SC_TEST_RUN(test_prune_200_jobs);
    SC_TEST_RUN(test_prune_bounded);
    return SC_TEST_RESULT();
}
