/* gates.c: the acceptance gates from raw evidence (see sc_gates.h). */
#include "sc_gates.h"
#include "sc_bounds.h"
#include "sc_transport_gate.h"
#include "sc_cpulist.h"
#include "sc_interference.h"
#include "sc_kv.h"
#include "sc_numa_maps.h"
#include "sc_platform_gate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI: the card's ranks; 0 (pairs: all over the allocation's nodes, known only when the
   job runs) takes the count the communicator had, when that makes at least one pair. */
static long sc__card_ranks(const sc_card *card, const sc_tracelog *t)
{
    if (card->ranks > 0)
        return card->ranks;
    return t->ranks_requested >= 2 ? t->ranks_requested : 2;
}

/* MPI: the ranks the communicator has and the ranks that reported, against the card. */
static void sc__gate_rank_count(const sc_card *card, const sc_tracelog *t, sc_gate *g)
{
    long ranks = sc__card_ranks(card, t);

    if (t->ranks_requested < 0 || t->ranks_counted < 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: the log has no \"Number of Ranks "
                    "requested/counted\" lines");
    else if (t->ranks_requested != ranks || t->ranks_counted != ranks)
        sc_gate_set(g, SC_GATE_FAIL, "ranks requested %ld, counted %ld, card ranks %ld",
                    t->ranks_requested, t->ranks_counted, ranks);
    else
        sc_gate_set(g, SC_GATE_OK, "ranks requested = counted = %ld", ranks);
}

/* The threads of the snapshot at main_loop_begin (threads_at_ready.txt); -1 without one. */
static long sc__snapshot_threads(const sc_evidence *ev)
{
    long n = 0, pid, tid, psr;

    if (!ev->threads_at_ready)
        return -1;
    for (const char *line = ev->threads_at_ready; *line;) {
        n += sscanf(line, "%ld %ld %ld", &pid, &tid, &psr) == 3;
        line += strcspn(line, "\n");
        if (*line)
            line++;
    }
    return n;
}

/* A program we did not write counts no threads: what its snapshot showed, at most the card's. */
static void sc__gate_foreign_threads(const sc_card *card, const sc_evidence *ev, sc_gate *g)
{
    long n = sc__snapshot_threads(ev);

    if (n < 0)
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no snapshot of the program");
    else if (n < 1 || n > card->threads)
        sc_gate_set(g, SC_GATE_FAIL, "%ld threads in the program's snapshot, the card has %ld", n,
                    card->threads);
    else
        sc_gate_set(
            g, SC_GATE_OK,
            "the program prints no thread count: %ld thread(s) in its snapshot, at most the "
            "card's %ld (OMP_NUM_THREADS); threads it starts later are not counted (the "
            "capture is less precise)",
            n, card->threads);
}

static void sc__gate_thread_count(const sc_card *card, const sc_evidence *ev, const sc_tracelog *t,
                                  sc_gate *g)
{
    if (sc_workload_mpi(card)) {
        sc__gate_rank_count(card, t, g);
        return;
    }
    if (sc_workload_foreign(card)) {
        sc__gate_foreign_threads(card, ev, g);
        return;
    }
    if (t->threads_requested < 0 || t->threads_counted < 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: the log has no \"Number of "
                    "Threads requested/counted\" lines");
    else if (t->threads_requested != card->threads || t->threads_counted != card->threads)
        sc_gate_set(g, SC_GATE_FAIL, "requested %ld, counted %ld, card threads %ld",
                    t->threads_requested, t->threads_counted, card->threads);
    else
        sc_gate_set(g, SC_GATE_OK, "requested = counted = %ld", card->threads);
}

