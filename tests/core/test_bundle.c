/* test_bundle.c: bundle files, SHA256SUMS, tampering, symlinks; key=value text. */
#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_codec.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_test.h"
#include "tmpdir_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int any_line_contains(const sc_diag *d, const char *needle)
{
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->lines[i], needle))
            return 1;
    return 0;
}

static void test_seal_and_tamper(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test"), path[1024], cmd[1200];
    sc_bundle b;
    sc_diag d;
    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    SC_CHECK(b.path[0] == '/');
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "run.conf", "verdict=ok\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "prefetch/state/state.env", "STATE_VALID=1\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "stream.log", "Solution Validates\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_seal(&b), 0);
    /* The standard tool accepts our SHA256SUMS. */
    snprintf(cmd, sizeof(cmd), "cd '%s' && sha256sum --quiet -c SHA256SUMS", b.path);
    SC_CHECK_INT_EQ(system(cmd), 0);
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_bundle_check_sums(&b, &d), 0);
    SC_CHECK_INT_EQ(d.count, 0);

    /* Edited, missing and added files are each named. */
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "run.conf", "verdict=ok\nextra=1\n"), 0);
    snprintf(path, sizeof(path), "%s/stream.log", b.path);
    SC_CHECK_INT_EQ(unlink(path), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "platform/new.txt", "x\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_check_sums(&b, &d), -EINVAL);
    SC_CHECK(any_line_contains(&d, "run.conf: edited"));
    SC_CHECK(any_line_contains(&d, "stream.log: missing"));
    SC_CHECK(any_line_contains(&d, "platform/new.txt: added after sealing"));
    SC_CHECK(!any_line_contains(&d, "prefetch/state/state.env"));
    sc_diag_free(&d);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

static void test_symlinks_never_followed(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test"), link[1024], target[1024];
    sc_bundle b;
    sc_diag d;
    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    snprintf(target, sizeof(target), "%s/outside.txt", parent);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "x", "x"), 0);
    FILE *f = fopen(target, "w");
    SC_CHECK(f != NULL);
    fputs("precious\n", f);
    fclose(f);
    /* A symlink planted as a bundle file, and one as a bundle subdirectory. */
    snprintf(link, sizeof(link), "%s/run.conf", b.path);
    SC_CHECK_INT_EQ(symlink(target, link), 0);
    snprintf(link, sizeof(link), "%s/prefetch", b.path);
    SC_CHECK_INT_EQ(symlink(parent, link), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "run.conf", "overwritten\n"), -ELOOP);
    int rc = sc_bundle_write_str(&b, "prefetch/outside.txt", "overwritten\n");
    SC_CHECK_MSG(rc == -ENOTDIR || rc == -ELOOP, "write through a symlinked dir: %d", rc);
    char buf[32] = "";
    f = fopen(target, "r");
    SC_CHECK(f != NULL);
    SC_CHECK(fgets(buf, sizeof(buf), f) != NULL);
    fclose(f);
    SC_CHECK_STR_EQ(buf, "precious\n");
    /* Listing reports the symlinks instead of hashing what they point to. */
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_bundle_seal(&b), 0);
    char **paths = NULL;
    size_t n = 0;
    SC_CHECK_INT_EQ(sc_bundle_list(&b, &paths, &n, &d), 0);
    SC_CHECK_INT_EQ(n, 1);
    SC_CHECK_STR_EQ(paths[0], "x");
    SC_CHECK(any_line_contains(&d, "run.conf: not a regular file (symlink)"));
    sc_bundle_list_free(paths, n);
    /* ".." never escapes the bundle. */
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "../escape", "x"), -EINVAL);
    sc_diag_free(&d);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

/* The bounded reader: a fifo refused at once (never waited on), a symlink and a path through
   a symlinked directory refused, a sparse file over its cap refused before a byte is read,
   a run's sub-directory read like the top, and the caps by kind of file. */
