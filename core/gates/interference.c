/*
 * interference.c: the samplers' records read back, the foreign share of each accounted CPU,
 * the interference gate and results.json's summary (see sc_interference.h).
 */
#include "sc_interference.h"
#include "sc_bounds.h"
#include "sc_cpulist.h"
#include "sc_trace_protocol.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends item to a growing array when ok: 1 kept, 0 not ok (malformed), -ENOMEM. */
static int sc__keep(bool ok, void **arr, size_t *n, const void *item, size_t size)
{
    if (!ok)
        return 0;
    if ((*n & (*n - 1)) == 0) { /* at 0, 1, 2, 4, ...: double */
        void *g = realloc(*arr, (*n ? *n * 2 : 4) * size);
        if (!g)
            return -ENOMEM;
        *arr = g;
    }
    memcpy((char *)*arr + *n * size, item, size);
    (*n)++;
    return 1;
}

static bool sc__tagged(const char *line, const char *tag)
{
    return strncmp(line, tag, strlen(tag)) == 0;
}

/* Whether every number of a record line is unsigned: sscanf's %llu and %u take "-1" and
   wrap it. The words that are not numbers: the tag, source, host, allowed, comm. */
static bool sc__unsigned_numbers(const char *line)
{
    static const char *const words[] = {"source=", "host=", "allowed=", "comm="};

    for (const char *p = strchr(line, ' '); p; p = strchr(p + 1, ' ')) {
        const char *eq = strchr(p + 1, '='), *next = strchr(p + 1, ' ');
        bool text = false;
        if (!eq || (next && eq > next))
            continue;
        for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
            text = text || !strncmp(p + 1, words[i], strlen(words[i]));
        if (!text && (eq[1] < '0' || eq[1] > '9'))
            return false;
    }
    return true;
}

/* Parses one record line into rec: 1 parsed, 0 malformed, -ENOMEM. A record must be read
   to its last byte, its numbers unsigned. */
static int sc__parse_record(const char *line, sc_interference *rec)
{
    int used = -1, len = (int)strlen(line);

    if (!sc__unsigned_numbers(line))
        return 0;

    if (sc__tagged(line, SC_TRACE_TAG_INTERFERENCE_WINDOW)) {
        sc_intf_window w = {.forks = -1};
        sscanf(line,
               SC_TRACE_INTERFERENCE_WINDOW(
                   "%31s", "%63s", "%lld", "%ld", "%u", "%lld", "%lld",
                   "%llu") "%n" SC_TRACE_INTERFERENCE_WINDOW_FORKS("%lld") "%n",
               w.source, w.host, &w.ns, &w.clk_tck, &w.scans, &w.cpu_ns, &w.loop_cpu_ns, &w.tasks,
               &used, &w.forks, &used);
        return sc__keep(used == len && w.clk_tck > 0 && w.ns >= 0, (void **)&rec->windows,
                        &rec->n_windows, &w, sizeof(w));
    }
    if (sc__tagged(line, SC_TRACE_TAG_INTERFERENCE_CPU)) {
        sc_intf_cpu c = {0};
        sscanf(line,
               SC_TRACE_INTERFERENCE_CPU("%31s", "%d", "%llu", "%llu", "%llu", "%llu", "%llu",
                                         "%llu", "%llu", "%llu") "%n",
               c.source, &c.cpu, &c.user, &c.nice, &c.system, &c.idle, &c.iowait, &c.irq,
               &c.softirq, &c.steal, &used);
        return sc__keep(used == len && c.cpu >= 0, (void **)&rec->cpus, &rec->n_cpus, &c,
                        sizeof(c));
    }
    if (sc__tagged(line, SC_TRACE_TAG_INTERFERENCE_TASK)) {
        sc_intf_task t = {0};
        sscanf(line,
               SC_TRACE_INTERFERENCE_TASK("%31s", "%d", "%d", "%llu", "%llu", "%llu", "%255s",
                                          "%15s") "%n",
               t.source, &t.tid, &t.pid, &t.exec_ns, &t.delay_ns, &t.nvcsw, t.allowed, t.comm,
               &used);
        return sc__keep(used == len, (void **)&rec->tasks, &rec->n_tasks, &t, sizeof(t));
    }
    if (sc__tagged(line, SC_TRACE_TAG_INTERFERENCE_EXITED)) {
        sc_intf_task t = {.exited = true};
        sscanf(line, SC_TRACE_INTERFERENCE_EXITED("%31s", "%d", "%llu", "%255s", "%15s") "%n",
               t.source, &t.pid, &t.exec_ns, t.allowed, t.comm, &used);
        return sc__keep(used == len && t.pid > 0, (void **)&rec->tasks, &rec->n_tasks, &t,
                        sizeof(t));
    }
    if (sc__tagged(line, SC_TRACE_TAG_INTERFERENCE_INTRUDER)) {
        sc_intf_intruder x = {0};
        sscanf(line,
               SC_TRACE_INTERFERENCE_INTRUDER("%31s", "%d", "%d", "%d", "%llu", "%u", "%15s") "%n",
               x.source, &x.cpu, &x.pid, &x.tid, &x.ticks, &x.seen, x.comm, &used);
        return sc__keep(used == len, (void **)&rec->intruders, &rec->n_intruders, &x, sizeof(x));
    }
    return 0;
}

