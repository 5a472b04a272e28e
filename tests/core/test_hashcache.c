/*
 * test_hashcache.c: file hashes remembered by file identity: reused only for the same file
 * unchanged, hashed again after any change (even with the old mtime put back), and a cache
 * that is corrupt, not ours, writable by others or a symlink is ignored, never believed.
 */
#include "sc_file.h"
#include "sc_hash.h"
#include "sc_hashcache.h"
#include "sc_test.h"
#include "tmpdir_util.h"
#include "write_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* SHA-256("abc") and SHA-256("abd"). */
#define ABC_SHA "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define ABD_SHA "a52d159f262b2c6ddb724a61840befc36eb30c88877a4030b65cbe86298449c9"

struct fixture {
    char root[64], cache[128], file[128];
};

static int setup(struct fixture *f)
{
    snprintf(f->root, sizeof(f->root), "/tmp/sc-hashcache-test-XXXXXX");
    if (!mkdtemp(f->root))
        return -1;
    snprintf(f->cache, sizeof(f->cache), "%s/home/.cache/streamcard", f->root);
    snprintf(f->file, sizeof(f->file), "%s/libblas.so", f->root);
    return 0;
}

static void teardown(struct fixture *f)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", f->root);
}

/* The hash of path through the cache in dir; *hit says whether it was cached. */
static int hash_path(const char *dir, const char *path, char hex[SC_HASH_HEX_LEN + 1], bool *hit)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = sc_hashcache_fd(dir, fd, path, hex, hit);
    close(fd);
    return rc;
}

/* The cache file's text (empty when there is none). */
static void read_cache(const struct fixture *f, char *buf, size_t len)
{
    char path[256], *text = NULL;

    snprintf(path, sizeof(path), "%s/" SC_HASHCACHE_FILE, f->cache);
    buf[0] = '\0';
    if (sc_file_read_at(AT_FDCWD, path, 0, 1 << 20, &text, NULL) == 0)
        snprintf(buf, len, "%s", text);
    free(text);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Wait past the coarse clock's tick, so a rewrite gets a new ctime. */
static void next_tick(void)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void test_default_dir(void)
{
    char buf[256];

    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/u", 1);
    SC_CHECK_INT_EQ(sc_hashcache_default_dir(buf, sizeof(buf)), 0);
    SC_CHECK_STR_EQ(buf, "/x/cache/streamcard");
    setenv("XDG_CACHE_HOME", "relative", 1); /* the XDG spec: relative paths are ignored */
    SC_CHECK_INT_EQ(sc_hashcache_default_dir(buf, sizeof(buf)), 0);
    SC_CHECK_STR_EQ(buf, "/home/u/.cache/streamcard");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    SC_CHECK_INT_EQ(sc_hashcache_default_dir(buf, sizeof(buf)), -ENOENT);
    setenv("HOME", "/home/u", 1);
    SC_CHECK_INT_EQ(sc_hashcache_default_dir(buf, 8), -ENAMETOOLONG);
}

/* Miss, then hit with the same hash; without a cache directory nothing is remembered. */
static void test_hit_after_miss(void)
{
    struct fixture f = {0};
    char hex[SC_HASH_HEX_LEN + 1], text[4096];
    bool hit = true;

    SC_CHECK(setup(&f) == 0);
    SC_CHECK_INT_EQ(sc_test_write_file(f.file, "abc"), 0);
    SC_CHECK_INT_EQ(hash_path(NULL, f.file, hex, &hit), 0);
    SC_CHECK(!hit);
    SC_CHECK_STR_EQ(hex, ABC_SHA);
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0); /* creates the directories */
    SC_CHECK(!hit);
    SC_CHECK_STR_EQ(hex, ABC_SHA);
    read_cache(&f, text, sizeof(text));
    SC_CHECK_STR_CONTAINS(text, "v1 " ABC_SHA " ");
    SC_CHECK_STR_CONTAINS(text, f.file);
    SC_CHECK_INT_EQ(count_lines(text), 1);
    memset(hex, 0, sizeof(hex));
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
    SC_CHECK(hit);
    SC_CHECK_STR_EQ(hex, ABC_SHA);
    struct stat st;
    SC_CHECK_INT_EQ(stat(f.cache, &st), 0);
    SC_CHECK_INT_EQ(st.st_mode & 0777, 0700);
    teardown(&f);
}

/* Same size, same inode, the old mtime put back: the ctime still tells, and the file is
 * hashed again; the cache then holds one line for the path, the new one. */
static void test_changed_file_is_hashed_again(void)
{
    struct fixture f = {0};
    char hex[SC_HASH_HEX_LEN + 1], text[4096];
    struct stat before;
    bool hit = true;

    SC_CHECK(setup(&f) == 0);
    SC_CHECK_INT_EQ(sc_test_write_file(f.file, "abc"), 0);
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
    SC_CHECK_INT_EQ(stat(f.file, &before), 0);
    next_tick();
    SC_CHECK_INT_EQ(sc_test_write_file(f.file, "abd"), 0);
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    SC_CHECK_INT_EQ(utimensat(AT_FDCWD, f.file, times, 0), 0);
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
    SC_CHECK(!hit);
    SC_CHECK_STR_EQ(hex, ABD_SHA);
    read_cache(&f, text, sizeof(text));
    SC_CHECK_INT_EQ(count_lines(text), 1);
    SC_CHECK_STR_CONTAINS(text, ABD_SHA);
    /* A new file renamed over the old path (a package update): a new inode. */
    char other[160];
    snprintf(other, sizeof(other), "%s.new", f.file);
    SC_CHECK_INT_EQ(sc_test_write_file(other, "abc"), 0);
    SC_CHECK_INT_EQ(rename(other, f.file), 0);
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
    SC_CHECK(!hit);
    SC_CHECK_STR_EQ(hex, ABC_SHA);
    teardown(&f);
}

