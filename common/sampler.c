/*
 * sampler.c: interference accounting of the CPUs a workload runs on (see sc_sampler.h and
 * doc/design.md, "Interference"). Reads a /proc tree through a directory descriptor; keeps
 * every task it saw, so a task that ends inside the window still counts.
 */
#include "sc_sampler.h"
#include "sc_dir.h"
#include "sc_trace_protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SC__SCAN_MIN_NS 100000000LL /* at least 100 ms between two scans */
#define SC__SCAN_COST_FACTOR 400    /* and 400 times a scan's own cost: at most 0.25% */
#define SC__PROC_STAT_MAX (4u << 20)
#define SC__FDS_MAX 256 /* stat files kept open between samples (sc__fds) */
#define SC__NAME_MAX 64

/* What one read of a task's stat file gives. */
typedef struct sc__reading {
    pid_t tid, pid, ppid;
    unsigned long long start; /* starttime: tells a reused tid from the task it was */
    unsigned long long ticks; /* utime + stime */
    long threads;             /* num_threads: the process's thread count */
    int cpu;                  /* the CPU it last ran on */
    char state;
    char comm[16];
} sc__reading;

/* Every task seen in the window. */
typedef struct sc__task {
    sc__reading last;
    bool own;
    unsigned long long ticks_base; /* CPU ticks when the window opened (0: born inside) */
    /* own tasks: schedstat and status at the window's start and at the last sample */
    unsigned long long exec0, delay0, nvcsw0, exec, delay, nvcsw;
    char allowed[256];
    /* foreign tasks: per accounted CPU, ticks attributed and scans that saw it runnable */
    unsigned long long *on;
    unsigned *seen;
} sc__task;

/* user nice system idle iowait irq softirq steal, as /proc/stat orders them */
typedef struct sc__cpu_times {
    bool ok;
    unsigned long long v[8];
} sc__cpu_times;

/*
 * Tasks' stat files kept open between samples, by tid (sorted): re-reading one from its
 * start (pread) costs half of opening, reading and closing it (4.5 us against 10 on a 2-core
 * VM), and a sample reads every task, some while a workload waits. At most SC__FDS_MAX: the
 * process's file limit is not the sampler's to use up; the rest are opened each time. A
 * descriptor reads ESRCH once its task is gone (a tid used again is another task: opened
 * anew). dev and ino: the /proc tree they belong to (a sample of another tree drops them).
 */
typedef struct sc__fds {
    pid_t tid[SC__FDS_MAX];
    int fd[SC__FDS_MAX];
    size_t n;
    dev_t dev;
    ino_t ino;
} sc__fds;

/* A process of one sample and whether it descends from a root (-1: not known yet). */
typedef struct sc__proc {
    pid_t pid, ppid;
    int own;
} sc__proc;

struct sc_sampler {
    int *cpus;
    size_t ncpus;
    pid_t *roots;
    size_t nroots;
    char source[SC__NAME_MAX], host[SC__NAME_MAX];
    size_t top;
    sc__cpu_times *cpu0, *cpu1;
    sc__task *tasks;
    size_t ntasks, cap;
    size_t *slots; /* open addressing over (tid, start): 1 + index into tasks, 0 empty */
    size_t nslots;
    long long begin_ns, end_ns, next_ns;
    unsigned scans;
    long long cpu_ns, loop_cpu_ns, full_ns;
    int phase;    /* 0 before BEGIN, 1 open, 2 closed, 3 closed by END_OWN (NAMES to come) */
    bool primed;  /* PRIME was taken */
    sc__fds fds;
    sc__proc *seen; /* the processes of the last sample that read every task, by pid */
    size_t nseen;
    long clk_tck;
};

/* Bytes of a name outside '!'..'~' become '?': a record stays one line of words. */
static void sc__clean(char *dst, size_t len, const char *src, size_t n)
{
    size_t i;

    for (i = 0; i + 1 < len && i < n && src[i]; i++)
        dst[i] = src[i] > ' ' && src[i] <= '~' ? src[i] : '?';
    dst[i] = '\0';
    if (!i && len > 1)
        snprintf(dst, len, "?");
}