/* a x b, saturating at SIZE_MAX. */
static size_t sc__times(size_t a, size_t b)
{
    return a && b > SIZE_MAX / a ? SIZE_MAX : a * b;
}

/* Whether rec's records are beyond limits; what into rec->over_text. */
static bool sc__over(sc_interference *rec, const sc_interference_limits *lim)
{
    size_t cpus = sc__times(lim->windows, lim->cpus_per_window);

    if (rec->n_windows > lim->windows)
        snprintf(rec->over_text, sizeof(rec->over_text),
                 "more sampler windows than the %zu the card has samplers for", lim->windows);
    else if (rec->n_cpus > cpus)
        snprintf(rec->over_text, sizeof(rec->over_text),
                 "more CPU records than the %zu CPUs its samplers account", cpus);
    else if (rec->n_tasks > sc__times(lim->windows, lim->tasks_per_window))
        snprintf(rec->over_text, sizeof(rec->over_text), "more task records than %zu per sampler",
                 lim->tasks_per_window);
    else if (rec->n_intruders > sc__times(cpus, lim->intruders_per_cpu))
        snprintf(rec->over_text, sizeof(rec->over_text), "more intruder records than %zu per CPU",
                 lim->intruders_per_cpu);
    else
        return false;
    return true;
}

int sc_interference_parse_bounded(const char *text, const sc_interference_limits *limits,
                                  sc_interference *rec)
{
    char line[1024];
    long number = 0;

    for (const char *p = text; p && *p && !rec->over_line;) {
        size_t n = strcspn(p, "\n");
        number++;
        if (!strncmp(p, SC_TRACE_TAG_INTERFERENCE, strlen(SC_TRACE_TAG_INTERFERENCE))) {
            int rc = 0;
            if (n < sizeof(line)) {
                memcpy(line, p, n);
                line[n] = '\0';
                if (n && line[n - 1] == '\r')
                    line[n - 1] = '\0';
                rc = sc__parse_record(line, rec);
            }
            if (rc < 0)
                return rc;
            if (rc == 0 && !rec->malformed_line)
                rec->malformed_line = number;
            if (rc > 0 && sc__over(rec, limits)) /* no record past it is read */
                rec->over_line = number;
        }
        p += n + (p[n] == '\n');
    }
    return 0;
}

int sc_interference_parse(const char *text, sc_interference *rec)
{
    static const sc_interference_limits none = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};

    return sc_interference_parse_bounded(text, &none, rec);
}

int sc_interference_load(const sc_card *card, const char *interference_txt, const char *log,
                         sc_interference *rec)
{
    sc_tracelog_limits lines;
    sc_interference_limits limits;

    sc_bounds_of(card, &lines, &limits);
    int rc = sc_interference_parse_bounded(interference_txt ? interference_txt : "", &limits, rec);
    if (rc == 0 && sc_workload_mpi(card) && log)
        rc = sc_interference_parse_bounded(log, &limits, rec);
    return rc;
}

void sc_interference_free(sc_interference *rec)
{
    if (!rec)
        return;
    free(rec->windows);
    free(rec->cpus);
    free(rec->tasks);
    free(rec->intruders);
    memset(rec, 0, sizeof(*rec));
}