static void test_bounded_reader(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test"), path[1024], *text = NULL,
         hex[SC_HASH_HEX_LEN + 1];
    sc_bundle b;
    size_t size = 0;

    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    snprintf(path, sizeof(path), "%s/stream.log", b.path);
    SC_CHECK_INT_EQ(mkfifo(path, 0644), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "stream.log", &text, NULL), -EINVAL);
    SC_CHECK_INT_EQ(sc_bundle_hash(&b, "stream.log", hex), -EINVAL);
    SC_CHECK_INT_EQ(sc_hash_file_at(b.dirfd, "stream.log", hex), -EINVAL);
    SC_CHECK_INT_EQ(unlink(path), 0);
    /* 2 GiB of holes: refused by its size, not read. */
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    SC_CHECK(fd >= 0 && ftruncate(fd, 2LL << 30) == 0);
    close(fd);
    SC_CHECK_INT_EQ(sc_bundle_open_read(&b, "stream.log", &size), -EFBIG);
    SC_CHECK_INT_EQ(sc_bundle_hash(&b, "stream.log", hex), -EFBIG);
    char why[128];
    SC_CHECK_STR_EQ(sc_bundle_read_error("stream.log", -EFBIG, why, sizeof(why)),
                    "larger than its cap of 64 MiB (valid: a file written by streamcard)");
    /* A file and a directory that are symlinks. */
    snprintf(path, sizeof(path), "%s/run.conf", b.path);
    SC_CHECK_INT_EQ(symlink("/etc/passwd", path), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "run.conf", &text, NULL), -ELOOP);
    snprintf(path, sizeof(path), "%s/run-2", b.path);
    SC_CHECK_INT_EQ(symlink("/etc", path), 0);
    int rc = sc_bundle_read(&b, "run-2/passwd", &text, NULL);
    SC_CHECK_MSG(rc == -ENOTDIR || rc == -ELOOP, "read through a symlinked dir: %d", rc);
    /* A run's own sub-directory. */
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "run-1/stream.log", "Solution Validates\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "run-1/stream.log", &text, &size), 0);
    SC_CHECK_STR_EQ(text, "Solution Validates\n");
    free(text);
    SC_CHECK_INT_EQ(sc_bundle_cap("card.yaml"), SC_CARD_MAX_BYTES);
    SC_CHECK_INT_EQ(sc_bundle_cap("run-1/card.yaml"), SC_CARD_MAX_BYTES);
    SC_CHECK_INT_EQ(sc_bundle_cap("prefetch/control.log"), SC_BUNDLE_CAP_LOG);
    SC_CHECK_INT_EQ(sc_bundle_cap("results.json"), SC_BUNDLE_CAP_JSON);
    SC_CHECK_INT_EQ(sc_bundle_cap("prefetch/state/state.env"), SC_BUNDLE_CAP_KV);
    SC_CHECK_INT_EQ(sc_bundle_cap("numa_maps_at_ready.txt"), SC_BUNDLE_CAP_OTHER);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

/* A forged SHA256SUMS of many bad lines gives the first SC_DIAG_MAX_LINES problems and a
   count of the rest; a path listed twice is named. */
static void test_sums_problems_bounded(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test");
    sc_bundle b;
    sc_diag d;
    FILE *mem;
    char *sums = NULL, *forged = NULL;
    size_t len = 0, flen = 0;

    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "x", "x"), 0);
    SC_CHECK_INT_EQ(sc_bundle_seal(&b), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, SC_BUNDLE_SUMS, &sums, &len), 0);
    mem = open_memstream(&forged, &flen);
    SC_CHECK(mem != NULL);
    fprintf(mem, "%s%s", sums, sums); /* x twice */
    for (int i = 0; i < 5000; i++)
        fprintf(mem, "not a line %d\n", i);
    fclose(mem);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, SC_BUNDLE_SUMS, forged), 0);
    free(forged);
    free(sums);
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_bundle_check_sums(&b, &d), -EINVAL);
    SC_CHECK_INT_EQ(d.count, SC_DIAG_MAX_LINES);
    SC_CHECK_INT_EQ(d.more, 5001 - SC_DIAG_MAX_LINES);
    SC_CHECK(any_line_contains(&d, "SHA256SUMS:2: x listed twice"));
    sc_diag_free(&d);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