static void sc__gate_phases(const sc_card *card, const sc_evidence *ev, const sc_tracelog *t,
                            sc_gate *g)
{
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);

    if (sc_workload_foreign(card) && ops->phases) { /* its log says, then its snapshot shows */
        ops->phases(card, ev->log ? ev->log : "", g);
        if (g->state == SC_GATE_OK && !ev->threads_at_ready)
            sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no snapshot of the program");
    } else if (!t->begin_line)
        sc_gate_set(g, SC_GATE_FAIL, "no TRACE_WORKLOAD_PHASE=main_loop_begin in the log");
    else if (!t->end_line)
        sc_gate_set(g, SC_GATE_FAIL,
                    "main_loop_begin at line %ld but no main_loop_end: the main "
                    "loop did not finish",
                    t->begin_line);
    else if (t->end_line < t->begin_line)
        sc_gate_set(g, SC_GATE_FAIL, "main_loop_end (line %ld) before main_loop_begin (line %ld)",
                    t->end_line, t->begin_line);
    else
        sc_gate_set(g, SC_GATE_OK, "main_loop_begin at line %ld, main_loop_end at line %ld",
                    t->begin_line, t->end_line);
}

/* Trace lines: one per thread 0..threads-1, each on a card CPU, no two on one CPU. */
static bool sc__check_trace_bindings(const sc_card *card, const sc_tracelog *t, sc_gate *g)
{
    long ncpus = hwloc_bitmap_weight(card->cpus);
    hwloc_bitmap_t seen_threads = hwloc_bitmap_alloc(), seen_cpus = hwloc_bitmap_alloc();
    bool ok = false;

    if (!seen_threads || !seen_cpus) {
        sc_gate_set(g, SC_GATE_FAIL, "out of memory");
        goto out;
    }
    if (t->malformed_line) {
        sc_gate_set(g, SC_GATE_FAIL, "malformed trace line at log line %ld", t->malformed_line);
        goto out;
    }
    for (size_t i = 0; i < t->n_bindings; i++) {
        const sc_binding *b = &t->bindings[i];
        if (b->thread < 0 || b->thread >= card->threads) {
            sc_gate_set(g, SC_GATE_FAIL, "thread %ld reported, but the card has threads 0-%ld",
                        b->thread, card->threads - 1);
            goto out;
        }
        if (hwloc_bitmap_isset(seen_threads, (unsigned)b->thread)) {
            sc_gate_set(g, SC_GATE_FAIL, "thread %ld reported its binding twice", b->thread);
            goto out;
        }
        /* Bounded before the cast: cpu=4294967296 must not pass as cpu 0. */
        if (b->cpu < 0 || b->cpu > SC_CPULIST_MAX_CPU ||
            !hwloc_bitmap_isset(card->cpus, (unsigned)b->cpu)) {
            sc_gate_set(g, SC_GATE_FAIL, "thread %ld ran on cpu %ld, outside cpu_list %s",
                        b->thread, b->cpu, card->cpu_list);
            goto out;
        }
        if (card->threads <= ncpus && hwloc_bitmap_isset(seen_cpus, (unsigned)b->cpu)) {
            sc_gate_set(g, SC_GATE_FAIL, "two threads on cpu %ld (thread %ld and another)", b->cpu,
                        b->thread);
            goto out;
        }
        hwloc_bitmap_set(seen_threads, (unsigned)b->thread);
        hwloc_bitmap_set(seen_cpus, (unsigned)b->cpu);
    }
    if ((long)t->n_bindings != card->threads) {
        sc_gate_set(g, SC_GATE_FAIL, "%zu TRACE_THREAD_BINDING lines for %ld threads",
                    t->n_bindings, card->threads);
        goto out;
    }
    ok = true;
out:
    hwloc_bitmap_free(seen_threads);
    hwloc_bitmap_free(seen_cpus);
    return ok;
}

/*
 * ipsearch: the threads that search (TRACE_POOL_THREAD; the main team idles meanwhile):
 * pool_threads x team of them (team = threads / pool_threads, at least 1), each pinned,
 * on a card CPU, reported once, and no two on one CPU when they fit the CPUs.
 */
