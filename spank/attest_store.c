/* attest_store.c: root's signed statements on the node, kept bounded (see attest_store.h). */
#include "attest_store.h"
#include "sc_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SC__NOTE_MAX 512

int sc_attest_store_open(const sc_statedir *d)
{
    struct stat st;

    if (fstat(d->fd, &st) == 0 && (st.st_mode & 0011) != 0011 &&
        fchmod(d->fd, (st.st_mode & 07777) | 0011) < 0)
        return -errno;
    if (mkdirat(d->fd, "attest", 0755) < 0 && errno != EEXIST)
        return -errno;
    int fd = openat(d->fd, "attest", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 0022)) {
        close(fd);
        return -EPERM; /* not ours, or writable by others: never written into */
    }
    return fd;
}

void sc_attest_store_restore_name(char *buf, size_t len, uint32_t job_id, const char *node,
                                  const char *run)
{
    snprintf(buf, len, "job_%u_%s_%s.restore.dsse.json", (unsigned)job_id, node, run);
}

static void sc__note_name(char *buf, size_t len, uint32_t job_id, const char *node)
{
    snprintf(buf, len, "job_%u_%s.apply", (unsigned)job_id, node);
}

int sc_attest_store_note(int dirfd, uint32_t job_id, const char *node, const char *run,
                         const char *sha256)
{
    char name[256], tmp[272], text[SC__NOTE_MAX];

    sc__note_name(name, sizeof(name), job_id, node);
    snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
    int n = snprintf(text, sizeof(text), "run=%s\napply_sha256=%s\n", run, sha256);
    if (n < 0 || (size_t)n >= sizeof(text))
        return -ENAMETOOLONG;
    return sc_file_replace_at(dirfd, name, tmp, text, (size_t)n, 0644);
}

/* A run as the plugin writes it: digits and '-', or "unknown". */
static bool sc__run_ok(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < SC_ATTEST_RUN_MAX && strspn(s, "0123456789-") == n;
}

void sc_attest_store_take_note(int dirfd, uint32_t job_id, const char *node, char *run,
                               size_t runlen, char sha256[65])
{
    char name[256], *text = NULL;
    char r[SC_ATTEST_RUN_MAX] = "", h[65] = "";

    snprintf(run, runlen, "unknown");
    snprintf(sha256, 65, "unknown");
    sc__note_name(name, sizeof(name), job_id, node);
    if (sc_file_read_at(dirfd, name, O_NOFOLLOW | O_NONBLOCK, SC__NOTE_MAX, &text, NULL) < 0)
        return;
    if (sscanf(text, "run=%47[0-9-]\napply_sha256=%64[0-9a-f]\n", r, h) == 2 && sc__run_ok(r) &&
        strlen(h) == 64) {
        snprintf(run, runlen, "%s", r);
        snprintf(sha256, 65, "%s", h);
    }
    free(text);
    unlinkat(dirfd, name, 0);
}

/* One statement file seen by a prune. */
typedef struct sc__entry {
    char name[256];
    time_t mtime;
} sc__entry;

static bool sc__ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* Newest first; the name decides a tie, so the order is the same on every call. */
static int sc__newest_first(const void *a, const void *b)
{
    const sc__entry *x = a, *y = b;
    if (x->mtime != y->mtime)
        return x->mtime > y->mtime ? -1 : 1;
    return strcmp(y->name, x->name);
}

int sc_attest_store_prune(int dirfd, size_t keep, long max_age, time_t now)
{
    /* A descriptor of its own: a dup would share (and move) the caller's position. */
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    sc__entry *v = calloc(SC_ATTEST_STORE_SCAN, sizeof(*v));
    struct dirent *e;
    size_t n = 0, seen = 0;
    int removed = 0, rc = 0;

    if (!dir || !v) {
        rc = dir ? -ENOMEM : -errno;
        if (!dir && fd >= 0)
            close(fd);
        goto out;
    }
    while (seen < SC_ATTEST_STORE_SCAN && (e = readdir(dir)) != NULL) {
        struct stat st;
        bool statement =
            !strncmp(e->d_name, "job_", 4) &&
            (sc__ends(e->d_name, ".restore.dsse.json") || sc__ends(e->d_name, ".apply"));
        bool tmp = !strncmp(e->d_name, ".job_", 5) && sc__ends(e->d_name, ".tmp");
        seen++;
        if ((!statement && !tmp) || strlen(e->d_name) >= sizeof(v[0].name) ||
            fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            continue;
        /* Root writes no link there: one is removed as it is (never followed). */
        bool old = S_ISLNK(st.st_mode) || (tmp ? st.st_mtime < now - SC_ATTEST_STORE_TMP_AGE
                                               : st.st_mtime < now - max_age);
        if (old) {
            removed += unlinkat(dirfd, e->d_name, 0) == 0;
        } else if (statement) {
            snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
            v[n++].mtime = st.st_mtime;
        }
    }
    qsort(v, n, sizeof(*v), sc__newest_first);
    for (size_t i = keep; i < n; i++)
        removed += unlinkat(dirfd, v[i].name, 0) == 0;
out:
    if (dir)
        closedir(dir);
    free(v);
    return rc < 0 ? rc : removed;
}