sc_sampler *sc_sampler_new(const sc_sampler_opts *o)
{
    sc_sampler *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->cpus = calloc(o->ncpus + 1, sizeof(*s->cpus));
    s->roots = calloc(o->nroots + 1, sizeof(*s->roots));
    s->cpu0 = calloc(o->ncpus + 1, sizeof(*s->cpu0));
    s->cpu1 = calloc(o->ncpus + 1, sizeof(*s->cpu1));
    if (!s->cpus || !s->roots || !s->cpu0 || !s->cpu1) {
        sc_sampler_free(s);
        errno = ENOMEM;
        return NULL;
    }
    if (o->ncpus)
        memcpy(s->cpus, o->cpus, o->ncpus * sizeof(*s->cpus));
    if (o->nroots)
        memcpy(s->roots, o->roots, o->nroots * sizeof(*s->roots));
    s->ncpus = o->ncpus;
    s->nroots = o->nroots;
    sc__clean(s->source, sizeof(s->source), o->source ? o->source : "sampler", SIZE_MAX);
    sc__clean(s->host, sizeof(s->host), o->host ? o->host : "unknown", SIZE_MAX);
    s->top = o->top ? o->top : 3;
    s->clk_tck = sysconf(_SC_CLK_TCK);
    if (s->clk_tck <= 0)
        s->clk_tck = 100;
    return s;
}

void sc_sampler_free(sc_sampler *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ntasks; i++) {
        free(s->tasks[i].on);
        free(s->tasks[i].seen);
    }
    for (size_t i = 0; i < s->fds.n; i++)
        close(s->fds.fd[i]);
    free(s->tasks);
    free(s->slots);
    free(s->seen);
    free(s->cpus);
    free(s->roots);
    free(s->cpu0);
    free(s->cpu1);
    free(s);
}

/*
 * Reads a small file under dirfd into buf (NUL-terminated). Length, or -errno. A read that
 * leaves room in buf is the whole file: a /proc file of one record comes in one read, and
 * so does a small regular file (a read returns less than asked only at its end), which
 * saves the second read that would return 0 for each of the hundreds of tasks a sample
 * reads.
 */
static ssize_t sc__read_at(int dirfd, const char *rel, char *buf, size_t len)
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
static int sc__parse_stat(const char *text, sc__reading *r)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
    unsigned long long f[40] = {0};

    if (!open || !close || close < open || close[1] != ' ')
        return -EINVAL;
    sc__clean(r->comm, sizeof(r->comm), open + 1, (size_t)(close - open - 1));
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

static size_t sc__hash(pid_t tid, unsigned long long start, size_t nslots)
{
    unsigned long long h = ((unsigned long long)(unsigned)tid * 0x9e3779b97f4a7c15ull) ^ start;

    return (size_t)(h ^ (h >> 29)) & (nslots - 1);
}

static int sc__rehash(sc_sampler *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 256;
    size_t *slots = calloc(n, sizeof(*slots));

    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < s->ntasks; i++) {
        size_t h = sc__hash(s->tasks[i].last.tid, s->tasks[i].last.start, n);
        while (slots[h])
            h = (h + 1) & (n - 1);
        slots[h] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
    return 0;
}

/* The task of a reading: found, or added (*is_new). NULL on ENOMEM. */
static sc__task *sc__task_of(sc_sampler *s, const sc__reading *r, bool *is_new)
{
    *is_new = false;
    if (2 * (s->ntasks + 1) > s->nslots && sc__rehash(s) < 0)
        return NULL;
    size_t h = sc__hash(r->tid, r->start, s->nslots);
    while (s->slots[h]) {
        sc__task *t = &s->tasks[s->slots[h] - 1];
        if (t->last.tid == r->tid && t->last.start == r->start)
            return t;
        h = (h + 1) & (s->nslots - 1);
    }
    if (s->ntasks == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        sc__task *grown = realloc(s->tasks, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        s->tasks = grown;
        s->cap = cap;
    }
    sc__task *t = &s->tasks[s->ntasks];
    memset(t, 0, sizeof(*t));
    t->last = *r;
    s->slots[h] = ++s->ntasks;
    *is_new = true;
    return t;
}

/* Appends r to the readings. 0 or -ENOMEM. */
static int sc__add_reading(const sc__reading *r, sc__reading **rd, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        size_t grow = *cap ? *cap * 2 : 512;
        sc__reading *g = realloc(*rd, grow * sizeof(*g));
        if (!g)
            return -ENOMEM;
        *rd = g;
        *cap = grow;
    }
    (*rd)[(*n)++] = *r;
    return 0;
}

/* Where tid is, or would be inserted, in the sorted cache. */
static size_t sc__fds_at(const sc__fds *c, pid_t tid)
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
static void sc__fds_check_tree(sc__fds *c, int procfd)
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