static bool sc__check_pool_bindings(const sc_card *card, const sc_tracelog *t, sc_gate *g)
{
    long ncpus = hwloc_bitmap_weight(card->cpus);
    long pool = card->pool_threads > 0 ? card->pool_threads : card->threads;
    long team = card->threads / pool > 1 ? card->threads / pool : 1;
    hwloc_bitmap_t seen_cpus = hwloc_bitmap_alloc();
    bool ok = false;

    if (!seen_cpus) {
        sc_gate_set(g, SC_GATE_FAIL, "out of memory");
        return false;
    }
    if (!t->n_pool_bindings) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: no TRACE_POOL_THREAD lines (where "
                    "the search threads ran)");
        goto out;
    }
    for (size_t i = 0; i < t->n_pool_bindings; i++) {
        const sc_pool_binding *b = &t->pool_bindings[i];
        if (!b->pinned) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "search thread %ld of pool %ld could not be pinned to its "
                        "cpu: it ran where the scheduler put it (cpu %ld)",
                        b->thread, b->pool, b->cpu);
            goto out;
        }
        if (b->pool < 0 || b->pool >= pool || b->thread < 0 || b->thread >= team) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "search thread %ld of pool %ld reported, but the card has "
                        "pools 0-%ld of %ld threads",
                        b->thread, b->pool, pool - 1, team);
            goto out;
        }
        if (b->cpu < 0 || b->cpu > SC_CPULIST_MAX_CPU ||
            !hwloc_bitmap_isset(card->cpus, (unsigned)b->cpu)) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "search thread %ld of pool %ld ran on cpu %ld, outside "
                        "cpu_list %s",
                        b->thread, b->pool, b->cpu, card->cpu_list);
            goto out;
        }
        for (size_t j = 0; j < i; j++) {
            const sc_pool_binding *o = &t->pool_bindings[j];
            if (o->pool == b->pool && o->thread == b->thread) {
                sc_gate_set(g, SC_GATE_FAIL, "search thread %ld of pool %ld reported twice",
                            b->thread, b->pool);
                goto out;
            }
        }
        if (pool * team <= ncpus && hwloc_bitmap_isset(seen_cpus, (unsigned)b->cpu)) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "two search threads on cpu %ld (pool %ld thread %ld and "
                        "another)",
                        b->cpu, b->pool, b->thread);
            goto out;
        }
        hwloc_bitmap_set(seen_cpus, (unsigned)b->cpu);
    }
    if ((long)t->n_pool_bindings != pool * team) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "%zu TRACE_POOL_THREAD lines for %ld search threads (%ld pools "
                    "of %ld)",
                    t->n_pool_bindings, pool * team, pool, team);
        goto out;
    }
    ok = true;
out:
    hwloc_bitmap_free(seen_cpus);
    return ok;
}

/*
 * The list of a /proc/<pid>/status line ("Cpus_allowed_list:\t0-3") into list (its text, or
 * "(missing)", into text): 0, or -EINVAL when absent or malformed.
 */
static int sc__status_list(const char *status, const char *key, hwloc_bitmap_t list, char *text,
                           size_t len)
{
    const char *p = NULL;
    size_t klen = strlen(key);

    for (const char *line = status; line && *line && !p;) { /* a whole key at a line's start */
        if (!strncmp(line, key, klen) && line[klen] == ':')
            p = line + klen + 1;
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    snprintf(text, len, "(missing)");
    if (!p)
        return -EINVAL;
    p += strspn(p, " \t");
    snprintf(text, len, "%.*s", (int)strcspn(p, "\n"), p);
    return sc_cpulist_parse(text, list, NULL, 0) == 0 ? 0 : -EINVAL;
}

/* The snapshot at main_loop_begin: every thread's last CPU and the affinity in the card, and
   at least min_threads threads. */
static bool sc__check_snapshot(const sc_card *card, const sc_evidence *ev, long min_threads,
                               sc_gate *g)
{
    char allowed_text[4096];
    long nthreads = 0;

    if (!ev->threads_at_ready || !ev->status_at_ready) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: no thread snapshot at "
                    "main_loop_begin");
        return false;
    }
    for (const char *line = ev->threads_at_ready; *line;) {
        long pid, tid, psr;
        if (sscanf(line, "%ld %ld %ld", &pid, &tid, &psr) == 3) {
            nthreads++;
            if (psr < 0 || psr > SC_CPULIST_MAX_CPU ||
                !hwloc_bitmap_isset(card->cpus, (unsigned)psr)) {
                sc_gate_set(g, SC_GATE_FAIL,
                            "snapshot: thread %ld was on cpu %ld, outside cpu_list %s", tid, psr,
                            card->cpu_list);
                return false;
            }
        }
        line += strcspn(line, "\n");
        if (*line)
            line++;
    }
    if (nthreads < min_threads) {
        sc_gate_set(g, SC_GATE_FAIL, "snapshot: %ld threads at main_loop_begin, the card has %ld",
                    nthreads, card->threads);
        return false;
    }
    /* The affinity the workload had at ready, and at its start (workload_status.txt, when
       taken): inside cpu_list both times. */
    for (int snap = 0; snap < 2; snap++) {
        const char *status = snap == 0 ? ev->status_at_ready : ev->status_at_start;
        const char *file = snap == 0 ? "" : " of workload_status.txt";
        if (!status)
            continue;
        hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
        bool in = allowed &&
                  sc__status_list(status, "Cpus_allowed_list", allowed, allowed_text,
                                  sizeof(allowed_text)) == 0 &&
                  hwloc_bitmap_isincluded(allowed, card->cpus);
        hwloc_bitmap_free(allowed);
        if (!in) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "snapshot%s: Cpus_allowed_list %s is not inside cpu_list %s", file,
                        allowed_text, card->cpu_list);
            return false;
        }
    }
    return true;
}