/* An edited file beside a nest of directories too deep to list: the edit is not checked,
   so the nest itself must be a problem (it was none: the bundle passed as intact). */
static void test_unlistable_is_a_problem(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test"), path[1024];
    sc_bundle b;
    sc_diag d;
    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "stream.log", "Solution Validates\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_seal(&b), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&b, "stream.log", "edited\n"), 0);
    size_t n = (size_t)snprintf(path, sizeof(path), "%s", b.path);
    for (int i = 0; i < 12; i++) {
        n += (size_t)snprintf(path + n, sizeof(path) - n, "/d");
        SC_CHECK_INT_EQ(mkdir(path, 0700), 0);
    }
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_bundle_check_sums(&b, &d), -EINVAL);
    SC_CHECK_MSG(any_line_contains(&d, "the bundle's directories nest too deep to be checked"),
                 "%zu problems, none about the nest", d.count);
    sc_diag_free(&d);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

static void test_unique_names(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test");
    sc_bundle a, b;
    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&a, parent, "run", 1700000000), 0);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    SC_CHECK(strcmp(a.path, b.path) != 0);
    SC_CHECK_STR_CONTAINS(b.path, "_2");
    sc_bundle_close(&a);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

static void test_kv(void)
{
    sc_kv kv;
    char buf[64];
    long v = 0;
    sc_kv_init(&kv);
    sc_kv_addf(&kv, "verdict", "failed");
    /* A value cannot forge a line of its own. */
    sc_kv_addf(&kv, "note", "x\nverdict=ok");
    sc_kv_addf(&kv, "exit_code", "%d", 3);
    SC_CHECK(sc_kv_get(kv.text, "verdict", buf, sizeof(buf)));
    SC_CHECK_STR_EQ(buf, "failed");
    SC_CHECK(sc_kv_get(kv.text, "note", buf, sizeof(buf)));
    SC_CHECK_STR_EQ(buf, "x?verdict=ok");
    SC_CHECK(sc_kv_get_long(kv.text, "exit_code", &v));
    SC_CHECK_INT_EQ(v, 3);
    SC_CHECK(!sc_kv_get(kv.text, "exit", buf, sizeof(buf)));
    /* The last line wins, as when a shell sources the file. */
    sc_kv_addf(&kv, "verdict", "ok");
    SC_CHECK(sc_kv_get(kv.text, "verdict", buf, sizeof(buf)));
    SC_CHECK_STR_EQ(buf, "ok");
    sc_kv_free(&kv);
}

