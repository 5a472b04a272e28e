/*
 * sampler_proc.c: the sampler's reading of a /proc tree (see sampler_proc.h): a task's stat
 * line, the stat files kept open between samples, every task of the tree.
 */
#include "sampler_proc.h"
#include "sc_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sc_proc_clean(char *dst, size_t len, const char *src, size_t n)
{
    size_t i;

    for (i = 0; i + 1 < len && i < n && src[i]; i++)
        dst[i] = src[i] > ' ' && src[i] <= '~' ? src[i] : '?';
    dst[i] = '\0';
    if (!i && len > 1)
        snprintf(dst, len, "?");
}

/*
 * Reads a small file under dirfd into buf (NUL-terminated). Length, or -errno. A read that
 * leaves room in buf is the whole file: a /proc file of one record comes in one read, and
 * so does a small regular file (a read returns less than asked only at its end), which
 * saves the second read that would return 0 for each of the hundreds of tasks a sample
 * reads.
 */
ssize_t sc_proc_read_at(int dirfd, const char *rel, char *buf, size_t len)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    size_t used = 0;

    if (fd < 0)
        return -errno;
    while (used + 1 < len) {
        ssize_t n = read(fd, buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = -errno;
            close(fd);
            return err;
        }
        used += (size_t)n;
        if (n == 0 || used + 1 < len)
            break;
    }
    close(fd);
    buf[used] = '\0';
    return (ssize_t)used;
}

/*
 * A task's stat line: "tid (comm) S ppid ... utime(14) stime(15) ... starttime(22) ...
 * processor(39) ...". The name may hold spaces and parentheses, so fields are counted from
 * its last ')'.
 */
static int sc__parse_stat(const char *text, sc_proc_reading *r)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
    unsigned long long f[40] = {0};

    if (!open || !close || close < open || close[1] != ' ')
        return -EINVAL;
    sc_proc_clean(r->comm, sizeof(r->comm), open + 1, (size_t)(close - open - 1));
    p = close + 2;
    for (int field = 3; field <= 39; field++) {
        if (!*p || *p == ' ')
            return -EINVAL;
        if (field == 3)
            r->state = *p;
        else
            f[field] = strtoull(p, NULL, 10);
        p = strchr(p, ' ');
        if (!p && field < 39)
            return -EINVAL;
        if (p)
            p++;
    }
    r->ppid = (pid_t)f[4];
    r->ticks = f[14] + f[15];
    r->threads = (long)f[20];
    r->start = f[22];
    r->cpu = (int)f[39];
    return 0;
}

/* Appends r to the readings. 0 or -ENOMEM. */
static int sc__add_reading(const sc_proc_reading *r, sc_proc_reading **rd, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        size_t grow = *cap ? *cap * 2 : 512;
        sc_proc_reading *g = realloc(*rd, grow * sizeof(*g));
        if (!g)
            return -ENOMEM;
        *rd = g;
        *cap = grow;
    }
    (*rd)[(*n)++] = *r;
    return 0;
}