/*
 * Every thread of every rank, as the rank saw itself just before main_loop_begin
 * (TRACE_RANK_THREAD), last ran on a CPU its rank may use: the ranks, not the launcher the
 * observer started, are what ran. allowed is scratch space. False with the note set.
 */
static bool sc__check_rank_threads(const sc_tracelog *t, hwloc_bitmap_t allowed, sc_gate *g)
{
    for (size_t i = 0; i < t->n_rank_bindings; i++) {
        const sc_rank_binding *rb = &t->rank_bindings[i];
        size_t seen = 0;
        if (sc_cpulist_parse(rb->allowed, allowed, NULL, 0) < 0)
            return false; /* said by the caller's own check */
        for (size_t j = 0; j < t->n_rank_threads; j++) {
            const sc_rank_thread *rt = &t->rank_threads[j];
            if (rt->rank != rb->rank)
                continue;
            seen++;
            if (rt->cpu < 0 || rt->cpu > SC_CPULIST_MAX_CPU ||
                !hwloc_bitmap_isset(allowed, (unsigned)rt->cpu)) {
                sc_gate_set(
                    g, SC_GATE_FAIL,
                    "thread %ld of rank %ld ran on cpu %ld of %s, outside the rank's CPUs %s",
                    rt->tid, rb->rank, rt->cpu, rt->host, rb->allowed);
                return false;
            }
        }
        if (!seen) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: no TRACE_RANK_THREAD line for rank %ld: its "
                        "threads were not seen",
                        rb->rank);
            return false;
        }
    }
    return true;
}

/*
 * MPI: every rank reported its CPU and its own affinity, both inside cpu_list, and no two
 * ranks on one CPU of one host. (The snapshot at ready is the launcher's, not a rank's.)
 */
