/*
 * journal_store.c: journals on disk (see journal.h): the root-owned state directory, its
 * lock, and atomic, durable load/store/remove/list of job_<jobid>.journal files in it.
 */
#include "journal.h"
#include "sc_dir.h"
#include "sc_file.h"
#include "sc_why.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SC__JOURNAL_MAX_BYTES (4u << 20)
#define SC__LOCK_NAME "streamcard.lock"
#define SC__LOCK_WAIT_MS 30000

int sc_statedir_open(sc_statedir *d, const char *path, char *why, size_t whylen)
{
    struct stat st;
    int rc = 0;

    d->fd = d->lock_fd = -1;
    d->path = NULL;
    if (!path || path[0] != '/') {
        sc__why(why, whylen, "streamcard: state directory %s refused: not an absolute path",
                path ? path : "(none)");
        return -EINVAL;
    }
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        rc = -errno;
        sc__why(why, whylen, "streamcard: cannot create the state directory %s: %s", path,
                strerror(errno));
        return rc;
    }
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        sc__why(why, whylen, "streamcard: state directory %s refused: it is a symlink", path);
        return -ELOOP;
    }
    d->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d->fd < 0 || fstat(d->fd, &st) < 0) {
        rc = -errno;
        sc__why(why, whylen, "streamcard: cannot open the state directory %s: %s", path,
                strerror(errno));
    } else if (st.st_uid != 0 && st.st_uid != geteuid()) {
        rc = -EPERM;
        sc__why(why, whylen,
                "streamcard: state directory %s refused: owned by uid %u (valid: root or uid %u)",
                path, (unsigned)st.st_uid, (unsigned)geteuid());
    } else if (st.st_mode & 022) {
        rc = -EPERM;
        sc__why(why, whylen,
                "streamcard: state directory %s refused: mode %04o lets others write (valid: 0700)",
                path, (unsigned)(st.st_mode & 07777));
    } else if (!(d->path = strdup(path))) {
        rc = -ENOMEM;
    }
    if (rc < 0)
        sc_statedir_close(d);
    return rc;
}

void sc_statedir_close(sc_statedir *d)
{
    if (!d)
        return;
    sc_statedir_unlock(d);
    if (d->fd >= 0)
        close(d->fd);
    free(d->path);
    d->fd = -1;
    d->path = NULL;
}

int sc_statedir_lock(sc_statedir *d, char *why, size_t whylen)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    int rc = 0;

    if (d->lock_fd >= 0)
        return 0;
    d->lock_fd = openat(d->fd, SC__LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (d->lock_fd < 0) {
        rc = -errno;
        sc__why(why, whylen, "streamcard: cannot open %s/%s: %s", d->path, SC__LOCK_NAME,
                strerror(errno));
        return rc;
    }
    for (int waited = 0; flock(d->lock_fd, LOCK_EX | LOCK_NB) < 0; waited += 10) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= SC__LOCK_WAIT_MS) {
            rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
            sc__why(why, whylen, "streamcard: cannot lock %s/%s: %s", d->path, SC__LOCK_NAME,
                    rc == -EBUSY ? "held by another process for 30 s" : strerror(-rc));
            close(d->lock_fd);
            d->lock_fd = -1;
            return rc;
        }
        nanosleep(&tick, NULL);
    }
    return 0;
}

void sc_statedir_unlock(sc_statedir *d)
{
    if (d->lock_fd < 0)
        return;
    flock(d->lock_fd, LOCK_UN);
    close(d->lock_fd);
    d->lock_fd = -1;
}

static void sc__journal_name(char *buf, size_t buflen, uint32_t job_id, const char *suffix)
{
    snprintf(buf, buflen, "job_%u.journal%s", (unsigned)job_id, suffix);
}

int sc_journal_load(const sc_statedir *d, uint32_t job_id, sc_journal *j, char *why, size_t whylen)
{
    char name[64], *text = NULL, reason[256] = "";
    struct stat st;
    int rc;

    sc__journal_name(name, sizeof(name), job_id, "");
    int fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        if (rc != -ENOENT)
            sc__why(why, whylen, "streamcard: cannot open %s/%s: %s", d->path, name,
                    strerror(errno));
        return rc;
    }
    /* Whatever cannot be read as a journal is corrupt: an admin has to look at it. */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(reason, sizeof(reason), "not a regular file");
        rc = -EBADMSG;
    } else if ((rc = sc_file_read_fd(fd, SC__JOURNAL_MAX_BYTES, &text, NULL)) < 0) {
        snprintf(reason, sizeof(reason), "%s", strerror(-rc));
        rc = rc == -ENOMEM ? rc : -EBADMSG;
    } else {
        rc = sc_journal_parse(text, j, reason, sizeof(reason));
    }
    close(fd);
    if (rc == -EBADMSG)
        sc__why(why, whylen, "streamcard: journal %s/%s is corrupt: %s", d->path, name, reason);
    free(text);
    return rc;
}

