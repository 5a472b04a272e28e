/*
 * sampler.c: interference accounting of the CPUs a workload runs on (see sc_sampler.h and
 * doc/contracts/gates.md, "Interference"). Reads a /proc tree through a directory descriptor; keeps
 * every task it saw, so a task that ends inside the window still counts.
 */
#include "sc_sampler.h"
#include "sampler_proc.h"
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
#define SC__NAME_MAX 64

/* Every task seen in the window. */
typedef struct sc__task {
    sc_proc_reading last;
    bool own;
    unsigned long long ticks_base; /* CPU ticks when the window opened (0: born inside) */
    /* own tasks: schedstat and status at the window's start and at the last sample */
    unsigned long long exec0, delay0, nvcsw0, exec, delay, nvcsw;
    /* an own process's main thread: the process's CPU clock (every thread it had, the ended
       ones too) at the window's start and at the last sample; ok when both were read */
    unsigned long long pcpu0, pcpu;
    bool pcpu0_ok, pcpu_ok;
    unsigned sample, clock_sample; /* the last sample that read it, and its clock */
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

struct sc_sampler {
    int *cpus;
    size_t ncpus;
    pid_t *roots;
    size_t nroots;
    char source[SC__NAME_MAX], host[SC__NAME_MAX];
    size_t top;
    sc__cpu_times *cpu0, *cpu1;
    unsigned long long forks[2]; /* /proc/stat's "processes" at BEGIN and at END */
    bool forks_ok[2];
    sc__task *tasks;
    size_t ntasks, cap;
    size_t *slots; /* open addressing over (tid, start): 1 + index into tasks, 0 empty */
    size_t nslots;
    long long begin_ns, end_ns, next_ns;
    unsigned scans;
    long long cpu_ns, loop_cpu_ns, full_ns;
    unsigned samples;                  /* taken so far: the current one's number */
    unsigned long long begin_boot_tck; /* CLOCK_BOOTTIME at BEGIN, in CPU ticks (starttime's) */
    int phase;   /* 0 before BEGIN, 1 open, 2 closed, 3 closed by END_OWN (NAMES to come) */
    bool primed; /* PRIME was taken */
    sc_proc_fds fds;
    sc_proc_entry *seen; /* the processes of the last sample that read every task, by pid */
    size_t nseen;
    long clk_tck;
};

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
    sc_proc_clean(s->source, sizeof(s->source), o->source ? o->source : "sampler", SIZE_MAX);
    sc_proc_clean(s->host, sizeof(s->host), o->host ? o->host : "unknown", SIZE_MAX);
    s->top = o->top ? o->top : 3;
    s->fds.keep_none = o->no_scans;
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
    sc_proc_fds_close(&s->fds);
    free(s->tasks);
    free(s->slots);
    free(s->seen);
    free(s->cpus);
    free(s->roots);
    free(s->cpu0);
    free(s->cpu1);
    free(s);
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
static sc__task *sc__task_of(sc_sampler *s, const sc_proc_reading *r, bool *is_new)
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

/* Whether process p descends from a root (or is one), remembered along the way up. */
static int sc__is_own(const sc_sampler *s, sc_proc_entry *procs, size_t n, sc_proc_entry *p)
{
    sc_proc_entry *chain[256];
    size_t depth = 0;
    int own = 0;

    while (p && p->own < 0 && depth < sizeof(chain) / sizeof(chain[0])) {
        for (size_t i = 0; i < s->nroots && p->own < 0; i++)
            if (s->roots[i] == p->pid)
                p->own = 1;
        if (p->own >= 0)
            break;
        chain[depth++] = p;
        p = p->ppid > 0 && p->ppid != p->pid ? sc_proc_find(procs, n, p->ppid) : NULL;
    }
    own = p && p->own > 0;
    while (depth)
        chain[--depth]->own = own;
    return own;
}

int sc_sampler_set_source(sc_sampler *s, const char *source)
{
    if (s->phase != 0)
        return -EINVAL;
    sc_proc_clean(s->source, sizeof(s->source), source ? source : "sampler", SIZE_MAX);
    return 0;
}

int sc_sampler_add_root(sc_sampler *s, pid_t pid)
{
    if (s->phase != 0 || pid <= 0)
        return -EINVAL;
    for (size_t i = 0; i < s->nroots; i++)
        if (s->roots[i] == pid)
            return 0;
    if (s->nroots >= SC_SAMPLER_MAX_ROOTS)
        return -E2BIG;
    pid_t *roots = realloc(s->roots, (s->nroots + 2) * sizeof(*roots));
    if (!roots)
        return -ENOMEM;
    s->roots = roots;
    s->roots[s->nroots++] = pid;
    /* What PRIME saw is judged again: BEGIN reads the processes now own (it skips only the
       foreign ones seen), and their tasks get their baselines there as own tasks. */
    for (size_t i = 0; i < s->nseen; i++)
        s->seen[i].own = -1;
    for (size_t i = 0; i < s->nseen; i++)
        sc__is_own(s, s->seen, s->nseen, &s->seen[i]);
    for (size_t i = 0; i < s->ntasks; i++) {
        const sc_proc_entry *p = sc_proc_find(s->seen, s->nseen, s->tasks[i].last.pid);
        if (p && p->own > 0)
            s->tasks[i].own = true;
    }
    return 0;
}

/* The processes of the readings, each marked own or not. malloc'd, sorted by pid. */
static sc_proc_entry *sc__procs(const sc_sampler *s, const sc_proc_reading *rd, size_t n,
                                size_t *np)
{
    sc_proc_entry *procs = calloc(n + 1, sizeof(*procs));

    *np = 0;
    if (!procs)
        return NULL;
    for (size_t i = 0; i < n; i++)
        procs[(*np)++] = (sc_proc_entry){rd[i].pid, rd[i].ppid, -1};
    qsort(procs, *np, sizeof(*procs), sc_proc_cmp);
    size_t w = 0; /* one entry per pid */
    for (size_t i = 0; i < *np; i++)
        if (!w || procs[w - 1].pid != procs[i].pid)
            procs[w++] = procs[i];
    *np = w;
    for (size_t i = 0; i < w; i++)
        sc__is_own(s, procs, w, &procs[i]);
    return procs;
}

/* Whether procfd is the system's /proc of this process's pid namespace: its "self" is us. */
static bool sc__system_proc(int procfd)
{
    char self[32], want[32];
    ssize_t n = readlinkat(procfd, "self", self, sizeof(self) - 1);

    if (n <= 0)
        return false;
    self[n] = '\0';
    snprintf(want, sizeof(want), "%d", (int)getpid());
    return strcmp(self, want) == 0;
}

/* Clock id's time in ns, or -1 when it cannot be read. */
static long long sc__clock_ns(clockid_t id)
{
    struct timespec ts;

    if (clock_gettime(id, &ts) != 0)
        return -1;
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The CPU clock of process pid (every thread's time, those that ended included), in *ns:
 * 0, or -1 when it cannot be read (gone). From the kernel, not a /proc file: only for the
 * system's own /proc (clock), never for a tree of files standing in for one.
 */
static int sc__process_cpu(pid_t pid, unsigned long long *ns)
{
    clockid_t id;
    long long v = clock_getcpuclockid(pid, &id) == 0 ? sc__clock_ns(id) : -1;

    if (v < 0)
        return -1;
    *ns = (unsigned long long)v;
    return 0;
}

/* An own task's schedstat ("exec_ns run_delay_ns slices") and, when asked, its status. On the
   system's /proc (clock), the sampling thread's own CPU time comes from its clock: schedstat
   has a running thread's time only up to the scheduler's last tick, a process's clock has it
   all, and the two are compared (sc__exited_ns). */
static void sc__read_own(int procfd, sc__task *t, bool status, bool baseline, bool clock)
{
    char rel[96], buf[4096];
    unsigned long long exec = 0, delay = 0;

    snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", (int)t->last.pid, (int)t->last.tid);
    if (sc_proc_read_at(procfd, rel, buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%llu %llu", &exec, &delay) == 2) {
        t->exec = exec;
        t->delay = delay;
    }
    if (clock && t->last.tid == gettid() && t->last.pid == getpid())
        t->exec = (unsigned long long)sc__clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (status) {
        snprintf(rel, sizeof(rel), "%d/task/%d/status", (int)t->last.pid, (int)t->last.tid);
        if (sc_proc_read_at(procfd, rel, buf, sizeof(buf)) > 0) {
            const char *v = strstr(buf, "nonvoluntary_ctxt_switches:");
            if (v)
                t->nvcsw = strtoull(v + strlen("nonvoluntary_ctxt_switches:"), NULL, 10);
            v = strstr(buf, "Cpus_allowed_list:");
            if (v) {
                v += strlen("Cpus_allowed_list:");
                v += strspn(v, " \t");
                sc_proc_clean(t->allowed, sizeof(t->allowed), v, strcspn(v, "\n"));
            }
        }
    }
    if (baseline) {
        t->exec0 = t->exec;
        t->delay0 = t->delay;
        t->nvcsw0 = t->nvcsw;
    }
}

/*
 * The CPU clocks of the own processes (their main threads' tasks). At BEGIN after their
 * tasks' schedstat (pass 1 only, the baseline); at a later sample before them (pass 0: the
 * processes the sample before saw) and, for a process first seen in it, after (pass 1).
 * Threads that run on between the readings then count in their tasks' exec, never in what
 * the clock adds beyond it (sc__exited_ns). A main thread this sample did not see (gone;
 * its pid may be another process's now) has no clock.
 */
static void sc__read_clocks(sc_sampler *s, bool baseline, int pass)
{
    for (size_t i = 0; i < s->ntasks; i++) {
        sc__task *t = &s->tasks[i];
        if (!t->own || t->last.tid != t->last.pid)
            continue;
        if (pass == 1 && t->sample != s->samples) {
            t->pcpu_ok = false; /* not seen by this sample */
            continue;
        }
        if (t->clock_sample == s->samples || (pass == 0 && t->sample != s->samples - 1))
            continue; /* read in pass 0; or, in pass 0, not seen by the sample before */
        t->clock_sample = s->samples;
        t->pcpu_ok = sc__process_cpu(t->last.pid, &t->pcpu) == 0;
        if (baseline) {
            t->pcpu0 = t->pcpu;
            t->pcpu0_ok = t->pcpu_ok;
        }
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
static int sc__attribute(sc_sampler *s, sc__task *t, const sc_proc_reading *r, bool first)
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
static int sc__read_cpu_times(const sc_sampler *s, int procfd, sc__cpu_times *out,
                              unsigned long long *forks, bool *forks_ok)
{
    char *buf = malloc(SC__PROC_STAT_MAX);

    if (!buf)
        return -ENOMEM;
    ssize_t n = sc_proc_read_at(procfd, "stat", buf, SC__PROC_STAT_MAX);
    const char *processes = n > 0 ? strstr(buf, "\nprocesses ") : NULL;
    *forks_ok = processes && sscanf(processes, "\nprocesses %llu", forks) == 1;
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

/* Folds one sample's readings into the tasks (every: the sample read every task; clock:
   procfd is the system's /proc, sc__system_proc()). */
static int sc__update_tasks(sc_sampler *s, int procfd, sc_sample_kind kind, bool every, bool clock,
                            sc_proc_reading *rd, size_t n)
{
    size_t np;
    sc_proc_entry *procs = sc__procs(s, rd, n, &np);
    bool edge = kind == SC_SAMPLE_BEGIN || kind == SC_SAMPLE_END || kind == SC_SAMPLE_END_OWN;
    bool opening = kind == SC_SAMPLE_PRIME || kind == SC_SAMPLE_BEGIN; /* tasks' base ticks */
    bool window = kind != SC_SAMPLE_PRIME && kind != SC_SAMPLE_NAMES;  /* own tasks' figures */
    int rc = 0;

    if (!procs)
        return -ENOMEM;
    s->samples++;
    if (kind == SC_SAMPLE_BEGIN) {
        struct timespec b;
        clock_gettime(CLOCK_BOOTTIME, &b);
        s->begin_boot_tck =
            (unsigned long long)b.tv_sec * (unsigned long long)s->clk_tck +
            (unsigned long long)b.tv_nsec * (unsigned long long)s->clk_tck / 1000000000ull;
    }
    if (clock && window && kind != SC_SAMPLE_BEGIN)
        sc__read_clocks(s, false, 0);
    for (size_t i = 0; i < n && rc == 0; i++) {
        bool is_new;
        sc__task *t = sc__task_of(s, &rd[i], &is_new);
        if (!t) {
            rc = -ENOMEM;
            break;
        }
        if (is_new) {
            sc_proc_entry *p = sc_proc_find(procs, np, rd[i].pid);
            t->own = p && p->own > 0;
            t->ticks_base = opening ? rd[i].ticks : 0;
            /* a process first seen after BEGIN and started since: its clock counts from 0
               (one seen at PRIME or BEGIN gets its baseline at BEGIN) */
            t->pcpu0_ok = !opening && rd[i].start >= s->begin_boot_tck;
        }
        t->sample = s->samples;
        if (t->own && window)
            sc__read_own(procfd, t, edge || is_new, kind == SC_SAMPLE_BEGIN, clock);
        else if (!t->own && !opening)
            rc = sc__attribute(s, t, &rd[i], is_new);
        t->last = rd[i];
    }
    if (rc == 0 && clock && window)
        sc__read_clocks(s, kind == SC_SAMPLE_BEGIN, 1);
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
    long long t0 = sc__clock_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = sc__clock_ns(CLOCK_MONOTONIC);
    sc_proc_reading *rd = NULL;
    size_t n = 0;
    int rc = sc__in_order(s, kind);

    if (rc < 0)
        return rc;
    if (kind == SC_SAMPLE_BEGIN || kind == SC_SAMPLE_END || kind == SC_SAMPLE_END_OWN) {
        int end = kind != SC_SAMPLE_BEGIN;
        rc = sc__read_cpu_times(s, procfd, end ? s->cpu1 : s->cpu0, &s->forks[end],
                                &s->forks_ok[end]);
        if (rc < 0)
            return rc;
    }
    /* A BEGIN after PRIME and an END_OWN skip the foreign processes seen before. */
    bool skip = (kind == SC_SAMPLE_BEGIN && s->primed) || kind == SC_SAMPLE_END_OWN;
    bool clock = sc__system_proc(procfd);
    sc_proc_fds_check_tree(&s->fds, procfd);
    rc = sc_proc_read_tasks(&s->fds, procfd, skip ? s->seen : NULL, skip ? s->nseen : 0, &rd, &n);
    if (rc == 0)
        rc = sc__update_tasks(s, procfd, kind, !skip, clock, rd, n);
    free(rd);
    if (rc < 0)
        return rc;
    long long cost = sc__clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
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
        /* On the system's /proc the window ends when the last task has been read: the tasks'
           times run on while the sample reads them, and the window must hold them all. */
        s->end_ns = now_ns + (clock ? sc__clock_ns(CLOCK_MONOTONIC) - wall0 : 0);
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

/*
 * The CPU time of the threads of own process l (its main thread's task) that ended inside
 * the window, or were never read: the process's CPU clock's advance less its tasks' exec.
 * 0 when not known (no clock, or l is no process's main thread).
 */
static unsigned long long sc__exited_ns(const sc_sampler *s, const sc__task *l)
{
    unsigned long long live = 0;

    if (!l->own || l->last.tid != l->last.pid || !l->pcpu_ok || !l->pcpu0_ok || l->pcpu < l->pcpu0)
        return 0;
    for (size_t i = 0; i < s->ntasks; i++) {
        const sc__task *t = &s->tasks[i];
        if (t->own && t->last.pid == l->last.pid && t->exec > t->exec0)
            live += t->exec - t->exec0;
    }
    return l->pcpu - l->pcpu0 > live ? l->pcpu - l->pcpu0 - live : 0;
}

/* The CPUs an own process's threads may run on, as its tasks say, when they all say the
   same; "unknown" (any CPU) otherwise: what its ended threads may have used. */
static const char *sc__process_allowed(const sc_sampler *s, const sc__task *l)
{
    const char *allowed = NULL;

    for (size_t i = 0; i < s->ntasks; i++) {
        const sc__task *t = &s->tasks[i];
        if (!t->own || t->last.pid != l->last.pid)
            continue;
        if (!*t->allowed || (allowed && strcmp(allowed, t->allowed) != 0))
            return "unknown";
        allowed = t->allowed;
    }
    return allowed ? allowed : "unknown";
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
        if (d[7])                                     /* steal: a hypervisor ran someone else */
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
        if (!root)
            own_ns += sc__exited_ns(s, t);
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
    int used = snprintf(
        line, sizeof(line),
        SC_TRACE_INTERFERENCE_WINDOW("%s", "%s", "%lld", "%ld", "%u", "%lld", "%lld", "%zu"),
        s->source, s->host, s->end_ns - s->begin_ns, s->clk_tck, s->scans, s->cpu_ns,
        s->loop_cpu_ns, s->ntasks);
    if (s->forks_ok[0] && s->forks_ok[1] && s->forks[1] >= s->forks[0] && used > 0 &&
        (size_t)used < sizeof(line))
        snprintf(line + used, sizeof(line) - (size_t)used,
                 SC_TRACE_INTERFERENCE_WINDOW_FORKS("%llu"), s->forks[1] - s->forks[0]);
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
    for (size_t i = 0; i < s->ntasks && rc == 0; i++) {
        unsigned long long gone = sc__exited_ns(s, &s->tasks[i]);
        if (!gone)
            continue;
        snprintf(line, sizeof(line), SC_TRACE_INTERFERENCE_EXITED("%s", "%d", "%llu", "%s", "%s"),
                 s->source, (int)s->tasks[i].last.pid, gone, sc__process_allowed(s, &s->tasks[i]),
                 s->tasks[i].last.comm);
        rc = emit(ctx, line);
    }
    for (size_t i = 0; i < s->ncpus && rc == 0; i++)
        rc = sc__emit_intruders(s, i, line, sizeof(line), emit, ctx);
    return rc;
}
