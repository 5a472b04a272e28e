/* bundle.c: the evidence bundle directory (see sc_bundle.h). */
#include "sc_bundle.h"
#include "sc_bundle_memo.h"
#include "sc_dir.h"
#include "sc_card.h"
#include "sc_file.h"
#include "sc_hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p for the parent directory (as the calling user; the path is the user's). */
static int sc__mkdir_parents(const char *path)
{
    char buf[PATH_MAX];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return -ENAMETOOLONG;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(buf, 0755) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

int sc_bundle_create(sc_bundle *b, const char *parent, const char *name, time_t when)
{
    char stamp[32], dirname[NAME_MAX + 1];
    struct tm tm;
    int pfd, rc;

    b->dirfd = -1;
    b->path = NULL;
    b->memo = NULL;
    localtime_r(&when, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
    rc = sc__mkdir_parents(parent);
    if (rc < 0)
        return rc;
    pfd = open(parent, O_DIRECTORY | O_CLOEXEC | O_PATH);
    if (pfd < 0)
        return -errno;
    for (int attempt = 1;; attempt++) {
        if (attempt == 1)
            rc = snprintf(dirname, sizeof(dirname), "%s_%s", name, stamp);
        else
            rc = snprintf(dirname, sizeof(dirname), "%s_%s_%d", name, stamp, attempt);
        if (rc < 0 || rc >= (int)sizeof(dirname)) {
            rc = -ENAMETOOLONG;
            goto out_close_parent;
        }
        if (mkdirat(pfd, dirname, 0755) == 0)
            break;
        if (errno != EEXIST || attempt >= 100) {
            rc = -errno;
            goto out_close_parent;
        }
    }
    b->dirfd = openat(pfd, dirname, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (b->dirfd < 0) {
        rc = -errno;
        goto out_close_parent;
    }
    /* An absolute path: it is printed as BUNDLE= and written into run.conf. */
    char *abs_parent = realpath(parent, NULL);
    rc = asprintf(&b->path, "%s/%s", abs_parent ? abs_parent : parent, dirname);
    free(abs_parent);
    if (rc < 0) {
        b->path = NULL;
        close(b->dirfd);
        b->dirfd = -1;
        rc = -ENOMEM;
        goto out_close_parent;
    }
    rc = 0;
out_close_parent:
    close(pfd);
    return rc;
}

int sc_bundle_open(sc_bundle *b, const char *path)
{
    b->memo = NULL;
    b->dirfd = open(path, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (b->dirfd < 0) {
        b->path = NULL;
        return -errno;
    }
    b->path = strdup(path);
    if (!b->path) {
        close(b->dirfd);
        b->dirfd = -1;
        return -ENOMEM;
    }
    return 0;
}

void sc_bundle_close(sc_bundle *b)
{
    if (!b)
        return;
    if (b->dirfd >= 0)
        close(b->dirfd);
    free(b->path);
    sc__memo_free(b->memo);
    b->dirfd = -1;
    b->path = NULL;
    b->memo = NULL;
}

int sc_bundle_remember(sc_bundle *b)
{
    char **paths = NULL;
    size_t count = 0;
    sc_diag problems;

    if (b->memo)
        return 0;
    sc_diag_init(&problems);
    int rc = sc_bundle_list(b, &paths, &count, &problems);
    b->memo = sc__memo_new(rc < 0 ? NULL : paths, rc < 0 ? 0 : count, rc, &problems);
    sc_diag_free(&problems);
    return b->memo ? 0 : -ENOMEM;
}

/*
 * Walks the directories of rel below the bundle (creating them when create is set),
 * never following symlinks. Returns a directory fd for the last directory and points
 * *leaf at the file name, or -errno.
 */
static int sc__walk_dirs(const sc_bundle *b, const char *rel, int create, const char **leaf)
{
    char comp[NAME_MAX + 1];
    const char *slash = strrchr(rel, '/'), *start = rel;
    int fd =
        !create && slash && b->memo ? sc__memo_dir(b->memo, rel, (size_t)(slash - rel)) : -ENOENT;

    bool walked = fd >= 0;

    if (walked) /* a directory this pass walked, its components checked then */
        rel = slash + 1;
    else if ((fd = dup(b->dirfd)) < 0)
        return -errno;
    for (;;) {
        size_t n = strcspn(rel, "/");
        if (rel[n] == '\0')
            break;
        if (n == 0 || n > NAME_MAX || (n == 1 && rel[0] == '.') ||
            (n == 2 && rel[0] == '.' && rel[1] == '.')) {
            close(fd);
            return -EINVAL;
        }
        memcpy(comp, rel, n);
        comp[n] = '\0';
        if (create && mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
            int err = -errno;
            close(fd);
            return err;
        }
        int next = openat(fd, comp, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int err = -errno;
        close(fd);
        if (next < 0)
            return err;
        fd = next;
        rel += n + 1;
    }
    if (!*rel || strcmp(rel, ".") == 0 || strcmp(rel, "..") == 0) {
        close(fd);
        return -EINVAL;
    }
    if (!create && slash && b->memo && !walked)
        sc__memo_keep_dir(b->memo, start, (size_t)(slash - start), fd);
    *leaf = rel;
    return fd;
}

int sc_bundle_open_file(const sc_bundle *b, const char *rel, int flags, int mode)
{
    const char *leaf = NULL;
    int dfd = sc__walk_dirs(b, rel, (flags & O_CREAT) != 0, &leaf);

    if (dfd < 0)
        return dfd;
    /* sc__walk_dirs() sets leaf whenever it returns a directory; the analyzer assumes that a
       failed dup() may leave errno 0. NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
    int fd = openat(dfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    int err = -errno;
    close(dfd);
    /* cppcheck-suppress resourceLeak ; fd is not leaked: it is what this function returns */
    return fd >= 0 ? fd : err;
}

int sc_bundle_write(const sc_bundle *b, const char *rel, const void *data, size_t len)
{
    /* Written in place, then cut to length, so a file whose blocks were reserved
       (sc_bundle_reserve) keeps them while it is written, even on a full disk. */
    int fd = sc_bundle_open_file(b, rel, O_WRONLY | O_CREAT, 0644);

    if (fd < 0)
        return fd;
    int rc = sc_file_write_all(fd, data, len);
    if (rc == 0 && ftruncate(fd, (off_t)len) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

int sc_bundle_ahead(const sc_bundle *b, const char *rel)
{
    const char *leaf = NULL;
    int dfd = sc__walk_dirs(b, rel, 1, &leaf);

    if (dfd < 0)
        return dfd;
    int fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    int err = -errno;
    close(dfd);
    /* cppcheck-suppress resourceLeak ; fd is not leaked: it is what this function returns */
    return fd >= 0 ? fd : err;
}

/* Names the unnamed file fd rel (through /proc/self/fd: linkat's AT_EMPTY_PATH needs a
   privilege). 0 or -errno (-EEXIST: rel is there already). */
static int sc__name_ahead(const sc_bundle *b, int fd, const char *rel)
{
    char proc[64];
    const char *leaf = NULL;
    int dfd = sc__walk_dirs(b, rel, 1, &leaf);

    if (dfd < 0)
        return dfd;
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    /* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): leaf is set with dfd */
    int rc = linkat(AT_FDCWD, proc, dfd, leaf, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
    close(dfd);
    return rc;
}

int sc_bundle_write_ahead(const sc_bundle *b, int fd, const char *rel, const void *data,
                          size_t len)
{
    if (fd < 0)
        return sc_bundle_write(b, rel, data, len);
    int rc = sc_file_write_all(fd, data, len);
    if (rc == 0)
        rc = sc__name_ahead(b, fd, rel);
    close(fd);
    return rc == 0 ? 0 : sc_bundle_write(b, rel, data, len);
}

int sc_bundle_reserve(const sc_bundle *b, const char *rel, size_t bytes)
{
    int fd = sc_bundle_open_file(b, rel, O_WRONLY | O_CREAT, 0644);

    if (fd < 0)
        return fd;
    /* KEEP_SIZE: the blocks are the file's, its size stays 0 until it is written. */
    int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) < 0 ? -errno : 0;
    close(fd);
    return rc == -EOPNOTSUPP ? 0 : rc;
}

int sc_bundle_write_str(const sc_bundle *b, const char *rel, const char *text)
{
    return sc_bundle_write(b, rel, text, strlen(text));
}

static bool sc__ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

size_t sc_bundle_cap(const char *rel)
{
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;

    if (strcmp(base, "card.yaml") == 0)
        return SC_CARD_MAX_BYTES;
    if (strcmp(base, SC_BUNDLE_SUMS) == 0)
        return SC_BUNDLE_CAP_SUMS;
    if (sc__ends_with(base, ".json"))
        return SC_BUNDLE_CAP_JSON;
    if (sc__ends_with(base, ".log"))
        return SC_BUNDLE_CAP_LOG;
    if (strncmp(rel, "matrix/", 7) == 0 && sc__ends_with(base, ".csv"))
        return SC_BUNDLE_CAP_MATRIX;
    if (sc__ends_with(base, ".conf") || sc__ends_with(base, ".env") ||
        sc__ends_with(base, ".ready") || strncmp(rel, "platform/", 9) == 0)
        return SC_BUNDLE_CAP_KV;
    return SC_BUNDLE_CAP_OTHER;
}

/* sc_bundle_open_read() with the cap max (SIZE_MAX: none, for the bundle's own writer). */
static int sc__open_read(const sc_bundle *b, const char *rel, size_t max, size_t *size)
{
    struct stat st;
    int fd = sc_bundle_open_file(b, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);

    if (fd < 0)
        return fd;
    int rc = fstat(fd, &st) < 0           ? -errno
             : !S_ISREG(st.st_mode)       ? -EINVAL
             : (uint64_t)st.st_size > max ? -EFBIG
                                          : 0;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    if (size)
        *size = (size_t)st.st_size;
    return fd;
}

int sc_bundle_open_read(const sc_bundle *b, const char *rel, size_t *size)
{
    return sc__open_read(b, rel, sc_bundle_cap(rel), size);
}

const char *sc_bundle_read_error(const char *rel, int rc, char *buf, size_t len)
{
    size_t cap = sc_bundle_cap(rel);

    switch (rc) {
    case -ENOENT:
        return "missing";
    case -ELOOP:
        return "a symlink (never followed)";
    case -ENOTDIR:
        return "a path through a symlink or a file (never followed)";
    case -EINVAL:
        return "not a regular file (a fifo, socket or device is never read)";
    case -EFBIG:
        snprintf(buf, len, "larger than its cap of %zu %s (valid: a file written by streamcard)",
                 cap >= (1u << 20) ? cap >> 20 : cap >> 10, cap >= (1u << 20) ? "MiB" : "KiB");
        return buf;
    default:
        return strerror(-rc);
    }
}

int sc_bundle_read(const sc_bundle *b, const char *rel, char **out, size_t *len)
{
    size_t n = 0;

    if (b->memo && sc__memo_text(b->memo, rel, out, len) == 0)
        return 0; /* read by this pass already: the same bytes, not opened again */
    int fd = sc_bundle_open_read(b, rel, NULL);
    if (fd < 0)
        return fd;
    /* The cap again: the file may grow after fstat. */
    int rc = sc_file_read_fd(fd, sc_bundle_cap(rel) + 1, out, &n);
    close(fd);
    if (rc == 0 && b->memo) /* hashed from these bytes: a memo that cannot grow is not
                               needed, the check hashes the file itself */
        (void)sc__memo_note(b->memo, rel, *out, n);
    if (rc == 0 && len)
        *len = n;
    return rc;
}

static int sc__hash(const sc_bundle *b, const char *rel, size_t max, char hex[65])
{
    int fd = sc__open_read(b, rel, max, NULL);

    if (fd < 0)
        return fd;
    int rc = sc_hash_fd_max(fd, max, hex);
    close(fd);
    return rc;
}

int sc_bundle_hash(const sc_bundle *b, const char *rel, char hex[65])
{
    return sc_bundle_hash_seen(b, rel, hex) ? 0 : sc__hash(b, rel, sc_bundle_cap(rel), hex);
}

bool sc_bundle_hash_seen(const sc_bundle *b, const char *rel, char hex[65])
{
    size_t size;

    return b->memo && sc__memo_hash(b->memo, rel, hex, &size);
}

typedef struct sc__list {
    char **paths;
    size_t count, cap;
    size_t seen; /* entries of every kind, within SC_BUNDLE_MAX_FILES */
} sc__list;

static int sc__list_add(sc__list *l, const char *prefix, const char *name)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        char **grown = realloc(l->paths, cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        l->paths = grown;
        l->cap = cap;
    }
    if (asprintf(&l->paths[l->count], "%s%s", prefix, name) < 0)
        return -ENOMEM;
    l->count++;
    return 0;
}

static int sc__list_dir(int dfd, const char *prefix, sc__list *l, sc_diag *problems, int depth)
{
    struct dirent *de;
    int rc = 0;

    if (depth > 8)
        return -ELOOP;
    DIR *dir = sc_dir_openat(dfd, ".", 0);
    if (!dir)
        return -errno;
    while (rc == 0 && (de = readdir(dir))) {
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (!*prefix && strcmp(de->d_name, SC_BUNDLE_SUMS) == 0)
            continue;
        if (++l->seen > SC_BUNDLE_MAX_FILES) {
            rc = -E2BIG;
            break;
        }
        if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = -errno;
            break;
        }
        if (strchr(de->d_name, '\n') || strchr(de->d_name, '\\')) {
            if (problems)
                sc_diag_addf(problems, "%s%s: file name with a newline or backslash", prefix, "?");
            continue;
        }
        if (S_ISREG(st.st_mode)) {
            rc = sc__list_add(l, prefix, de->d_name);
        } else if (S_ISDIR(st.st_mode)) {
            char sub[PATH_MAX];
            int sfd = openat(dirfd(dir), de->d_name, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sfd < 0) {
                rc = -errno;
                break;
            }
            snprintf(sub, sizeof(sub), "%s%s/", prefix, de->d_name);
            rc = sc__list_dir(sfd, sub, l, problems, depth + 1);
            close(sfd);
        } else if (problems) {
            sc_diag_addf(problems, "%s%s: not a regular file (%s); not part of the evidence",
                         prefix, de->d_name, S_ISLNK(st.st_mode) ? "symlink" : "special file");
        }
    }
    closedir(dir);
    return rc;
}

static int sc__cmp_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int sc_bundle_list(const sc_bundle *b, char ***paths, size_t *count, sc_diag *problems)
{
    sc__list l = {0};

    if (b->memo) /* listed once by this pass */
        return sc__memo_list(b->memo, paths, count, problems);
    int rc = sc__list_dir(b->dirfd, "", &l, problems, 0);

    if (rc < 0) {
        sc_bundle_list_free(l.paths, l.count);
        return rc;
    }
    if (l.count) /* an empty bundle has no array at all: qsort(NULL, ...) is undefined */
        qsort(l.paths, l.count, sizeof(*l.paths), sc__cmp_paths);
    *paths = l.paths;
    *count = l.count;
    return 0;
}

int sc_bundle_seal(const sc_bundle *b)
{
    char **paths = NULL, hex[SC_HASH_HEX_LEN + 1];
    size_t count = 0;
    sc_diag problems;
    FILE *mem;
    char *text = NULL;
    size_t len = 0;
    int rc;

    sc_diag_init(&problems);
    rc = sc_bundle_list(b, &paths, &count, &problems);
    if (rc < 0)
        goto out_free_diag;
    mem = open_memstream(&text, &len);
    if (!mem) {
        rc = -ENOMEM;
        goto out_free_list;
    }
    for (size_t i = 0; i < count; i++) {
        rc = sc__hash(b, paths[i], SIZE_MAX, hex);
        if (rc < 0)
            break;
        fprintf(mem, "%s  %s\n", hex, paths[i]);
    }
    fclose(mem);
    if (rc == 0)
        rc = sc_bundle_write(b, SC_BUNDLE_SUMS, text, len);
    free(text);
out_free_list:
    sc_bundle_list_free(paths, count);
out_free_diag:
    sc_diag_free(&problems);
    return rc;
}

/* One line of SHA256SUMS against the listed files: marks the file seen and hashes it
   within what is left of the bundle's budget. */
static void sc__check_line(const sc_bundle *b, const char *line, long lineno, char **paths,
                           size_t count, char *listed, size_t *budget, sc_diag *problems)
{
    char hex[SC_HASH_HEX_LEN + 1], why[128];
    size_t hl = strspn(line, "0123456789abcdef"), size = 0;
    const char *path = line + hl + 2;

    if (hl != SC_HASH_HEX_LEN || line[hl] != ' ' || (line[hl + 1] != ' ' && line[hl + 1] != '*')) {
        sc_diag_addf(problems, "%s:%ld: malformed line", SC_BUNDLE_SUMS, lineno);
        return;
    }
    char **hit = count ? bsearch(&path, paths, count, sizeof(*paths), sc__cmp_paths) : NULL;
    if (!hit) {
        sc_diag_addf(problems, "%s: missing (listed in %s)", path, SC_BUNDLE_SUMS);
        return;
    }
    size_t idx = (size_t)(hit - paths);
    if (listed[idx]) {
        sc_diag_addf(problems, "%s:%ld: %s listed twice", SC_BUNDLE_SUMS, lineno, path);
        return;
    }
    listed[idx] = 1;
    bool seen = b->memo && sc__memo_hash(b->memo, path, hex, &size); /* read by the pass */
    int fd = seen ? 0 : sc_bundle_open_read(b, path, &size);
    int rc = fd;
    if (fd >= 0 && size > *budget)
        rc = -E2BIG;
    else if (fd >= 0 && !seen)
        rc = sc_hash_fd_max(fd, sc_bundle_cap(path), hex);
    if (fd >= 0 && !seen)
        close(fd);
    if (rc == -E2BIG)
        sc_diag_addf(problems,
                     "%s: not hashed: the bundle holds more than %u MiB (valid: a "
                     "bundle written by streamcard)",
                     path, SC_BUNDLE_MAX_BYTES >> 20);
    else if (rc < 0)
        sc_diag_addf(problems, "%s: cannot be hashed: %s", path,
                     sc_bundle_read_error(path, rc, why, sizeof(why)));
    else if (strncmp(hex, line, SC_HASH_HEX_LEN) != 0)
        sc_diag_addf(problems, "%s: edited (its SHA-256 differs from %s)", path, SC_BUNDLE_SUMS);
    if (rc == 0)
        *budget -= size;
}

int sc_bundle_check_sums(const sc_bundle *b, sc_diag *problems)
{
    char *sums = NULL, **paths = NULL, why[128];
    size_t count = 0, budget = SC_BUNDLE_MAX_BYTES;
    /* A forged SHA256SUMS can make a problem of every line: the list keeps the first ones
       and counts the rest (sc_diag's bound). */
    size_t before = problems->count + problems->more;
    int rc = sc_bundle_read(b, SC_BUNDLE_SUMS, &sums, NULL);

    if (rc < 0) {
        sc_diag_addf(problems, "%s: %s", SC_BUNDLE_SUMS,
                     rc == -ENOENT ? "missing: the bundle was never sealed"
                                   : sc_bundle_read_error(SC_BUNDLE_SUMS, rc, why, sizeof(why)));
        return -EINVAL;
    }
    /* A bundle whose files cannot all be listed is not checked line by line: that must be a
       problem of its own, or an edit beside a deep nest of directories would pass. */
    rc = sc_bundle_list(b, &paths, &count, problems);
    char *listed = rc < 0 ? NULL : calloc(count ? count : 1, 1);
    if (rc == 0 && !listed)
        rc = -ENOMEM;
    if (rc == -E2BIG)
        sc_diag_addf(problems,
                     "the bundle holds more than %u files (valid: a bundle written by "
                     "streamcard)",
                     SC_BUNDLE_MAX_FILES);
    else if (rc == -ELOOP)
        sc_diag_addf(problems,
                     "the bundle's directories nest too deep to be checked (valid: a bundle "
                     "written by streamcard)");
    else if (rc < 0)
        sc_diag_addf(problems, "%s: the bundle's files cannot be checked: %s", SC_BUNDLE_SUMS,
                     strerror(-rc));
    long lineno = 0;
    for (char *line = sums; listed && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        sc__check_line(b, line, ++lineno, paths, count, listed, &budget, problems);
        if (!nl)
            break;
        line = nl + 1;
    }
    for (size_t i = 0; listed && i < count; i++)
        if (!listed[i])
            sc_diag_addf(problems, "%s: added after sealing (not in %s)", paths[i], SC_BUNDLE_SUMS);
    bool any = problems->count + problems->more > before;
    free(listed);
    free(sums);
    sc_bundle_list_free(paths, count);
    if (rc == -ENOMEM)
        return rc;
    return any ? -EINVAL : 0;
}

char *sc_bundle_read_opt(const sc_bundle *b, const char *rel)
{
    char *text = NULL;

    return sc_bundle_read(b, rel, &text, NULL) == 0 ? text : NULL;
}