int sc_journal_store(const sc_statedir *d, const sc_journal *j, char *why, size_t whylen)
{
    char name[64], tmp[64], *text = sc_journal_format(j);
    int rc = 0;

    if (!text)
        return -ENOMEM;
    sc__journal_name(name, sizeof(name), j->job_id, "");
    sc__journal_name(tmp, sizeof(tmp), j->job_id, ".tmp");
    /* What is written must read back: never more than the reader takes. */
    if (strlen(text) > SC__JOURNAL_MAX_BYTES) {
        sc__why(why, whylen,
                "streamcard: the journal of job %u would hold %zu bytes, more than the %u a "
                "journal may hold (valid: fewer CPUs in cpu_list)",
                (unsigned)j->job_id, strlen(text), SC__JOURNAL_MAX_BYTES);
        free(text);
        return -EFBIG;
    }
    rc = sc_file_replace_at(d->fd, name, tmp, text, strlen(text), 0600);
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cannot write the journal %s/%s: %s", d->path, name,
                strerror(-rc));
    }
    free(text);
    return rc;
}

int sc_journal_remove(const sc_statedir *d, uint32_t job_id, char *why, size_t whylen)
{
    char name[64];
    int rc = 0;

    sc__journal_name(name, sizeof(name), job_id, "");
    if (unlinkat(d->fd, name, 0) < 0 || fsync(d->fd) < 0) {
        rc = -errno;
        sc__why(why, whylen, "streamcard: cannot remove the journal %s/%s: %s", d->path, name,
                strerror(errno));
    }
    return rc;
}

int sc_journal_set_aside(const sc_statedir *d, uint32_t job_id, char *aside, size_t asidelen,
                         char *why, size_t whylen)
{
    char name[64], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc = -EEXIST;

    sc__journal_name(name, sizeof(name), job_id, "");
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    /* A second one of the same job within the second gets a number. */
    for (int i = 0; rc == -EEXIST && i < 100; i++) {
        if (i == 0)
            snprintf(aside, asidelen, "%s%s.%s", SC_JOURNAL_DAMAGED, name, stamp);
        else
            snprintf(aside, asidelen, "%s%s.%s.%d", SC_JOURNAL_DAMAGED, name, stamp, i);
        rc = renameat2(d->fd, name, d->fd, aside, RENAME_NOREPLACE) < 0 ? -errno : 0;
    }
    if (rc == 0 && fsync(d->fd) < 0)
        rc = -errno;
    if (rc < 0)
        sc__why(why, whylen, "streamcard: cannot move the journal %s/%s aside: %s", d->path, name,
                strerror(-rc));
    return rc;
}

int sc_journal_list_damaged(const sc_statedir *d, char ***names, size_t *count)
{
    DIR *dir = sc_dir_openat(d->fd, ".", 0);
    struct dirent *e;
    int rc = 0;

    *names = NULL;
    *count = 0;
    if (!dir)
        return -errno;
    while ((e = readdir(dir)) && rc == 0) {
        if (strncmp(e->d_name, SC_JOURNAL_DAMAGED, strlen(SC_JOURNAL_DAMAGED)) != 0)
            continue;
        char **grown = realloc(*names, (*count + 1) * sizeof(**names));
        if (!grown || !(grown[*count] = strdup(e->d_name))) {
            if (grown)
                *names = grown;
            rc = -ENOMEM;
            break;
        }
        *names = grown;
        (*count)++;
    }
    closedir(dir);
    if (rc < 0) {
        for (size_t i = 0; i < *count; i++)
            free((*names)[i]);
        free(*names);
        *names = NULL;
        *count = 0;
    }
    return rc;
}

/* "job_<n>.journal" with n canonical decimal (no sign, no leading zero) that fits 32 bits. */
static bool sc__job_of_name(const char *name, uint32_t *job)
{
    unsigned long long n;
    char canonical[64], *end = NULL;

    if (strncmp(name, "job_", 4) != 0 || !isdigit((unsigned char)name[4]))
        return false;
    errno = 0;
    n = strtoull(name + 4, &end, 10);
    if (errno || n > UINT32_MAX)
        return false;
    sc__journal_name(canonical, sizeof(canonical), (uint32_t)n, "");
    *job = (uint32_t)n;
    return strcmp(canonical, name) == 0;
}

static int sc__cmp_job(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int sc_journal_list(const sc_statedir *d, uint32_t **jobs, size_t *count)
{
    DIR *dir = sc_dir_openat(d->fd, ".", 0);
    struct dirent *e;
    int rc = 0;
    uint32_t job;

    *jobs = NULL;
    *count = 0;
    if (!dir)
        return -errno;
    while ((e = readdir(dir))) {
        if (!sc__job_of_name(e->d_name, &job))
            continue;
        uint32_t *grown = realloc(*jobs, (*count + 1) * sizeof(**jobs));
        if (!grown) {
            rc = -ENOMEM;
            break;
        }
        *jobs = grown;
        (*jobs)[(*count)++] = job;
    }
    closedir(dir);
    if (rc < 0) {
        free(*jobs);
        *jobs = NULL;
        *count = 0;
    } else if (*count > 1) {
        qsort(*jobs, *count, sizeof(**jobs), sc__cmp_job);
    }
    return rc;
}