/* The source of the observer's own records (core/capture/observe.c). */
#define SC__OBSERVER "observer"

static const sc_intf_window *sc__window_of(const sc_interference *rec, const char *source)
{
    for (size_t i = 0; i < rec->n_windows; i++)
        if (!strcmp(rec->windows[i].source, source))
            return &rec->windows[i];
    return NULL;
}

/* Whether a task may run on cpu (an affinity that cannot be read: anywhere), and only there. */
static void sc__task_on(const sc_intf_task *t, int cpu, hwloc_bitmap_t set, bool *may, bool *only)
{
    if (sc_cpulist_parse(t->allowed, set, NULL, 0) < 0) {
        *may = true;
        *only = false;
        return;
    }
    *may = hwloc_bitmap_isset(set, (unsigned)cpu);
    *only = *may && hwloc_bitmap_weight(set) == 1;
}

/* The foreign time of one CPU record (see sc_interference.h). */
static int sc__share(const sc_interference *rec, const sc_intf_cpu *c, sc_intf_share *s)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    double own_may = 0, waited = 0;

    if (!set)
        return -ENOMEM;
    memset(s, 0, sizeof(*s));
    s->cpu = c;
    s->window = sc__window_of(rec, c->source);
    s->share_pct = -1;
    /* The job's CPU time that may have been spent on c, and the longest wait of a task
       pinned there (its own CPU time, which the others' excludes, added back below). */
    double longest = -1, longest_exec = 0;
    for (size_t i = 0; i < rec->n_tasks; i++) {
        const sc_intf_task *t = &rec->tasks[i];
        bool may, only;
        if (strcmp(t->source, c->source) != 0)
            continue;
        sc__task_on(t, c->cpu, set, &may, &only);
        if (may)
            own_may += (double)t->exec_ns;
        if (only && (double)t->delay_ns + (double)t->exec_ns > longest + longest_exec) {
            longest = (double)t->delay_ns;
            longest_exec = (double)t->exec_ns;
        }
    }
    if (longest >= 0 && longest - (own_may - longest_exec) > 0)
        waited = longest - (own_may - longest_exec);
    hwloc_bitmap_free(set);
    for (size_t i = 0; i < rec->n_intruders && !s->top; i++)
        if (!strcmp(rec->intruders[i].source, c->source) && rec->intruders[i].cpu == c->cpu)
            s->top = &rec->intruders[i];
    if (!s->window || s->window->ns <= 0)
        return 0;
    double tick = 1e9 / (double)s->window->clk_tck;
    double busy = (double)(c->user + c->nice + c->system) * tick - own_may - 2 * tick;
    double steal = c->steal > 0 ? (double)(c->steal - 1) * tick : 0;
    s->waited_ms = waited / 1e6;
    s->busy_foreign_ms = (busy > 0 ? busy : 0) / 1e6;
    s->steal_ms = steal / 1e6;
    s->irq_ms = (double)c->irq * tick / 1e6;
    s->softirq_ms = (double)c->softirq * tick / 1e6;
    double foreign = (waited > busy ? waited : busy > 0 ? busy : 0) + steal;
    s->share_pct = 100 * foreign / (double)s->window->ns;
    if (s->share_pct > 100)
        s->share_pct = 100;
    return 0;
}

int sc_interference_shares(const sc_interference *rec, sc_intf_share **shares, size_t *n)
{
    *n = 0;
    *shares = calloc(rec->n_cpus + 1, sizeof(**shares));
    if (!*shares)
        return -ENOMEM;
    for (size_t i = 0; i < rec->n_cpus; i++)
        if (sc__share(rec, &rec->cpus[i], &(*shares)[(*n)++]) < 0) {
            free(*shares);
            *shares = NULL;
            *n = 0;
            return -ENOMEM;
        }
    return 0;
}

/* The share of cpu: from source (when given; else from any rank's sampler, not the
   observer) of host (when given). */
static const sc_intf_share *sc__find(const sc_intf_share *sh, size_t n, const char *source,
                                     const char *host, long cpu)
{
    for (size_t i = 0; i < n; i++) {
        if (sh[i].cpu->cpu != cpu || !sh[i].window || sh[i].share_pct < 0)
            continue;
        if (source ? strcmp(sh[i].cpu->source, source) != 0
                   : !strcmp(sh[i].cpu->source, SC__OBSERVER))
            continue;
        if (host && strcmp(sh[i].window->host, host) != 0)
            continue;
        return &sh[i];
    }
    return NULL;
}