static void sc__gate_rank_binding(const sc_card *card, const sc_tracelog *t, sc_gate *g)
{
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();

    if (!allowed) {
        sc_gate_set(g, SC_GATE_FAIL, "out of memory");
        return;
    }
    if (t->malformed_line) {
        sc_gate_set(g, SC_GATE_FAIL, "malformed trace line at log line %ld", t->malformed_line);
        goto out;
    }
    if ((long)t->n_rank_bindings != sc__card_ranks(card, t)) {
        sc_gate_set(g, SC_GATE_FAIL, "%zu TRACE_RANK_BINDING lines for %ld ranks",
                    t->n_rank_bindings, sc__card_ranks(card, t));
        goto out;
    }
    for (size_t i = 0; i < t->n_rank_bindings; i++) {
        const sc_rank_binding *rb = &t->rank_bindings[i];
        if (rb->rank < 0 || rb->rank >= sc__card_ranks(card, t)) {
            sc_gate_set(g, SC_GATE_FAIL, "rank %ld reported, but the card has ranks 0-%ld",
                        rb->rank, sc__card_ranks(card, t) - 1);
            goto out;
        }
        if (rb->cpu < 0 || rb->cpu > SC_CPULIST_MAX_CPU ||
            !hwloc_bitmap_isset(card->cpus, (unsigned)rb->cpu)) {
            sc_gate_set(g, SC_GATE_FAIL, "rank %ld ran on cpu %ld of %s, outside cpu_list %s",
                        rb->rank, rb->cpu, rb->host, card->cpu_list);
            goto out;
        }
        if (sc_cpulist_parse(rb->allowed, allowed, NULL, 0) < 0 ||
            !hwloc_bitmap_isincluded(allowed, card->cpus)) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "rank %ld on %s may run on CPUs %s, not only on cpu_list %s", rb->rank,
                        rb->host, rb->allowed, card->cpu_list);
            goto out;
        }
        for (size_t j = 0; j < i; j++)
            if (t->rank_bindings[j].rank == rb->rank ||
                (t->rank_bindings[j].cpu == rb->cpu &&
                 !strcmp(t->rank_bindings[j].host, rb->host))) {
                sc_gate_set(g, SC_GATE_FAIL,
                            "ranks %ld and %ld share cpu %ld of %s (or report twice)",
                            t->rank_bindings[j].rank, rb->rank, rb->cpu, rb->host);
                goto out;
            }
    }
    if (sc__check_rank_threads(t, allowed, g))
        sc_gate_set(g, SC_GATE_OK,
                    "%zu ranks, each on its own CPU of %s; their %zu threads on their ranks' CPUs",
                    t->n_rank_bindings, card->cpu_list, t->n_rank_threads);
out:
    hwloc_bitmap_free(allowed);
}

static void sc__gate_binding(const sc_card *card, const sc_tracelog *t, const sc_evidence *ev,
                             sc_gate *g)
{
    if (sc_workload_mpi(card)) {
        sc__gate_rank_binding(card, t, g);
        return;
    }
    if (sc_workload_foreign(card)) { /* no binding trace: the process as its start showed it */
        if (sc__check_snapshot(card, ev, 1, g))
            sc_gate_set(g, SC_GATE_OK,
                        "no binding trace: in its snapshot the program's threads ran on CPUs of %s "
                        "and its affinity was inside it; a thread that changes its own affinity "
                        "later is not seen (the capture is less precise)",
                        card->cpu_list);
        return;
    }
    if (!sc__check_trace_bindings(card, t, g) || !sc__check_snapshot(card, ev, card->threads, g))
        return;
    if (sc_workload_reads(card->workload, SC_CF_POOL_THREADS)) {
        if (sc__check_pool_bindings(card, t, g))
            sc_gate_set(g, SC_GATE_OK,
                        "%zu threads and %zu pinned search threads on CPUs of %s%s; "
                        "snapshot agrees",
                        t->n_bindings, t->n_pool_bindings, card->cpu_list,
                        (long)t->n_pool_bindings <= hwloc_bitmap_weight(card->cpus)
                            ? ", each its own"
                            : "");
        return;
    }
    sc_gate_set(g, SC_GATE_OK, "%zu threads on distinct CPUs of %s; snapshot agrees", t->n_bindings,
                card->cpu_list);
}

static void sc__gate_validation(const sc_card *card, const sc_evidence *ev, const sc_tracelog *t,
                                sc_gate *g)
{
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);

    if (t->failed_line)
        sc_gate_set(g, SC_GATE_FAIL, "log line %ld: %s", t->failed_line, t->failed_text);
    else if (t->nonfinite_line)
        sc_gate_set(g, SC_GATE_FAIL, "log line %ld holds NaN or Inf: %s", t->nonfinite_line,
                    t->nonfinite_text);
    else if (sc_workload_foreign(card))
        sc_gate_set(g, SC_GATE_OK,
                    "no failed validation, NaN or Inf in the log; the program's exit code is its "
                    "own check");
    else if (!t->validates_line)
        sc_gate_set(g, SC_GATE_FAIL, "no \"Solution Validates\" in the log");
    else
        sc_gate_set(g, SC_GATE_OK, "Solution Validates at log line %ld", t->validates_line);
    if (g->state == SC_GATE_OK && ev->log && ops && ops->validate)
        ops->validate(card, ev->log, g); /* its own check of its log (exec: its patterns) */
}