/* Where tid is, or would be inserted, in the sorted cache. */
static size_t sc__fds_at(const sc_proc_fds *c, pid_t tid)
{
    size_t lo = 0, hi = c->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->tid[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The cache, emptied when procfd is another tree than the one it was filled from. */
void sc_proc_fds_check_tree(sc_proc_fds *c, int procfd)
{
    struct stat st;

    if (fstat(procfd, &st) == 0 && st.st_dev == c->dev && st.st_ino == c->ino)
        return;
    for (size_t i = 0; i < c->n; i++)
        close(c->fd[i]);
    c->n = 0;
    c->dev = st.st_dev;
    c->ino = st.st_ino;
}

void sc_proc_fds_close(sc_proc_fds *c)
{
    for (size_t i = 0; i < c->n; i++)
        close(c->fd[i]);
    c->n = 0;
}

/* Re-reads tid's kept stat file into buf: length, or -1 (none kept, or its task is gone:
   the descriptor is dropped). */
static ssize_t sc__fds_read(sc_proc_fds *c, pid_t tid, char *buf, size_t len)
{
    size_t i = sc__fds_at(c, tid);

    if (i == c->n || c->tid[i] != tid)
        return -1;
    ssize_t n = pread(c->fd[i], buf, len - 1, 0);
    if (n > 0 && (size_t)n < len - 1) {
        buf[n] = '\0';
        return n;
    }
    close(c->fd[i]);
    memmove(&c->tid[i], &c->tid[i + 1], (c->n - i - 1) * sizeof(c->tid[0]));
    memmove(&c->fd[i], &c->fd[i + 1], (c->n - i - 1) * sizeof(c->fd[0]));
    c->n--;
    return -1;
}

/* Reads the stat file rel (under dirfd) of tid into buf, keeping it open when there is room. */
static ssize_t sc__fds_open_read(sc_proc_fds *c, int dirfd, const char *rel, pid_t tid, char *buf,
                                 size_t len)
{
    if (c->keep_none || c->n == SC_PROC_FDS_MAX)
        return sc_proc_read_at(dirfd, rel, buf, len);
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    if (n <= 0 || (size_t)n == len - 1) { /* gone, or longer than a stat line can be */
        close(fd);
        return n < 0 ? -errno : -EINVAL;
    }
    buf[n] = '\0';
    size_t i = sc__fds_at(c, tid);
    memmove(&c->tid[i + 1], &c->tid[i], (c->n - i) * sizeof(c->tid[0]));
    memmove(&c->fd[i + 1], &c->fd[i], (c->n - i) * sizeof(c->fd[0]));
    c->tid[i] = tid;
    c->fd[i] = fd;
    c->n++;
    return n;
}

/* Reads the task tid's stat at rel (relative to dirfd) into r: 0, or -1 when it is gone or
   unreadable. */
static int sc__read_stat(sc_proc_fds *c, int dirfd, const char *rel, pid_t pid, pid_t tid,
                         sc_proc_reading *r)
{
    char buf[1024];
    ssize_t n = sc__fds_read(c, tid, buf, sizeof(buf));

    if (n < 0)
        n = sc__fds_open_read(c, dirfd, rel, tid, buf, sizeof(buf));
    memset(r, 0, sizeof(*r));
    r->tid = tid;
    r->pid = pid;
    return n > 0 && sc__parse_stat(buf, r) == 0 ? 0 : -1;
}

/*
 * Appends the readings of every task of process pid. Its main thread's stat comes first
 * (<pid>/task/<pid>/stat); it says how many threads the process has, and only a process of
 * several has its task directory listed (most processes have one thread: this halves the
 * files a sample opens).
 */
static int sc__read_process(sc_proc_fds *c, int procfd, const char *pid, sc_proc_reading **rd,
                            size_t *n, size_t *cap)
{
    char rel[640];
    sc_proc_reading r;
    pid_t p = (pid_t)atoi(pid);

    snprintf(rel, sizeof(rel), "%s/task/%s/stat", pid, pid);
    if (sc__read_stat(c, procfd, rel, p, p, &r) < 0)
        return 0; /* gone, or not readable: nothing to account */
    int rc = sc__add_reading(&r, rd, n, cap);
    if (rc < 0 || r.threads <= 1)
        return rc;
    snprintf(rel, sizeof(rel), "%s/task", pid);
    DIR *dir = sc_dir_openat(procfd, rel, 0);
    if (!dir)
        return 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(dir))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9' || !strcmp(de->d_name, pid))
            continue;
        snprintf(rel, sizeof(rel), "%s/stat", de->d_name);
        if (sc__read_stat(c, dirfd(dir), rel, p, (pid_t)atoi(de->d_name), &r) == 0)
            rc = sc__add_reading(&r, rd, n, cap);
    }
    closedir(dir);
    return rc;
}

int sc_proc_cmp(const void *a, const void *b)
{
    pid_t x = ((const sc_proc_entry *)a)->pid, y = ((const sc_proc_entry *)b)->pid;

    return (x > y) - (x < y);
}

sc_proc_entry *sc_proc_find(sc_proc_entry *procs, size_t n, pid_t pid)
{
    sc_proc_entry key = {.pid = pid};

    return n ? bsearch(&key, procs, n, sizeof(*procs), sc_proc_cmp) : NULL;
}

/*
 * Every task under procfd. *rd malloc'd. With skip (the processes PRIME saw), a process
 * found there as foreign is left out: only own and new processes are read.
 */
int sc_proc_read_tasks(sc_proc_fds *c, int procfd, sc_proc_entry *skip, size_t nskip,
                       sc_proc_reading **rd, size_t *n)
{
    DIR *dir = sc_dir_openat(procfd, ".", 0);
    size_t cap = 0;
    int rc = 0;

    *rd = NULL;
    *n = 0;
    if (!dir)
        return -errno;
    struct dirent *de;
    while (rc == 0 && (de = readdir(dir))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        const sc_proc_entry *seen = sc_proc_find(skip, nskip, (pid_t)atoi(de->d_name));
        if (!seen || seen->own > 0)
            rc = sc__read_process(c, procfd, de->d_name, rd, n, &cap);
    }
    closedir(dir);
    return rc;
}