/* "cpu 1" or "cpu 1 of n02" (MPI: the rank's host). */
static void sc__cpu_name(const sc_intf_share *s, bool host, char *buf, size_t len)
{
    if (host)
        snprintf(buf, len, "cpu %d of %s", s->cpu->cpu, s->window->host);
    else
        snprintf(buf, len, "cpu %d", s->cpu->cpu);
}

/* A length of time in ms as the gate's notes say it: "0 ms", "0.12 ms" (a main loop of a few
   ms is judged on tenths of one), "480 ms", "1.00 s". */
static const char *sc__span(double ms, char *buf, size_t len)
{
    if (ms <= 0)
        snprintf(buf, len, "0 ms");
    else if (ms < 10)
        snprintf(buf, len, "%.2f ms", ms);
    else if (ms < 1000)
        snprintf(buf, len, "%.0f ms", ms);
    else
        snprintf(buf, len, "%.2f s", ms / 1000);
    return buf;
}

static void sc__judge(const sc_card *card, const sc_intf_share **need, size_t n, bool mpi,
                      sc_gate *g)
{
    const sc_intf_share *worst = NULL;
    char name[160], top[160] = "no foreign task seen on it";

    for (size_t i = 0; i < n; i++)
        if (!worst || need[i]->share_pct > worst->share_pct)
            worst = need[i];
    if (!worst) {
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no CPU was accounted");
        return;
    }
    sc__cpu_name(worst, mpi, name, sizeof(name));
    if (worst->top)
        snprintf(top, sizeof(top), "top intruder %s, pid %d, %.2f s", worst->top->comm,
                 worst->top->pid, (double)worst->top->ticks / (double)worst->window->clk_tck);
    else if (worst->window->forks >= 0) /* a process that came and went between two samples */
        snprintf(top, sizeof(top),
                 "no foreign task seen on it; %lld process%s started on %s in "
                 "the window",
                 worst->window->forks, worst->window->forks == 1 ? "" : "es", worst->window->host);
    char window[32], waited[32], busy[32], steal[32];
    sc__span((double)worst->window->ns / 1e6, window, sizeof(window));
    if (worst->share_pct > card->expect_max_interference_pct)
        sc_gate_set(g, SC_GATE_FAIL,
                    "%s: %.1f%% of the %s main loop was foreign work (waited %s, busy %s, steal "
                    "%s; %s), over max_interference_pct %g",
                    name, worst->share_pct, window,
                    sc__span(worst->waited_ms, waited, sizeof(waited)),
                    sc__span(worst->busy_foreign_ms, busy, sizeof(busy)),
                    sc__span(worst->steal_ms, steal, sizeof(steal)), top,
                    card->expect_max_interference_pct);
    else
        sc_gate_set(g, SC_GATE_OK,
                    "foreign share at most %.1f%% (%s) of the %s main loop, within "
                    "max_interference_pct %g",
                    worst->share_pct, name, window, card->expect_max_interference_pct);
}

/*
 * An MPI program marked by patterns (sc_workload_observer_window): which window the ranks'
 * shares are of, after the gate's note. The observer's over the card's patterns for the
 * ranks whose tasks it recorded as the job's own (mpirun's children, srun's ranks it adopted:
 * sc_observe_opts.adopt_ranks), their own for the others: on other hosts, or on its host but
 * not among its tasks; without the observer's window, all their own.
 */
typedef struct sc__rank_windows {
    size_t patterns, other_hosts, not_tasks;
} sc__rank_windows;