/* Re-reads tid's kept stat file into buf: length, or -1 (none kept, or its task is gone:
   the descriptor is dropped). */
static ssize_t sc__fds_read(sc__fds *c, pid_t tid, char *buf, size_t len)
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
static ssize_t sc__fds_open_read(sc__fds *c, int dirfd, const char *rel, pid_t tid, char *buf,
                                 size_t len)
{
    if (c->n == SC__FDS_MAX)
        return sc__read_at(dirfd, rel, buf, len);
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
static int sc__read_stat(sc__fds *c, int dirfd, const char *rel, pid_t pid, pid_t tid,
                         sc__reading *r)
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
static int sc__read_process(sc__fds *c, int procfd, const char *pid, sc__reading **rd, size_t *n,
                            size_t *cap)
{
    char rel[640];
    sc__reading r;
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

static int sc__cmp_proc(const void *a, const void *b)
{
    pid_t x = ((const sc__proc *)a)->pid, y = ((const sc__proc *)b)->pid;

    return (x > y) - (x < y);
}

static sc__proc *sc__proc_find(sc__proc *procs, size_t n, pid_t pid)
{
    sc__proc key = {.pid = pid};

    return n ? bsearch(&key, procs, n, sizeof(*procs), sc__cmp_proc) : NULL;
}

/*
 * Every task under procfd. *rd malloc'd. With skip (the processes PRIME saw), a process
 * found there as foreign is left out: only own and new processes are read.
 */
static int sc__read_tasks(sc__fds *c, int procfd, sc__proc *skip, size_t nskip, sc__reading **rd,
                          size_t *n)
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
        const sc__proc *seen = sc__proc_find(skip, nskip, (pid_t)atoi(de->d_name));
        if (!seen || seen->own > 0)
            rc = sc__read_process(c, procfd, de->d_name, rd, n, &cap);
    }
    closedir(dir);
    return rc;
}

/* Whether process p descends from a root (or is one), remembered along the way up. */
static int sc__is_own(const sc_sampler *s, sc__proc *procs, size_t n, sc__proc *p)
{
    sc__proc *chain[256];
    size_t depth = 0;
    int own = 0;

    while (p && p->own < 0 && depth < sizeof(chain) / sizeof(chain[0])) {
        for (size_t i = 0; i < s->nroots && p->own < 0; i++)
            if (s->roots[i] == p->pid)
                p->own = 1;
        if (p->own >= 0)
            break;
        chain[depth++] = p;
        p = p->ppid > 0 && p->ppid != p->pid ? sc__proc_find(procs, n, p->ppid) : NULL;
    }
    own = p && p->own > 0;
    while (depth)
        chain[--depth]->own = own;
    return own;
}

/* The processes of the readings, each marked own or not. malloc'd, sorted by pid. */
static sc__proc *sc__procs(const sc_sampler *s, const sc__reading *rd, size_t n, size_t *np)
{
    sc__proc *procs = calloc(n + 1, sizeof(*procs));

    *np = 0;
    if (!procs)
        return NULL;
    for (size_t i = 0; i < n; i++)
        procs[(*np)++] = (sc__proc){rd[i].pid, rd[i].ppid, -1};
    qsort(procs, *np, sizeof(*procs), sc__cmp_proc);
    size_t w = 0; /* one entry per pid */
    for (size_t i = 0; i < *np; i++)
        if (!w || procs[w - 1].pid != procs[i].pid)
            procs[w++] = procs[i];
    *np = w;
    for (size_t i = 0; i < w; i++)
        sc__is_own(s, procs, w, &procs[i]);
    return procs;
}