/* Whatever is wrong with the cache, the hash is computed from the file. */
static void test_bad_caches_are_ignored(void)
{
    static const struct {
        const char *what;
        int mode;     /* the cache file's mode */
        int dir_mode; /* its directory's */
        int symlink;  /* the cache file is a symlink to a good one */
    } cases[] = {
        {"group-writable cache", 0660, 0700, 0},
        {"world-writable cache", 0606, 0700, 0},
        {"world-writable directory", 0600, 0777, 0},
        {"symlinked cache", 0600, 0700, 1},
    };
    struct fixture f = {0};
    char hex[SC_HASH_HEX_LEN + 1], path[256], good[256], text[4096];
    bool hit;

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        SC_CHECK(setup(&f) == 0);
        SC_CHECK_INT_EQ(sc_test_write_file(f.file, "abc"), 0);
        SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0); /* a good cache entry */
        snprintf(path, sizeof(path), "%s/" SC_HASHCACHE_FILE, f.cache);
        if (cases[c].symlink) {
            snprintf(good, sizeof(good), "%s/good", f.root);
            SC_CHECK_INT_EQ(rename(path, good), 0);
            SC_CHECK_INT_EQ(symlink(good, path), 0);
        } else {
            SC_CHECK_INT_EQ(chmod(path, (mode_t)cases[c].mode), 0);
        }
        SC_CHECK_INT_EQ(chmod(f.cache, (mode_t)cases[c].dir_mode), 0);
        hit = true;
        SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
        SC_CHECK_MSG(!hit, "%s: believed", cases[c].what);
        SC_CHECK_STR_EQ(hex, ABC_SHA);
        teardown(&f);
    }

    /* Corrupt lines: a forged hash of bad hex for this very file, truncated lines, junk. */
    SC_CHECK(setup(&f) == 0);
    SC_CHECK_INT_EQ(sc_test_write_file(f.file, "abc"), 0);
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
    read_cache(&f, text, sizeof(text));
    char *key = strchr(text + 3, ' ');
    SC_CHECK(key != NULL);
    char corrupt[8192];
    snprintf(corrupt, sizeof(corrupt),
             "v1 zz%.62s%s"
             "v1 0123\n"
             "\n\n garbage with spaces in it a b c d e f g\n"
             "v2 %.64s%s",
             ABD_SHA, key, ABD_SHA, key);
    snprintf(path, sizeof(path), "%s/" SC_HASHCACHE_FILE, f.cache);
    SC_CHECK_INT_EQ(sc_test_write_file(path, corrupt), 0);
    hit = true;
    SC_CHECK_INT_EQ(hash_path(f.cache, f.file, hex, &hit), 0);
    SC_CHECK(!hit);
    SC_CHECK_STR_EQ(hex, ABC_SHA);
    read_cache(&f, text, sizeof(text));
    SC_CHECK_INT_EQ(count_lines(text), 1); /* rewritten: the junk is gone */
    SC_CHECK_STR_CONTAINS(text, "v1 " ABC_SHA);
    teardown(&f);
}

/* At most SC_HASHCACHE_MAX_ENTRIES lines, the newest kept. */
static void test_bounded(void)
{
    struct fixture f = {0};
    char hex[SC_HASH_HEX_LEN + 1], path[160], text[65536];
    bool hit;

    SC_CHECK(setup(&f) == 0);
    for (int i = 0; i < SC_HASHCACHE_MAX_ENTRIES + 6; i++) {
        snprintf(path, sizeof(path), "%s/lib%d.so", f.root, i);
        SC_CHECK_INT_EQ(sc_test_write_file(path, "abc"), 0);
        SC_CHECK_INT_EQ(hash_path(f.cache, path, hex, &hit), 0);
    }
    read_cache(&f, text, sizeof(text));
    SC_CHECK_INT_EQ(count_lines(text), SC_HASHCACHE_MAX_ENTRIES);
    SC_CHECK(strstr(text, "/lib5.so\n") == NULL);
    SC_CHECK_STR_CONTAINS(text, "/lib6.so\n");
    SC_CHECK_INT_EQ(hash_path(f.cache, path, hex, &hit), 0);
    SC_CHECK(hit);
    teardown(&f);
}

int main(void)
{
    SC_TEST_RUN(test_default_dir);
    SC_TEST_RUN(test_hit_after_miss);
    SC_TEST_RUN(test_changed_file_is_hashed_again);
    SC_TEST_RUN(test_bad_caches_are_ignored);
    SC_TEST_RUN(test_bounded);
    return SC_TEST_RESULT();
}