static void test_hash(void)
{
    char hex[SC_HASH_HEX_LEN + 1];
    SC_CHECK_INT_EQ(sc_hash_buf("abc", 3, hex), 0);
    SC_CHECK_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_base64(void)
{
    static const char *const texts[] = {"", "a", "ab", "abc", "version: 1\nexperiment: {}\n"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char *enc = sc_base64_encode(texts[i], strlen(texts[i])), *dec = NULL;
        size_t len = 0;
        SC_CHECK(enc != NULL);
        SC_CHECK_INT_EQ(sc_base64_decode(enc, &dec, &len), 0);
        SC_CHECK_INT_EQ(len, strlen(texts[i]));
        SC_CHECK_STR_EQ(dec, texts[i]);
        free(enc);
        free(dec);
    }
    char *dec = NULL;
    size_t len = 0;
    SC_CHECK_INT_EQ(sc_base64_decode("abc", &dec, &len), -EINVAL);
    SC_CHECK_INT_EQ(sc_base64_decode("ab!=", &dec, &len), -EINVAL);
}

/* One pass (sc_bundle_remember()): the bytes held to SHA256SUMS are the bytes read, a small
   file is given again without opening it, a run's log is not kept, and the listing's
   problems are said as without the pass. */
static void test_one_pass(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test"), path[1024], *text = NULL;
    size_t len = 0;
    sc_bundle w, b;
    sc_diag d;
    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&w, parent, "run", 1700000000), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&w, "run.conf", "verdict=ok\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&w, "run-2/stream.log", "Solution Validates\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_write_str(&w, "run-2/run.conf", "verdict=ok\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_seal(&w), 0);
    snprintf(path, sizeof(path), "%s/x", w.path);
    SC_CHECK_INT_EQ(symlink("/etc/passwd", path), 0);

    SC_CHECK_INT_EQ(sc_bundle_open(&b, w.path), 0);
    SC_CHECK_INT_EQ(sc_bundle_remember(&b), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "run.conf", &text, &len), 0);
    SC_CHECK_STR_EQ(text, "verdict=ok\n");
    free(text);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "run-2/stream.log", &text, NULL), 0);
    free(text);
    /* Edited after it was read: the pass checks the bytes it read (they are the sealed
       ones), and gives them again without opening the file. */
    SC_CHECK_INT_EQ(sc_bundle_write_str(&w, "run.conf", "verdict=failed\n"), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "run.conf", &text, &len), 0);
    SC_CHECK_STR_EQ(text, "verdict=ok\n");
    SC_CHECK_INT_EQ(len, 11);
    free(text);
    char hex[65];
    SC_CHECK(sc_bundle_hash_seen(&b, "run-2/stream.log", hex));
    SC_CHECK(!sc_bundle_hash_seen(&b, "run-2/run.conf", hex)); /* not read: hashed by the check */
    /* A run's log after the first is not kept: read again, it is opened again. */
    snprintf(path, sizeof(path), "%s/run-2/stream.log", w.path);
    SC_CHECK_INT_EQ(unlink(path), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "run-2/stream.log", &text, NULL), -ENOENT);
    /* A file nobody read is hashed by the check itself: run-2/run.conf edited is found. */
    SC_CHECK_INT_EQ(sc_bundle_write_str(&w, "run-2/run.conf", "verdict=failed\n"), 0);
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_bundle_check_sums(&b, &d), -EINVAL);
    SC_CHECK(any_line_contains(&d, "run-2/run.conf: edited"));
    SC_CHECK(!any_line_contains(&d, "run-2/stream.log")); /* read whole, as sealed */
    SC_CHECK(any_line_contains(&d, "x: not a regular file (symlink)"));
    SC_CHECK_INT_EQ(d.count, 2); /* run.conf as read is the sealed one */
    size_t n = d.count;
    sc_diag_free(&d);
    sc_bundle_close(&b);

    /* Without the pass the same bundle shows the files as they are now. */
    SC_CHECK_INT_EQ(sc_bundle_open(&b, w.path), 0);
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_bundle_check_sums(&b, &d), -EINVAL);
    SC_CHECK(any_line_contains(&d, "run-2/stream.log: missing"));
    SC_CHECK(d.count == n + 2); /* run.conf edited, run-2/stream.log missing */
    sc_diag_free(&d);
    sc_bundle_close(&b);
    sc_bundle_close(&w);
    sc_test_rmtree(parent);
}

/* The names in dir, sorted and joined by spaces, into buf. */
static const char *names_in(const char *dir, char *buf, size_t len)
{
    char cmd[1200];
    FILE *p;

    snprintf(cmd, sizeof(cmd), "cd '%s' && find . -type f | sort | tr '\\n' ' '", dir);
    buf[0] = '\0';
    if ((p = popen(cmd, "r"))) {
        if (!fgets(buf, (int)len, p))
            buf[0] = '\0';
        pclose(p);
    }
    return buf;
}

