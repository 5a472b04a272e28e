/*
 * ipsearch_pool.c: request handlers, their OpenMP teams, pinning and per-thread CPU time
 * (see ipsearch_pool.h; the model is described at the top of ipsearch.c).
 */
#include "ipsearch_pool.h"
#include "sc_trace_protocol.h"

#include <cblas.h>
#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static double sct__thread_cpu(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A thread's clocks when it starts some work: wall (monotonic) and its own CPU time. */
struct sct__mark {
    double wall, cpu;
};

static struct sct__mark sct__mark_now(void)
{
    return (struct sct__mark){sct_clock_monotonic(NULL), sct__thread_cpu()};
}

/* Charge the work since m to slot s: busy (wall) and CPU seconds. */
static void sct__charge(struct sct_ips_slot *s, struct sct__mark m)
{
    s->busy_s += sct_clock_monotonic(NULL) - m.wall;
    s->cpu_s += sct__thread_cpu() - m.cpu;
}

/* Pin the calling thread to one cpu. 0 or the errno of sched_setaffinity. */
static int sct__pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : errno;
}

/*
 * "TRACE_POOL_THREAD pool=P thread=J cpu=C pin=ok|failed": where a compute thread runs
 * and whether it could be pinned to its cpu; streamcard's binding gate checks these lines.
 * A failure also gets a line saying why, and the run goes on (the gate fails it).
 */
static void sct__report_pin(int pool, int thread, int want, int err)
{
    if (err)
        printf("warning: pinning pool %d thread %d to cpu %d failed: %s\n", pool, thread, want,
               strerror(err));
    printf(SC_TRACE_POOL_THREAD("%d", "%d", "%d", "%s") "\n", pool, thread, sched_getcpu(),
           err ? SC_TRACE_PIN_FAILED : SC_TRACE_PIN_OK);
}

/* ---- the search ------------------------------------------------------------------------ */

/* Set up the calling compute thread: pin it, note its id, open its counters, report. */
static void sct__slot_enter(struct sct_ips_slot *s, int pool, int thread)
{
    int err = sct__pin(s->cpu);
    s->tid = gettid();
    sct_perf_open(&s->perf);
    sct__report_pin(pool, thread, s->cpu, err);
}

/* One request: queries of block req, searched by handler p's team. */
static void sct__ips_request(struct sct_ips_run *r, int p, size_t req)
{
    size_t q0 = req * r->block;
    size_t nq = r->data.nq - q0 < r->block ? r->data.nq - q0 : r->block;
    struct sct_ips_slot *team = &r->slots[p * r->team];

    if (r->team == 1) {
        sct_ips_search_part(&r->path, &r->data, q0, q0 + nq, 0, r->data.nb, &team->ws);
        sct_ips_merge(&r->parts[p], 1, q0, 0, nq, &r->res);
        return;
    }
#pragma omp parallel num_threads(r->team)
    {
        int j = omp_get_thread_num(), nt = omp_get_num_threads();
        struct sct_ips_slot *s = &team[j];
        struct sct__mark m = sct__mark_now();
        size_t lo, hi;
        /* libgomp may hand the team a new thread: pin it, and say so only if that fails. */
        int err = j > 0 && sched_getcpu() != s->cpu ? sct__pin(s->cpu) : 0;
        if (err)
            sct__report_pin(p, j, s->cpu, err);
        sct_static_chunk(r->data.nb, 16, nt, j, &lo, &hi);
        sct_ips_search_part(&r->path, &r->data, q0, q0 + nq, lo, hi, &s->ws);
#pragma omp barrier
        sct_static_chunk(nq, 1, nt, j, &lo, &hi);
        sct_ips_merge(&r->parts[p * r->team], nt, q0, lo, hi, &r->res);
        if (j > 0) /* the handler's own time is counted around the whole repetition */
            sct__charge(s, m);
    }
}

/*
 * Handler p's share of a split search: its slice of the rows for every query, then, once
 * every slice is searched, the merge of its share of the queries.
 */