/* An own task's schedstat ("exec_ns run_delay_ns slices") and, when asked, its status. */
static void sc__read_own(int procfd, sc__task *t, bool status, bool baseline)
{
    char rel[96], buf[4096];
    unsigned long long exec = 0, delay = 0;

    snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", (int)t->last.pid, (int)t->last.tid);
    if (sc__read_at(procfd, rel, buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%llu %llu", &exec, &delay) == 2) {
        t->exec = exec;
        t->delay = delay;
    }
    if (status) {
        snprintf(rel, sizeof(rel), "%d/task/%d/status", (int)t->last.pid, (int)t->last.tid);
        if (sc__read_at(procfd, rel, buf, sizeof(buf)) > 0) {
            const char *v = strstr(buf, "nonvoluntary_ctxt_switches:");
            if (v)
                t->nvcsw = strtoull(v + strlen("nonvoluntary_ctxt_switches:"), NULL, 10);
            v = strstr(buf, "Cpus_allowed_list:");
            if (v) {
                v += strlen("Cpus_allowed_list:");
                v += strspn(v, " \t");
                sc__clean(t->allowed, sizeof(t->allowed), v, strcspn(v, "\n"));
            }
        }
    }
    if (baseline) {
        t->exec0 = t->exec;
        t->delay0 = t->delay;
        t->nvcsw0 = t->nvcsw;
    }
}

static long sc__cpu_index(const sc_sampler *s, int cpu)
{
    for (size_t i = 0; i < s->ncpus; i++)
        if (s->cpus[i] == cpu)
            return (long)i;
    return -1;
}

/* A foreign task's CPU time since it was last seen goes to the CPU it is on now. */
static int sc__attribute(sc_sampler *s, sc__task *t, const sc__reading *r, bool first)
{
    long idx = sc__cpu_index(s, r->cpu);
    unsigned long long prev = first ? t->ticks_base : t->last.ticks;

    if (idx < 0)
        return 0;
    if (!t->on) {
        t->on = calloc(s->ncpus, sizeof(*t->on));
        t->seen = calloc(s->ncpus, sizeof(*t->seen));
        if (!t->on || !t->seen) { /* both or neither: the readers test on alone */
            free(t->on);
            free(t->seen);
            t->on = NULL;
            t->seen = NULL;
            return -ENOMEM;
        }
    }
    if (r->ticks > prev)
        t->on[idx] += r->ticks - prev;
    if (r->state == 'R')
        t->seen[idx]++;
    return 0;
}

/* /proc/stat's lines of the accounted CPUs. */
static int sc__read_cpu_times(const sc_sampler *s, int procfd, sc__cpu_times *out)
{
    char *buf = malloc(SC__PROC_STAT_MAX);

    if (!buf)
        return -ENOMEM;
    ssize_t n = sc__read_at(procfd, "stat", buf, SC__PROC_STAT_MAX);
    for (const char *line = buf; n > 0 && strncmp(line, "cpu", 3) == 0;) {
        int cpu;
        sc__cpu_times t = {.ok = true};
        /* "cpu  <user> ..." sums every CPU: %d would skip its blanks and take the user ticks
           for a CPU number, standing in for an accounted CPU that is offline. */
        if (strspn(line + 3, "0123456789") > 0 &&
            sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &t.v[0], &t.v[1],
                   &t.v[2], &t.v[3], &t.v[4], &t.v[5], &t.v[6], &t.v[7]) == 9) {
            long idx = sc__cpu_index(s, cpu);
            if (idx >= 0)
                out[idx] = t;
        }
        line = strchr(line, '\n');
        if (!line)
            break;
        line++;
    }
    free(buf);
    return n < 0 ? (int)n : 0;
}

static long long sc__thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Folds one sample's readings into the tasks (every: the sample read every task). */
static int sc__update_tasks(sc_sampler *s, int procfd, sc_sample_kind kind, bool every,
                            sc__reading *rd, size_t n)
{
    size_t np;
    sc__proc *procs = sc__procs(s, rd, n, &np);
    bool edge = kind == SC_SAMPLE_BEGIN || kind == SC_SAMPLE_END || kind == SC_SAMPLE_END_OWN;
    bool opening = kind == SC_SAMPLE_PRIME || kind == SC_SAMPLE_BEGIN; /* tasks' base ticks */
    bool window = kind != SC_SAMPLE_PRIME && kind != SC_SAMPLE_NAMES; /* own tasks' figures */
    int rc = 0;

    if (!procs)
        return -ENOMEM;
    for (size_t i = 0; i < n && rc == 0; i++) {
        bool is_new;
        sc__task *t = sc__task_of(s, &rd[i], &is_new);
        if (!t) {
            rc = -ENOMEM;
            break;
        }
        if (is_new) {
            sc__proc *p = sc__proc_find(procs, np, rd[i].pid);
            t->own = p && p->own > 0;
            t->ticks_base = opening ? rd[i].ticks : 0;
        }
        if (t->own && window)
            sc__read_own(procfd, t, edge || is_new, kind == SC_SAMPLE_BEGIN);
        else if (!t->own && !opening)
            rc = sc__attribute(s, t, &rd[i], is_new);
        t->last = rd[i];
    }
    if (rc == 0 && every) { /* what a BEGIN or an END_OWN may skip */
        free(s->seen);
        s->seen = procs;
        s->nseen = np;
        procs = NULL;
    }
    free(procs);
    return rc;
}