/* Signals a program raises on itself when it crashes or aborts; any other one that ended
   the workload came from outside (a kill, the OOM killer, a hang-up). */
static bool sc__own_signal(int sig)
{
    static const int own[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (sig == own[i])
            return true;
    return false;
}

static void sc__gate_exit(const sc_evidence *ev, sc_gate *g)
{
    if (!ev->exit_known)
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: the workload's end was not seen");
    else if (ev->exit_signal)
        sc_gate_set(g, SC_GATE_FAIL, "killed by signal %d (%s)", ev->exit_signal,
                    strsignal(ev->exit_signal));
    else if (ev->exit_code != 0)
        sc_gate_set(g, SC_GATE_FAIL, "exit code %d", ev->exit_code);
    else
        sc_gate_set(g, SC_GATE_OK, "exit code 0");
}

/* Every file of the bundle was written: a full disk or a removed bundle makes a run that
   cannot show what happened, whatever the other gates say. */
static void sc__gate_evidence(const sc_evidence *ev, const sc_tracelog *t, sc_gate *g)
{
    if (t->over_line)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: stream.log line %ld: %s (not read further)",
                    t->over_line, t->over_text);
    else if (ev->write_errors < 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: it is not recorded whether every "
                    "evidence file was written");
    else if (ev->write_errors > 0)
        sc_gate_set(g, SC_GATE_FAIL, "%d writes into the bundle failed, the first: %s",
                    ev->write_errors, ev->write_error ? ev->write_error : "?");
    else
        sc_gate_set(g, SC_GATE_OK, "every evidence file was written");
}

typedef struct sc__node_sum {
    long node;
    unsigned long long on, off;
} sc__node_sum;

static void sc__sum_node(long node, unsigned long long bytes, void *ctx)
{
    sc__node_sum *sum = ctx;

    if (node == sum->node)
        sum->on += bytes;
    else
        sum->off += bytes;
}

int sc_numa_maps_anon_bytes(const char *numa_maps, long node, unsigned long long *on_node,
                            unsigned long long *elsewhere)
{
    sc__node_sum sum = {node, 0, 0};
    int rc = sc_numa_maps_anon(numa_maps, sc__sum_node, &sum);

    *on_node = sum.on;
    *elsewhere = sum.off;
    return rc < 0 ? rc : rc > 0 ? 0 : -EINVAL;
}

/*
 * "; during the run node 0 counted numa_hit +123, numa_miss +0, numa_foreign +0 (the
 * machine's, /sys)" from platform/before.txt and after.txt, "" without both: the node's
 * allocations, whoever made them, for the note of the memory_node gate.
 */
static const char *sc__node_counters(long node, const sc_evidence *ev, char *buf, size_t len)
{
    static const char *const counters[] = {"numa_hit", "numa_miss", "numa_foreign"};
    long was[3], now[3];
    char key[64];

    *buf = '\0';
    for (size_t i = 0; i < 3; i++) {
        snprintf(key, sizeof(key), "node%ld.%s", node, counters[i]);
        if (!ev->platform_before || !ev->platform_after ||
            !sc_kv_get_long(ev->platform_before, key, &was[i]) ||
            !sc_kv_get_long(ev->platform_after, key, &now[i]))
            return buf;
    }
    snprintf(buf, len,
             "; during the run node %ld counted numa_hit %+ld, numa_miss %+ld, numa_foreign %+ld "
             "(the machine's, /sys)",
             node, now[0] - was[0], now[1] - was[1], now[2] - was[2]);
    return buf;
}