static void sc__windows_note(const sc_intf_window *obs, const sc__rank_windows *w, sc_gate *g)
{
    size_t used = strlen(g->note);
    char own[256] = "";

    if (used >= sizeof(g->note))
        return;
    if (!obs) {
        snprintf(g->note + used, sizeof(g->note) - used,
                 "; the ranks' interference windows: %zu their own (no observer's window over "
                 "the card's patterns)",
                 w->other_hosts + w->not_tasks);
        return;
    }
    if (w->other_hosts && w->not_tasks)
        snprintf(own, sizeof(own),
                 ", %zu from their own (other hosts), %zu from their own (on %s, "
                 "not among the observer's tasks)",
                 w->other_hosts, w->not_tasks, obs->host);
    else if (w->other_hosts)
        snprintf(own, sizeof(own), ", %zu from their own (other hosts)", w->other_hosts);
    else if (w->not_tasks)
        snprintf(own, sizeof(own), ", %zu from their own (on %s, not among the observer's tasks)",
                 w->not_tasks, obs->host);
    snprintf(g->note + used, sizeof(g->note) - used,
             "; the ranks' interference windows: %zu from the card's patterns (the observer's on "
             "%s)%s",
             w->patterns, obs->host, own);
}

/* Whether the observer recorded a task of process pid as the job's own. */
static bool sc__observer_task(const sc_interference *rec, long pid)
{
    for (size_t i = 0; i < rec->n_tasks; i++)
        if (rec->tasks[i].pid == pid && !rec->tasks[i].exited &&
            !strcmp(rec->tasks[i].source, SC__OBSERVER))
            return true;
    return false;
}

void sc_interference_gate(const sc_card *card, const sc_interference *rec, const sc_tracelog *t,
                          sc_gate *g)
{
    sc_intf_share *sh = NULL;
    size_t n = 0, k = 0;
    bool mpi = sc_workload_mpi(card);

    if (!card->interference_accounting) {
        sc_gate_set(g, SC_GATE_NULL, "the card turns interference_accounting off");
        return;
    }
    if (rec->malformed_line) {
        sc_gate_set(g, SC_GATE_FAIL, "malformed interference record at line %ld",
                    rec->malformed_line);
        return;
    }
    if (rec->over_line) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: interference record at line %ld: %s (not read "
                    "further)",
                    rec->over_line, rec->over_text);
        return;
    }
    if (sc_interference_shares(rec, &sh, &n) < 0) {
        sc_gate_set(g, SC_GATE_FAIL, "out of memory");
        return;
    }
    size_t want = mpi ? t->n_rank_bindings : (size_t)hwloc_bitmap_weight(card->cpus);
    const sc_intf_share **need = calloc(want + 1, sizeof(const sc_intf_share *));
    if (!need) {
        sc_gate_set(g, SC_GATE_FAIL, "out of memory");
        goto out;
    }
    if (mpi && !want) {
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no rank reported its CPU");
        goto out;
    }
    /* a program marked by patterns: the observer's window stands for the ranks on its host */
    bool patterns = mpi && sc_workload_observer_window(card);
    const sc_intf_window *obs = patterns ? sc__window_of(rec, SC__OBSERVER) : NULL;
    sc__rank_windows windows = {0};
    for (size_t i = 0; mpi && i < want; i++) {
        const sc_rank_binding *rb = &t->rank_bindings[i];
        bool on_host = obs && !strcmp(obs->host, rb->host);
        bool here = on_host && sc__observer_task(rec, rb->pid);
        if (!(need[k++] = sc__find(sh, n, here ? SC__OBSERVER : NULL, rb->host, rb->cpu))) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: no interference record of rank %ld's cpu "
                        "%ld of %s%s",
                        rb->rank, rb->cpu, rb->host,
                        here ? " in interference.txt (the observer's, over the card's patterns)"
                             : "");
            goto out;
        }
        windows.patterns += here;
        windows.other_hosts += !on_host;
        windows.not_tasks += on_host && !here;
    }
    for (int c = mpi ? -1 : hwloc_bitmap_first(card->cpus); c >= 0;
         c = hwloc_bitmap_next(card->cpus, c)) {
        if (!(need[k++] = sc__find(sh, n, "observer", NULL, c))) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: no interference record of cpu %d in "
                        "interference.txt",
                        c);
            goto out;
        }
    }
    sc__judge(card, need, k, mpi, g);
    if (patterns)
        sc__windows_note(obs, &windows, g);
out:
    free(need);
    free(sh);
}

static void sc__add_num(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_object_new_double(round(v * 1000) / 1000));
}