static void sct__ips_split_pass(struct sct_ips_run *r, int p)
{
    size_t lo, hi;

    sct_static_chunk(r->data.nb, 16, r->pool, p, &lo, &hi);
    sct_ips_search_part(&r->path, &r->data, 0, r->data.nq, lo, hi, &r->slots[p].ws);
    pthread_barrier_wait(&r->split_barrier);
    sct_static_chunk(r->data.nq, 1, r->pool, p, &lo, &hi);
    sct_ips_merge(r->parts, r->pool, 0, lo, hi, &r->res);
}

/* Handler p's part of one search: its split pass, or requests until the queue is empty;
 * the time it took is charged to its slot. */
static void sct__handler_work(struct sct_ips_run *r, int p)
{
    struct sct__mark m = sct__mark_now();
    size_t req;

    if (r->split)
        sct__ips_split_pass(r, p);
    else
        while ((req = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED)) < r->nreq)
            sct__ips_request(r, p, req);
    sct__charge(&r->slots[p * r->team], m);
}

/* A request handler: set up its team, then take requests whenever a search starts. */
static void *sct__handler_main(void *arg)
{
    struct sct_ips_run *r = ((struct sct_handler_arg *)arg)->r;
    int p = ((struct sct_handler_arg *)arg)->p;
    struct sct_ips_slot *me = &r->slots[p * r->team];
    unsigned long seen = 0;

    sct__slot_enter(me, p, 0);
    if (r->team > 1) {
#pragma omp parallel num_threads(r->team)
        {
            int j = omp_get_thread_num();
            if (j > 0)
                sct__slot_enter(&me[j], p, j);
        }
    }
    pthread_mutex_lock(&r->lock);
    r->ready++;
    pthread_cond_broadcast(&r->done);
    for (;;) {
        while (!r->quit && r->generation == seen)
            pthread_cond_wait(&r->go, &r->lock);
        if (r->quit)
            break;
        seen = r->generation;
        pthread_mutex_unlock(&r->lock);

        sct__handler_work(r, p);
        pthread_mutex_lock(&r->lock);
        if (++r->finished == r->pool)
            pthread_cond_broadcast(&r->done);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/*
 * Harness kernel: one search of all queries, by the pool; returns when all are done. When
 * the calling thread is handler 0 it works too, so a search by one handler starts and ends
 * on the thread that times it, with no thread to wake in between.
 */
void sct_ips_search(void *ctx)
{
    struct sct_ips_run *r = ctx;

    pthread_mutex_lock(&r->lock);
    r->next = 0;
    r->finished = 0;
    r->generation++;
    pthread_cond_broadcast(&r->go);
    if (r->caller_is_first) {
        pthread_mutex_unlock(&r->lock);
        sct__handler_work(r, 0);
        pthread_mutex_lock(&r->lock);
        r->finished++;
    }
    while (r->finished < r->pool)
        pthread_cond_wait(&r->done, &r->lock);
    pthread_mutex_unlock(&r->lock);
}

/* Harness hook: collect the repetition's thread seconds; faults strike mid main loop. */
void sct_ips_after_repetition(int rep, void *ctx)
{
    struct sct_ips_run *r = ctx;

    r->rep_busy_s[rep] = r->rep_cpu_s[rep] = 0;
    for (int i = 0; i < r->pool * r->team; i++) {
        r->rep_busy_s[rep] += r->slots[i].busy_s;
        r->rep_cpu_s[rep] += r->slots[i].cpu_s;
        r->slots[i].busy_s = r->slots[i].cpu_s = 0;
    }
    if (rep == (r->iterations - 1) / 2)
        sct_fault_strike(r->fault);
}

/* Stop the handler threads started before handler n and wait for them. */
static void sct__pool_stop(struct sct_ips_run *r, int n)
{
    pthread_mutex_lock(&r->lock);
    r->quit = 1;
    pthread_cond_broadcast(&r->go);
    pthread_mutex_unlock(&r->lock);
    for (int p = r->caller_is_first; p < n; p++)
        pthread_join(r->handlers[p], NULL);
}

/* Start the handlers and wait until every compute thread is pinned and reported. */
int sct_ips_pool_start(struct sct_ips_run *r)
{
    if (r->split && pthread_barrier_init(&r->split_barrier, NULL, (unsigned)r->pool) != 0)
        return -EAGAIN;
    /* Handlers without a team of their own: the calling thread is handler 0 (a handler
       leading a team would start its team from the main thread's OpenMP pool). */
    r->caller_is_first = r->team == 1;
    if (r->caller_is_first) {
        sct__slot_enter(&r->slots[0], 0, 0);
        r->ready++;
    }
    for (int p = r->caller_is_first; p < r->pool; p++) {
        r->args[p] = (struct sct_handler_arg){r, p};
        if (pthread_create(&r->handlers[p], NULL, sct__handler_main, &r->args[p]) != 0) {
            sct__pool_stop(r, p);
            if (r->split)
                pthread_barrier_destroy(&r->split_barrier);
            return -EAGAIN;
        }
    }
    pthread_mutex_lock(&r->lock);
    while (r->ready < r->pool)
        pthread_cond_wait(&r->done, &r->lock);
    pthread_mutex_unlock(&r->lock);
    r->started = 1;
    return 0;
}

void sct_ips_pool_stop(struct sct_ips_run *r)
{
    if (r->started) {
        sct__pool_stop(r, r->pool);
        if (r->split)
            pthread_barrier_destroy(&r->split_barrier);
    }
    r->started = 0;
}

/* ---- setup ------------------------------------------------------------------------------ */

/* The cpus compute threads are pinned to, in order: the first cpu of every OpenMP place,
 * or, without places, every cpu the process may run on. */
static int sct__compute_cpus(struct sct_ips_run *r)
{
    int np = omp_get_num_places(), n = 0;
    cpu_set_t set;

    if (np > 0) {
        if (!(r->cpus = calloc((size_t)np, sizeof(int))))
            return -ENOMEM;
        for (int p = 0; p < np; p++) {
            int ids[CPU_SETSIZE];
            if (omp_get_place_num_procs(p) < 1 || omp_get_place_num_procs(p) > CPU_SETSIZE)
                continue;
            omp_get_place_proc_ids(p, ids);
            r->cpus[n++] = ids[0];
        }
    } else {
        if (sched_getaffinity(0, sizeof(set), &set) != 0)
            return -errno;
        if (!(r->cpus = calloc(CPU_SETSIZE, sizeof(int))))
            return -ENOMEM;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                r->cpus[n++] = c;
    }
    r->ncpus = n;
    return n > 0 ? 0 : -ENODEV;
}

/*
 * BLAS threads per call: 1 (the kernel's choice, see the header), unless the environment
 * names a count for OpenBLAS itself, which then stands as the library read it.
 */
void sct_ips_blas_threads_set(struct sct_ips_run *r)
{
    static const char *const vars[] = {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"};

    r->blas_source = "kernel default: one BLAS thread per caller";
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            r->blas_source = vars[i];
            r->blas_threads = openblas_get_num_threads();
            return;
        }
    }
    openblas_set_num_threads(1);
    r->blas_threads = openblas_get_num_threads();
}

/*
 * The default layout splits the database for a batch of one request's worth (a single
 * pass: one request of all queries); otherwise requests of at most SCT_IPS_MAX_BLOCK
 * queries, a multiple of pool in number (even shares).
 */
static void sct__plan_requests(struct sct_ips_run *r)
{
    size_t nq = r->data.nq, pool = (size_t)r->pool;
    size_t nreq = (nq + SCT_IPS_MAX_BLOCK - 1) / SCT_IPS_MAX_BLOCK;

    r->split = !r->pool_given && r->team == 1 && r->pool > 1 && nq <= SCT_IPS_MAX_BLOCK;
    if (r->split) {
        r->block = nq;
        r->nreq = 1;
        return;
    }

    nreq = (nreq + pool - 1) / pool * pool;
    r->block = (nq + nreq - 1) / nreq;
    r->nreq = (nq + r->block - 1) / r->block;
}

/* Allocate everything the search needs; 0 or -ENOMEM. */
static int sct__run_alloc(struct sct_ips_run *r, size_t k)
{
    int nslots = r->pool * r->team;

    r->slots = calloc((size_t)nslots, sizeof(*r->slots));
    /* An array of pointers: the element is a pointer, as meant (a false positive of
       clang-tidy 14). NOLINTNEXTLINE(bugprone-sizeof-expression) */
    r->parts = calloc((size_t)nslots, sizeof(*r->parts));
    r->handlers = calloc((size_t)r->pool, sizeof(*r->handlers));
    r->args = calloc((size_t)r->pool, sizeof(*r->args));
    r->rep_busy_s = calloc((size_t)r->iterations, sizeof(double));
    r->rep_cpu_s = calloc((size_t)r->iterations, sizeof(double));
    r->rep_wall_s = calloc((size_t)r->iterations, sizeof(double));
    if (!r->slots || !r->parts || !r->handlers || !r->args || !r->rep_busy_s || !r->rep_cpu_s ||
        !r->rep_wall_s)
        return -ENOMEM;
    for (int i = 0; i < nslots; i++) {
        r->slots[i].cpu = r->cpus[i % r->ncpus];
        sct_perf_init(&r->slots[i].perf);
        if (sct_ips_workspace_alloc(&r->slots[i].ws, r->block, k) != 0)
            return -ENOMEM;
        r->parts[i] = &r->slots[i].ws;
    }
    return sct_ips_results_alloc(&r->res, r->data.nq, k);
}

void sct_ips_run_free(struct sct_ips_run *r)
{
    for (int i = 0; r->slots && i < r->pool * r->team; i++)
        sct_ips_workspace_free(&r->slots[i].ws);
    free(r->slots);
    free(r->parts);
    free(r->handlers);
    free(r->args);
    free(r->rep_busy_s);
    free(r->rep_cpu_s);
    free(r->rep_wall_s);
    free(r->cpus);
    free(r->omp_tids);
    sct_ips_results_free(&r->res);
    sct_ips_data_free(&r->data);
}

/* Minimum and mean of v[1..n-1]: repetition 0 is the warm-up. */
static void sct__best_avg(const double *v, int n, double *best, double *avg)
{
    *best = *avg = 0;
    for (int rep = 1; rep < n; rep++) {
        if (rep == 1 || v[rep] < *best)
            *best = v[rep];
        *avg += v[rep] / (n - 1);
    }
}

void sct_ips_thread_figures(const struct sct_ips_run *r, struct sct_ips_thread_figures *f)
{
    sct__best_avg(r->rep_busy_s, r->iterations, &f->busy_best, &f->busy_avg);
    sct__best_avg(r->rep_cpu_s, r->iterations, &f->cpu_best, &f->cpu_avg);
}

void sct_ips_counters(struct sct_ips_run *r, int on, struct sct_perf_counts *total)
{
    for (int i = 0; i < r->pool * r->team; i++) {
        if (!r->slots[i].tid)
            continue; /* a team slot libgomp never filled */
        if (on) {
            sct_perf_start(&r->slots[i].perf);
        } else {
            sct_perf_stop(&r->slots[i].perf);
            sct_perf_add(&r->slots[i].perf, total);
        }
    }
}

void sct_ips_run_choose_path(struct sct_ips_run *r, const char *blas_core)
{
    struct sct_ips_path_inputs in = {
        .queries = r->block,
        .dim = r->data.dim,
        .simd = r->simd_given ? r->simd : sct_ips_simd_best(),
        .l1d_bytes = sct_ips_cache_bytes(1),
        .l2_bytes = sct_ips_cache_bytes(2),
        .forced = r->forced,
        .blas_core = blas_core,
    };

    sct_ips_path_choose(&in, &r->path);
    for (int i = 0; i < r->pool * r->team; i++)
        r->slots[i].ws.simd = in.simd;
}

const char *sct_ips_layout_name(const struct sct_ips_run *r)
{
    return r->split ? "split-database" : "split-queries";
}

int sct_ips_run_setup(struct sct_ips_run *r, int pool, size_t k)
{
    int rc;

    r->pool_given = pool > 0;
    r->pool = pool ? pool : r->omp_threads;
    r->team = r->omp_threads / r->pool > 1 ? r->omp_threads / r->pool : 1;
    sct__plan_requests(r);
    if ((rc = sct__compute_cpus(r)) != 0)
        return rc;
    return sct__run_alloc(r, k);
}
