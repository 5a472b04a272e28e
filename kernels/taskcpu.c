/*
 * taskcpu.c: per-thread CPU time from /proc/self/task (see taskcpu.h).
 */
#include "taskcpu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read a small /proc file into buf (NUL-terminated); bytes read or -1. */
static ssize_t sct__read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, len - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* Field 39 of a stat line (the CPU the thread last ran on), counted after the ")" that
   ends the name; -1 when the line is shorter. */
static int sct__stat_cpu(const char *stat)
{
    const char *p = strrchr(stat, ')');

    if (!p)
        return -1;
    p += 2; /* field 3, the state */
    for (int field = 3; field < 39 && p; field++) {
        p = strchr(p, ' ');
        p = p ? p + 1 : NULL;
    }
    return p && *p >= '0' && *p <= '9' ? atoi(p) : -1;
}

/* One thread's CPU nanoseconds, last CPU and name; 0, or -1 when it is gone. */
static int sct__task_read(pid_t tid, struct sct_task_time *t, const char **source)
{
    char path[64], buf[1024], stat[1024];
    unsigned long long ns, ut, st;

    t->tid = tid;
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    t->cpu = sct__read_small(path, stat, sizeof(stat)) > 0 ? sct__stat_cpu(stat) : -1;
    snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
    if (sct__read_small(path, buf, sizeof(buf)) < 0)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    buf[sizeof(t->comm) - 1] = '\0'; /* the kernel's names are at most 15 bytes */
    memcpy(t->comm, buf, sizeof(t->comm));
    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
    if (sct__read_small(path, buf, sizeof(buf)) > 0 && sscanf(buf, "%llu", &ns) == 1) {
        t->ns = ns;
        *source = "schedstat";
        return 0;
    }
    /* Fields 14 and 15 (utime, stime) follow the ")" that ends the name. */
    const char *p = strrchr(stat, ')');
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    t->ns = (ut + st) * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK));
    *source = "stat";
    return 0;
}

int sct_task_snapshot_take(struct sct_task_snapshot *s)
{
    DIR *dir = opendir("/proc/self/task");
    struct dirent *e;
    size_t cap = 0;
    int rc = 0;

    *s = (struct sct_task_snapshot){.source = "schedstat"};
    if (!dir)
        return -errno;
    while ((e = readdir(dir))) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (e->d_name[0] == '.' || *end || tid <= 0)
            continue;
        if (s->n == cap) {
            size_t ncap = cap ? 2 * cap : 32;
            struct sct_task_time *grown = realloc(s->t, ncap * sizeof(*grown));
            if (!grown) {
                rc = -ENOMEM;
                break;
            }
            s->t = grown;
            cap = ncap;
        }
        if (sct__task_read((pid_t)tid, &s->t[s->n], &s->source) == 0)
            s->n++;
    }
    closedir(dir);
    if (rc)
        sct_task_snapshot_free(s);
    return rc;
}

void sct_task_snapshot_free(struct sct_task_snapshot *s)
{
    free(s->t);
    s->t = NULL;
    s->n = 0;
}

static const struct sct_task_time *sct__find(const struct sct_task_snapshot *s, pid_t tid)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->t[i].tid == tid)
            return &s->t[i];
    return NULL;
}

double sct_task_seconds(const struct sct_task_snapshot *before,
                        const struct sct_task_snapshot *after, pid_t tid)
{
    const struct sct_task_time *a = sct__find(after, tid), *b = sct__find(before, tid);

    if (!a)
        return 0;
    return 1e-9 * (double)(a->ns - (b && b->ns <= a->ns ? b->ns : 0));
}
