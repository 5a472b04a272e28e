/*
 * test_answercache.c: a program's answer remembered by key and by the identity of the files
 * it depends on: given back exactly, for that key only; never again once a file is
 * touched, rewritten or replaced, or gone; a cache that is corrupt, not ours or writable by
 * others is ignored, never believed; at most SC_ANSWERCACHE_MAX_ENTRIES entries, the newest.
 */
#include "sc_answercache.h"
#include "sc_file.h"
#include "sc_test.h"
#include "tmpdir_util.h"
#include "write_util.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ANSWER                                                                                     \
    "compiler=GNU\nflags=-O2 -fopenmp\nopenmp_runtime=/x/libgomp.so.1\n\nblas_config=OpenBLAS "    \
    "0.3.21 Zen\n"

struct fixture {
    char *root, cache[PATH_MAX], bin[PATH_MAX], lib[PATH_MAX];
};

static int setup(struct fixture *f)
{
    if (!(f->root = sc_test_tmpdir("sc-answercache-test")))
        return -1;
    snprintf(f->cache, sizeof(f->cache), "%s/home/.cache/streamcard", f->root);
    snprintf(f->bin, sizeof(f->bin), "%s/streamcard-ipsearch", f->root);
    snprintf(f->lib, sizeof(f->lib), "%s/libopenblas.so", f->root);
    return sc_test_write_file(f->bin, "binary") == 0 && sc_test_write_file(f->lib, "blas") == 0
               ? 0
               : -1;
}

static void teardown(struct fixture *f)
{
    sc_test_rmtree(f->root);
    f->root = NULL;
}

/* Remembers ANSWER for key, depending on the binary and the library. */
static int put(const struct fixture *f, const char *key)
{
    const char *files[] = {f->bin, f->lib};
    return sc_answercache_put(f->cache, key, ANSWER, files, 2);
}

/* Whether key's answer is given back: 1 exactly ANSWER, 0 none (-ENOENT), -1 anything else. */
static int hit(const struct fixture *f, const char *key)
{
    char *answer = NULL;
    int rc = sc_answercache_get(f->cache, key, &answer);
    int got = rc == 0 && answer && !strcmp(answer, ANSWER) ? 1 : rc == -ENOENT && !answer ? 0 : -1;

    if (got < 0)
        fprintf(stderr, "get %s: %d, answer \"%s\"\n", key, rc, answer ? answer : "(null)");
    free(answer);
    return got;
}

static void cache_path(const struct fixture *f, char *buf, size_t len)
{
    snprintf(buf, len, "%s/" SC_ANSWERCACHE_FILE, f->cache);
}

/* Wait past the coarse clock's tick, so a rewrite gets a new ctime. */
static void next_tick(void)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* Nothing before the first answer; the answer back exactly for its key, none for another. */
static void test_round_trip(void)
{
    struct fixture f = {0};
    char *answer = (char *)"unset";

    SC_CHECK(setup(&f) == 0);
    SC_CHECK_INT_EQ(sc_answercache_get(f.cache, "key A", &answer), -ENOENT);
    SC_CHECK(answer == NULL);
    SC_CHECK_INT_EQ(put(&f, "key A"), 0); /* creates the directories */
    SC_CHECK_INT_EQ(hit(&f, "key A"), 1);
    SC_CHECK_INT_EQ(hit(&f, "key B"), 0);
    SC_CHECK_INT_EQ(hit(&f, "key A\n"), 0);
    SC_CHECK_INT_EQ(sc_answercache_get(NULL, "key A", &answer), -ENOENT);
    struct stat st;
    SC_CHECK_INT_EQ(stat(f.cache, &st), 0);
    SC_CHECK_INT_EQ(st.st_mode & 0777, 0700);
    teardown(&f);
}

/* Any change to a file the answer depends on makes it unknown: the library rewritten in
   place with its old mtime put back (the ctime tells), replaced by rename (a new inode),
   touched, removed; the binary touched. Asked again, the new answer is remembered. */
static void test_changed_files(void)
{
    static const char *const changes[] = {"rewrite", "replace", "touch", "remove", "binary"};
    struct fixture f = {0};

    for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
        SC_CHECK(setup(&f) == 0);
        SC_CHECK_INT_EQ(put(&f, "key"), 0);
        SC_CHECK_INT_EQ(hit(&f, "key"), 1);
        struct stat before;
        SC_CHECK_INT_EQ(stat(f.lib, &before), 0);
        next_tick();
        if (!strcmp(changes[c], "rewrite")) {
            SC_CHECK_INT_EQ(sc_test_write_file(f.lib, "BLAS"), 0);
            struct timespec times[2] = {before.st_atim, before.st_mtim};
            SC_CHECK_INT_EQ(utimensat(AT_FDCWD, f.lib, times, 0), 0);
        } else if (!strcmp(changes[c], "replace")) {
            char other[PATH_MAX + 8];
            snprintf(other, sizeof(other), "%s.new", f.lib);
            SC_CHECK_INT_EQ(sc_test_write_file(other, "blas"), 0);
            SC_CHECK_INT_EQ(rename(other, f.lib), 0);
        } else if (!strcmp(changes[c], "touch")) {
            SC_CHECK_INT_EQ(utimensat(AT_FDCWD, f.lib, NULL, 0), 0);
        } else if (!strcmp(changes[c], "remove")) {
            SC_CHECK_INT_EQ(unlink(f.lib), 0);
        } else {
            SC_CHECK_INT_EQ(utimensat(AT_FDCWD, f.bin, NULL, 0), 0);
        }
        SC_CHECK_MSG(hit(&f, "key") == 0, "%s: the old answer was given back", changes[c]);
        if (strcmp(changes[c], "remove") != 0) {
            SC_CHECK_INT_EQ(put(&f, "key"), 0);
            SC_CHECK_MSG(hit(&f, "key") == 1, "%s: the new answer was not remembered", changes[c]);
        } else {
            SC_CHECK_INT_EQ(put(&f, "key"), -ENOENT); /* a file gone: nothing remembered */
        }
        teardown(&f);
    }
}