/* Whether a sample of this kind may come now: 0, or -EINVAL. */
static int sc__in_order(const sc_sampler *s, sc_sample_kind kind)
{
    switch (kind) {
    case SC_SAMPLE_PRIME:
        return s->phase == 0 && !s->primed ? 0 : -EINVAL;
    case SC_SAMPLE_BEGIN:
        return s->phase == 0 ? 0 : -EINVAL;
    case SC_SAMPLE_SCAN:
    case SC_SAMPLE_END:
    case SC_SAMPLE_END_OWN:
        return s->phase == 1 ? 0 : -EINVAL;
    case SC_SAMPLE_NAMES:
        return s->phase == 3 ? 0 : -EINVAL;
    }
    return -EINVAL;
}

int sc_sampler_sample(sc_sampler *s, int procfd, sc_sample_kind kind, long long now_ns)
{
    long long t0 = sc__thread_cpu_ns();
    sc__reading *rd = NULL;
    size_t n = 0;
    int rc = sc__in_order(s, kind);

    if (rc < 0)
        return rc;
    if (kind == SC_SAMPLE_BEGIN || kind == SC_SAMPLE_END || kind == SC_SAMPLE_END_OWN) {
        rc = sc__read_cpu_times(s, procfd, kind == SC_SAMPLE_BEGIN ? s->cpu0 : s->cpu1);
        if (rc < 0)
            return rc;
    }
    /* A BEGIN after PRIME and an END_OWN skip the foreign processes seen before. */
    bool skip = (kind == SC_SAMPLE_BEGIN && s->primed) || kind == SC_SAMPLE_END_OWN;
    sc__fds_check_tree(&s->fds, procfd);
    rc = sc__read_tasks(&s->fds, procfd, skip ? s->seen : NULL, skip ? s->nseen : 0, &rd, &n);
    if (rc == 0)
        rc = sc__update_tasks(s, procfd, kind, !skip, rd, n);
    free(rd);
    if (rc < 0)
        return rc;
    long long cost = sc__thread_cpu_ns() - t0;
    s->cpu_ns += cost;
    if (!skip)
        s->full_ns = cost; /* what reading every task costs: the scans' pace */
    switch (kind) {
    case SC_SAMPLE_PRIME:
        s->primed = true;
        break;
    case SC_SAMPLE_BEGIN:
        s->begin_ns = now_ns;
        s->phase = 1;
        break;
    case SC_SAMPLE_SCAN:
        s->scans++;
        s->loop_cpu_ns += cost;
        break;
    case SC_SAMPLE_END:
    case SC_SAMPLE_END_OWN:
        s->end_ns = now_ns;
        s->phase = kind == SC_SAMPLE_END ? 2 : 3;
        break;
    case SC_SAMPLE_NAMES:
        s->phase = 2;
        break;
    }
    long long gap = s->full_ns * SC__SCAN_COST_FACTOR;
    s->next_ns = s->phase == 1 ? now_ns + (gap > SC__SCAN_MIN_NS ? gap : SC__SCAN_MIN_NS) : 0;
    return 0;
}

bool sc_sampler_quiet(const sc_sampler *s)
{
    unsigned long long foreign_ticks = 0, own_ns = 0;

    if (s->phase < 2)
        return false;
    for (size_t i = 0; i < s->ncpus; i++) {
        const sc__cpu_times *a = &s->cpu0[i], *b = &s->cpu1[i];
        if (!a->ok || !b->ok)
            return false;
        unsigned long long d[8];
        for (int v = 0; v < 8; v++)
            d[v] = b->v[v] >= a->v[v] ? b->v[v] - a->v[v] : 0;
        unsigned long long busy = d[0] + d[1] + d[2]; /* user, nice, system */
        if (d[7]) /* steal: a hypervisor ran someone else */
            return false;
        foreign_ticks += busy > 2 ? busy - 2 : 0; /* 2 ticks: the resolution, as the gate */
    }
    for (size_t i = 0; i < s->ntasks; i++) {
        const sc__task *t = &s->tasks[i];
        bool root = false;
        for (size_t r = 0; r < s->nroots; r++)
            root = root || t->last.pid == s->roots[r];
        if (t->own && !root && t->exec > t->exec0)
            own_ns += t->exec - t->exec0;
    }
    return (double)foreign_ticks * 1e9 / (double)s->clk_tck <= (double)own_ns;
}