static void sc__gate_memory_node(const sc_card *card, const sc_evidence *ev, sc_gate *g)
{
    unsigned long long on = 0, off = 0;
    char counters[256];

    if (card->memory_node < 0) {
        sc_gate_set(g, SC_GATE_NULL, "the card sets no memory_node");
        return;
    }
    if (!ev->numa_maps_at_ready ||
        sc_numa_maps_anon_bytes(ev->numa_maps_at_ready, card->memory_node, &on, &off) < 0) {
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no numa_maps at main_loop_begin");
        return;
    }
    /* The node the workload was bound to must be one its cpuset allows, at ready and at
       its start (strict membind leaves Mems_allowed to the cpuset). */
    hwloc_bitmap_t node = hwloc_bitmap_alloc();
    char mems[256];
    for (int snap = 0; node && snap < 2; snap++) {
        const char *status = snap == 0 ? ev->status_at_ready : ev->status_at_start;
        if (!status)
            continue;
        if (sc__status_list(status, "Mems_allowed_list", node, mems, sizeof(mems)) == 0 &&
            hwloc_bitmap_isset(node, (unsigned)card->memory_node))
            continue;
        sc_gate_set(g, SC_GATE_FAIL, "%s: Mems_allowed_list %s does not hold memory_node %ld",
                    snap == 0 ? "workload_status_at_ready.txt" : "workload_status.txt", mems,
                    card->memory_node);
        hwloc_bitmap_free(node);
        return;
    }
    hwloc_bitmap_free(node);
    if (off > 0 || on == 0)
        sc_gate_set(g, SC_GATE_FAIL, "%.1f MiB of anonymous memory on node %ld, %.1f MiB elsewhere",
                    on / 1048576.0, card->memory_node, off / 1048576.0);
    else
        sc_gate_set(g, SC_GATE_OK, "all %.1f MiB of anonymous memory on node %ld%s", on / 1048576.0,
                    card->memory_node,
                    sc__node_counters(card->memory_node, ev, counters, sizeof(counters)));
}

/* mpi-pingpong: the IMB row min_rate applies to: at_bytes, else the largest size. */
static const sc_imb_row *sc__min_rate_row(const sc_card *card, const sc_tracelog *t)
{
    const sc_imb_row *row = NULL;

    if (card->present[SC_CF_EXPECT_AT_BYTES])
        return sc_tracelog_imb_row(t, card->expect_at_bytes);
    for (size_t i = 0; i < t->n_imb_rows; i++)
        if (!row || t->imb_rows[i].bytes > row->bytes)
            row = &t->imb_rows[i];
    return row;
}

static void sc__gate_min_rate(const sc_card *card, const sc_evidence *ev, const sc_tracelog *t,
                              sc_gate *g)
{
    if (card->expect_min_rate_MBps <= 0) {
        sc_gate_set(g, SC_GATE_NULL, "the card sets no min_rate_MBps");
        return;
    }
    if (sc_workload_reads(card->workload, SC_CF_EXPECT_AT_BYTES)) {
        /* Not the peak over the sizes: a slow transport can reach a fast one's peak at
           some size. The card names the size (at_bytes), or it is the largest. */
        const sc_imb_row *row = sc__min_rate_row(card, t);
        if (!row)
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: no bandwidth at %s in the log's table",
                        card->present[SC_CF_EXPECT_AT_BYTES] ? "at_bytes" : "any size");
        else if (row->MBps < card->expect_min_rate_MBps)
            sc_gate_set(g, SC_GATE_FAIL,
                        "%.1f MB/s at %llu bytes is below the card's minimum %.1f MB/s", row->MBps,
                        row->bytes, card->expect_min_rate_MBps);
        else
            sc_gate_set(g, SC_GATE_OK, "%.1f MB/s at %llu bytes >= %.1f MB/s", row->MBps,
                        row->bytes, card->expect_min_rate_MBps);
        return;
    }
    if (ev->best_rate_MBps <= 0)
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no rate was measured");
    else if (ev->best_rate_MBps < card->expect_min_rate_MBps)
        sc_gate_set(g, SC_GATE_FAIL, "best rate %.1f MB/s is below the card's minimum %.1f MB/s",
                    ev->best_rate_MBps, card->expect_min_rate_MBps);
    else
        sc_gate_set(g, SC_GATE_OK, "best rate %.1f MB/s >= %.1f MB/s", ev->best_rate_MBps,
                    card->expect_min_rate_MBps);
}

/* The observer's records (interference.txt), or for MPI the ranks' from the log, where rank 0
   printed them (sc_interference.h). */
static int sc__gate_interference(const sc_card *card, const sc_evidence *ev, const sc_tracelog *t,
                                 sc_gate *g)
{
    sc_interference rec = {0};
    int rc = sc_interference_load(card, ev->interference, ev->log, &rec);

    if (rc == 0 && card->interference_accounting && !ev->interference && !sc_workload_mpi(card))
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no interference.txt");
    else if (rc == 0)
        sc_interference_gate(card, &rec, t, g);
    sc_interference_free(&rec);
    return rc;
}