/* Whatever is wrong with the cache, nothing is given back. */
static void test_bad_caches_are_ignored(void)
{
    static const struct {
        const char *what;
        int mode, dir_mode;
    } modes[] = {
        {"group-writable cache", 0660, 0700},
        {"world-writable cache", 0606, 0700},
        {"world-writable directory", 0600, 0777},
    };
    struct fixture f = {0};
    char path[PATH_MAX + 32], *text = NULL;

    for (size_t c = 0; c < sizeof(modes) / sizeof(modes[0]); c++) {
        SC_CHECK(setup(&f) == 0);
        SC_CHECK_INT_EQ(put(&f, "key"), 0);
        cache_path(&f, path, sizeof(path));
        SC_CHECK_INT_EQ(chmod(path, (mode_t)modes[c].mode), 0);
        SC_CHECK_INT_EQ(chmod(f.cache, (mode_t)modes[c].dir_mode), 0);
        SC_CHECK_MSG(hit(&f, "key") == 0, "%s: believed", modes[c].what);
        teardown(&f);
    }
    /* A symlinked cache file. */
    SC_CHECK(setup(&f) == 0);
    SC_CHECK_INT_EQ(put(&f, "key"), 0);
    cache_path(&f, path, sizeof(path));
    char good[PATH_MAX];
    snprintf(good, sizeof(good), "%s/good", f.root);
    SC_CHECK_INT_EQ(rename(path, good), 0);
    SC_CHECK_INT_EQ(symlink(good, path), 0);
    SC_CHECK_INT_EQ(hit(&f, "key"), 0);
    teardown(&f);

    /* Blocks cut short or out of order: each is skipped, never half believed; a good block
       after them still counts. */
    static const char *const cuts[] = {"no end", "answer before files", "bad hash"};
    for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
        SC_CHECK(setup(&f) == 0);
        SC_CHECK_INT_EQ(put(&f, "key"), 0);
        cache_path(&f, path, sizeof(path));
        SC_CHECK_INT_EQ(sc_file_read_at(AT_FDCWD, path, 0, 1 << 20, &text, NULL), 0);
        char *f_line = strstr(text, "\nf "), *a_line = strstr(text, "\na "), bad[8192];
        SC_CHECK(f_line && a_line);
        if (!strcmp(cuts[c], "no end"))
            text[strlen(text) - 2] = '\0'; /* the "." line */
        else if (!strcmp(cuts[c], "answer before files"))
            f_line[1] = 'a';
        else
            text[3] = text[4] = 'z';
        snprintf(bad, sizeof(bad), "%s", text);
        SC_CHECK_INT_EQ(sc_test_write_file(path, bad), 0);
        SC_CHECK_MSG(hit(&f, "key") == 0, "%s: believed", cuts[c]);
        free(text);
        text = NULL;
        teardown(&f);
    }
}

/* At most SC_ANSWERCACHE_MAX_ENTRIES entries, the newest; a key asked again replaces its
   entry. */
static void test_bounded(void)
{
    struct fixture f = {0};
    char key[64];

    SC_CHECK(setup(&f) == 0);
    for (int i = 0; i < SC_ANSWERCACHE_MAX_ENTRIES + 4; i++) {
        snprintf(key, sizeof(key), "key %d", i);
        SC_CHECK_INT_EQ(put(&f, key), 0);
        SC_CHECK_INT_EQ(put(&f, key), 0); /* once, not twice */
    }
    for (int i = 0; i < SC_ANSWERCACHE_MAX_ENTRIES + 4; i++) {
        snprintf(key, sizeof(key), "key %d", i);
        SC_CHECK_MSG(hit(&f, key) == (i >= 4), "%s: %s", key, i >= 4 ? "lost" : "kept");
    }
    /* Too many files, or an answer larger than the cache: nothing remembered. */
    const char *many[SC_ANSWERCACHE_MAX_FILES + 1];
    for (size_t i = 0; i <= SC_ANSWERCACHE_MAX_FILES; i++)
        many[i] = f.lib;
    SC_CHECK(sc_answercache_put(f.cache, "many", ANSWER, many, SC_ANSWERCACHE_MAX_FILES + 1) < 0);
    char *big = malloc(SC_ANSWERCACHE_MAX_BYTES + 1);
    SC_CHECK(big != NULL);
    memset(big, 'x', SC_ANSWERCACHE_MAX_BYTES);
    big[SC_ANSWERCACHE_MAX_BYTES] = '\0';
    SC_CHECK_INT_EQ(sc_answercache_put(f.cache, "big", big, many, 1), -EFBIG);
    free(big);
    SC_CHECK_INT_EQ(hit(&f, "key 19"), 1);
    teardown(&f);
}

int main(void)
{
    SC_TEST_RUN(test_round_trip);
    SC_TEST_RUN(test_changed_files);
    SC_TEST_RUN(test_bad_caches_are_ignored);
    SC_TEST_RUN(test_bounded);
    return SC_TEST_RESULT();
}