/* A file made ahead gets its name and contents when written; one never written leaves
   nothing; a name already there is written in place; no file made ahead (-1) writes as
   sc_bundle_write(). */
static void test_write_ahead(void)
{
    char *parent = sc_test_tmpdir("sc-bundle-test"), names[1024], *text = NULL;
    sc_bundle b;
    size_t len = 0;

    SC_CHECK(parent != NULL);
    SC_CHECK_INT_EQ(sc_bundle_create(&b, parent, "run", 1700000000), 0);
    int fd = sc_bundle_ahead(&b, "run-1/threads_at_ready.txt");
    if (fd == -EOPNOTSUPP) { /* the file system has no unnamed files: the fallback only */
        fprintf(stderr, "note: no O_TMPFILE under %s: only the fallback is tested\n", parent);
    } else {
        SC_CHECK(fd >= 0);
        int unused = sc_bundle_ahead(&b, "run-1/never.txt");
        SC_CHECK(unused >= 0);
        SC_CHECK_STR_EQ(names_in(b.path, names, sizeof(names)), "");
        close(unused);
        SC_CHECK_INT_EQ(sc_bundle_write_ahead(&b, fd, "run-1/threads_at_ready.txt", "tid 1\n", 6),
                        0);
        SC_CHECK_STR_EQ(names_in(b.path, names, sizeof(names)), "./run-1/threads_at_ready.txt ");
        SC_CHECK_INT_EQ(sc_bundle_read(&b, "run-1/threads_at_ready.txt", &text, &len), 0);
        SC_CHECK_STR_EQ(text, "tid 1\n");
        free(text);
        text = NULL;
        struct stat st;
        char path[1200];
        snprintf(path, sizeof(path), "%s/run-1/threads_at_ready.txt", b.path);
        SC_CHECK_INT_EQ(stat(path, &st), 0);
        mode_t mask = umask(0); /* read and put back: the mode is what O_CREAT would give */
        umask(mask);
        SC_CHECK_INT_EQ(st.st_mode & 07777, 0644 & ~mask);
        /* Made ahead for a name that is there already: written in place. */
        fd = sc_bundle_ahead(&b, "run-1/threads_at_ready.txt");
        SC_CHECK(fd >= 0);
        SC_CHECK_INT_EQ(sc_bundle_write_ahead(&b, fd, "run-1/threads_at_ready.txt", "2\n", 2), 0);
        SC_CHECK_INT_EQ(sc_bundle_read(&b, "run-1/threads_at_ready.txt", &text, &len), 0);
        SC_CHECK_STR_EQ(text, "2\n");
        free(text);
        text = NULL;
    }
    SC_CHECK_INT_EQ(sc_bundle_write_ahead(&b, -1, "main_loop.ready", "x\n", 2), 0);
    SC_CHECK_INT_EQ(sc_bundle_read(&b, "main_loop.ready", &text, &len), 0);
    SC_CHECK_STR_EQ(text, "x\n");
    free(text);
    SC_CHECK(strstr(names_in(b.path, names, sizeof(names)), "never") == NULL);
    sc_bundle_close(&b);
    sc_test_rmtree(parent);
}

int main(void)
{
    SC_TEST_RUN(test_seal_and_tamper);
    SC_TEST_RUN(test_symlinks_never_followed);
    SC_TEST_RUN(test_write_ahead);
    SC_TEST_RUN(test_bounded_reader);
    SC_TEST_RUN(test_sums_problems_bounded);
    SC_TEST_RUN(test_unlistable_is_a_problem);
    SC_TEST_RUN(test_unique_names);
    SC_TEST_RUN(test_kv);
    SC_TEST_RUN(test_hash);
    SC_TEST_RUN(test_base64);
    SC_TEST_RUN(test_one_pass);
    return SC_TEST_RESULT();
}