/* mpi pingpong: the latency (half a round trip) at the smallest size. */
static void sc__gate_max_latency(const sc_card *card, const sc_tracelog *t, sc_gate *g)
{
    const sc_imb_row *row = NULL;

    if (card->expect_max_latency_us <= 0) {
        sc_gate_set(g, SC_GATE_NULL, "the card sets no max_latency_us");
        return;
    }
    for (size_t i = 0; i < t->n_imb_rows; i++)
        if (!row || t->imb_rows[i].bytes < row->bytes)
            row = &t->imb_rows[i];
    if (!row)
        sc_gate_set(g, SC_GATE_FAIL, "not supported by evidence: no latency in the log's table");
    else if (row->t_usec > card->expect_max_latency_us)
        sc_gate_set(g, SC_GATE_FAIL,
                    "latency %.2f us at %llu bytes is above the card's maximum %.2f us",
                    row->t_usec, row->bytes, card->expect_max_latency_us);
    else
        sc_gate_set(g, SC_GATE_OK, "latency %.2f us at %llu bytes <= %.2f us", row->t_usec,
                    row->bytes, card->expect_max_latency_us);
}

/* The gates a workload owns, by its module, for every run (null for another workload's). */
static void sc__gates_owned(const sc_card *card, const sc_evidence *ev, const sc_tracelog *t,
                            sc_gates *out)
{
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops));)
        for (size_t i = 0; ops->gate && i < ops->n_gates; i++)
            ops->gate(ops->gates[i], card, ev, t, &out->g[ops->gates[i]]);
}

int sc_gates_evaluate(const sc_card *card, const sc_evidence *ev, sc_gates *out)
{
    sc_tracelog own;
    sc_tracelog_limits lines;
    sc_interference_limits records; /* unused: sc_interference_load() bounds its own */
    int rc = 0;

    if (!ev->parsed) {
        sc_bounds_of(card, &lines, &records);
        rc = sc_tracelog_parse_bounded(ev->log ? ev->log : "", &lines, &own);
    }
    if (rc < 0)
        return rc;
    const sc_tracelog *t = ev->parsed ? ev->parsed : &own;
    sc__gate_thread_count(card, ev, t, &out->g[SC_GATE_THREAD_COUNT]);
    sc__gate_phases(card, ev, t, &out->g[SC_GATE_PHASES]);
    sc__gate_binding(card, t, ev, &out->g[SC_GATE_BINDING]);
    sc__gate_validation(card, ev, t, &out->g[SC_GATE_VALIDATION]);
    sc__gate_exit(ev, &out->g[SC_GATE_EXIT_CODE]);
    out->ended_from_outside =
        ev->ended_by_streamcard || (ev->exit_signal && !sc__own_signal(ev->exit_signal));
    out->signalled = ev->exit_known && ev->exit_signal != 0;
    sc__gate_evidence(ev, t, &out->g[SC_GATE_EVIDENCE]);
    sc__gate_memory_node(card, ev, &out->g[SC_GATE_MEMORY_NODE]);
    sc_platform_gate(card, ev->state_env, ev->host_states, ev->n_host_states, t,
                     &out->g[SC_GATE_PLATFORM_STATE]);
    sc_transport_gate(card, t, ev->transport, &out->g[SC_GATE_TRANSPORT]);
    sc__gate_min_rate(card, ev, t, &out->g[SC_GATE_MIN_RATE]);
    sc__gate_max_latency(card, t, &out->g[SC_GATE_MAX_LATENCY]);
    sc__gates_owned(card, ev, t, out);
    rc = sc__gate_interference(card, ev, t, &out->g[SC_GATE_INTERFERENCE]);
    if (!ev->log)
        sc_gate_set(&out->g[SC_GATE_VALIDATION], SC_GATE_FAIL,
                    "not supported by evidence: no workload log");
    if (!ev->parsed)
        sc_tracelog_free(&own);
    return rc;
}