static json_object *sc__share_json(const sc_intf_share *s)
{
    json_object *o = json_object_new_object(), *top = NULL;

    json_object_object_add(o, "host", json_object_new_string(s->window ? s->window->host : ""));
    json_object_object_add(o, "source", json_object_new_string(s->cpu->source));
    json_object_object_add(o, "cpu", json_object_new_int(s->cpu->cpu));
    sc__add_num(o, "window_s", s->window ? (double)s->window->ns / 1e9 : 0);
    sc__add_num(o, "share_pct", s->share_pct);
    sc__add_num(o, "waited_ms", s->waited_ms);
    sc__add_num(o, "busy_foreign_ms", s->busy_foreign_ms);
    sc__add_num(o, "steal_ms", s->steal_ms);
    sc__add_num(o, "irq_ms", s->irq_ms);
    sc__add_num(o, "softirq_ms", s->softirq_ms);
    if (s->top && s->window) {
        top = json_object_new_object();
        json_object_object_add(top, "comm", json_object_new_string(s->top->comm));
        json_object_object_add(top, "pid", json_object_new_int(s->top->pid));
        json_object_object_add(top, "tid", json_object_new_int(s->top->tid));
        sc__add_num(top, "cpu_ms", 1000.0 * (double)s->top->ticks / (double)s->window->clk_tck);
        json_object_object_add(top, "seen", json_object_new_int64(s->top->seen));
    }
    json_object_object_add(o, "top_intruder", top);
    return o;
}

json_object *sc_interference_json(const sc_card *card, const sc_interference *rec)
{
    json_object *root = json_object_new_object(), *cpus = json_object_new_array();
    json_object *tasks = json_object_new_array(), *samplers = json_object_new_array();
    sc_intf_share *sh = NULL;
    size_t n = 0;

    if (!root || !cpus || !tasks || !samplers || sc_interference_shares(rec, &sh, &n) < 0) {
        json_object_put(root);
        json_object_put(cpus);
        json_object_put(tasks);
        json_object_put(samplers);
        return NULL;
    }
    json_object_object_add(root, "accounting",
                           json_object_new_string(card->interference_accounting ? "on" : "off"));
    json_object_object_add(root, "max_interference_pct",
                           json_object_new_double(card->expect_max_interference_pct));
    for (size_t i = 0; i < n; i++)
        json_object_array_add(cpus, sc__share_json(&sh[i]));
    for (size_t i = 0; i < rec->n_tasks; i++) {
        const sc_intf_task *t = &rec->tasks[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "source", json_object_new_string(t->source));
        json_object_object_add(o, "tid", json_object_new_int(t->tid));
        json_object_object_add(o, "pid", json_object_new_int(t->pid));
        json_object_object_add(o, "comm", json_object_new_string(t->comm));
        json_object_object_add(o, "allowed", json_object_new_string(t->allowed));
        sc__add_num(o, "exec_ms", (double)t->exec_ns / 1e6);
        sc__add_num(o, "run_delay_ms", (double)t->delay_ns / 1e6);
        json_object_object_add(o, "nvcsw", json_object_new_int64((int64_t)t->nvcsw));
        if (t->exited) /* the process's threads that ended in the window, together */
            json_object_object_add(o, "exited_threads", json_object_new_boolean(1));
        json_object_array_add(tasks, o);
    }
    for (size_t i = 0; i < rec->n_windows; i++) {
        const sc_intf_window *w = &rec->windows[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "source", json_object_new_string(w->source));
        json_object_object_add(o, "host", json_object_new_string(w->host));
        sc__add_num(o, "window_s", (double)w->ns / 1e9);
        json_object_object_add(o, "scans", json_object_new_int64(w->scans));
        sc__add_num(o, "cpu_ms", (double)w->cpu_ns / 1e6);
        sc__add_num(o, "loop_cpu_ms", (double)w->loop_cpu_ns / 1e6);
        sc__add_num(o, "cost_pct", w->ns > 0 ? 100.0 * (double)w->loop_cpu_ns / (double)w->ns : 0);
        if (w->forks >= 0)
            json_object_object_add(o, "forks", json_object_new_int64(w->forks));
        json_object_array_add(samplers, o);
    }
    json_object_object_add(root, "cpus", cpus);
    json_object_object_add(root, "tasks", tasks);
    json_object_object_add(root, "samplers", samplers);
    free(sh);
    return root;
}