long long sc_sampler_next_scan(const sc_sampler *s)
{
    return s->next_ns;
}

/* One intruder candidate for a CPU: index into tasks. */
typedef struct sc__rank {
    size_t task;
    unsigned long long on;
    unsigned seen;
} sc__rank;

static int sc__cmp_rank(const void *a, const void *b)
{
    const sc__rank *x = a, *y = b;

    if (x->on != y->on)
        return x->on < y->on ? 1 : -1;
    if (x->seen != y->seen)
        return x->seen < y->seen ? 1 : -1;
    return (x->task > y->task) - (x->task < y->task);
}

static int sc__emit_intruders(const sc_sampler *s, size_t idx, char *line, size_t len,
                              int (*emit)(void *, const char *), void *ctx)
{
    sc__rank *ranks = calloc(s->ntasks + 1, sizeof(*ranks));
    size_t n = 0;
    int rc = 0;

    if (!ranks)
        return -ENOMEM;
    for (size_t i = 0; i < s->ntasks; i++) {
        const sc__task *t = &s->tasks[i];
        if (!t->own && t->on && (t->on[idx] || t->seen[idx]))
            ranks[n++] = (sc__rank){i, t->on[idx], t->seen[idx]};
    }
    qsort(ranks, n, sizeof(*ranks), sc__cmp_rank);
    for (size_t i = 0; i < n && i < s->top && rc == 0; i++) {
        const sc__task *t = &s->tasks[ranks[i].task];
        snprintf(line, len,
                 SC_TRACE_INTERFERENCE_INTRUDER("%s", "%d", "%d", "%d", "%llu", "%u", "%s"),
                 s->source, s->cpus[idx], (int)t->last.pid, (int)t->last.tid, ranks[i].on,
                 ranks[i].seen, t->last.comm);
        rc = emit(ctx, line);
    }
    free(ranks);
    return rc;
}

int sc_sampler_records(const sc_sampler *s, int (*emit)(void *ctx, const char *line), void *ctx)
{
    char line[1024];
    int rc;

    if (s->phase < 2)
        return -EAGAIN;
    snprintf(line, sizeof(line),
             SC_TRACE_INTERFERENCE_WINDOW("%s", "%s", "%lld", "%ld", "%u", "%lld", "%lld", "%zu"),
             s->source, s->host, s->end_ns - s->begin_ns, s->clk_tck, s->scans, s->cpu_ns,
             s->loop_cpu_ns, s->ntasks);
    rc = emit(ctx, line);
    for (size_t i = 0; i < s->ncpus && rc == 0; i++) {
        const sc__cpu_times *a = &s->cpu0[i], *b = &s->cpu1[i];
        unsigned long long d[8];
        if (!a->ok || !b->ok)
            continue; /* offline at one end: no record, and the gate says so */
        for (int k = 0; k < 8; k++)
            d[k] = b->v[k] >= a->v[k] ? b->v[k] - a->v[k] : 0;
        snprintf(line, sizeof(line),
                 SC_TRACE_INTERFERENCE_CPU("%s", "%d", "%llu", "%llu", "%llu", "%llu", "%llu",
                                           "%llu", "%llu", "%llu"),
                 s->source, s->cpus[i], d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
        rc = emit(ctx, line);
    }
    for (size_t i = 0; i < s->ntasks && rc == 0; i++) {
        const sc__task *t = &s->tasks[i];
        if (!t->own)
            continue;
        snprintf(line, sizeof(line),
                 SC_TRACE_INTERFERENCE_TASK("%s", "%d", "%d", "%llu", "%llu", "%llu", "%s", "%s"),
                 s->source, (int)t->last.tid, (int)t->last.pid,
                 t->exec >= t->exec0 ? t->exec - t->exec0 : 0,
                 t->delay >= t->delay0 ? t->delay - t->delay0 : 0,
                 t->nvcsw >= t->nvcsw0 ? t->nvcsw - t->nvcsw0 : 0,
                 *t->allowed ? t->allowed : "unknown", t->last.comm);
        rc = emit(ctx, line);
    }
    for (size_t i = 0; i < s->ncpus && rc == 0; i++)
        rc = sc__emit_intruders(s, i, line, sizeof(line), emit, ctx);
    return rc;
}
