/*
 * ipsearch.c: streamcard-ipsearch, exact top-k by inner product as a faiss-based service
 * runs it (faiss IndexFlatIP + OpenBLAS), with streamcard's trace lines and evidence.
 *
 * The threading model, chosen so that the defaults neither oversubscribe the cpus nor let
 * two runtimes spin against each other:
 *   - pool_threads request handlers (pthreads, the application's own pool) take blocks of
 *     queries from a shared queue, as a service's handlers take requests;
 *   - each block is searched by an OpenMP team of threads/pool_threads threads (at least 1)
 *     led by the handler: its threads split the database, each searches its rows (by the
 *     single-pass SIMD scan for a few queries, by single-threaded sgemm over cache-sized
 *     tiles for many, the top-k fused into either: ipsearch_path.h), and the team merges
 *     the partial results;
 *   - without --pool-threads (the default layout), a batch of one request's worth
 *     (SCT_IPS_MAX_BLOCK queries) is one pass instead: every handler searches its slice of
 *     the database for all queries, then merges its share of them, so one query keeps
 *     every cpu busy and the database is read once per search;
 *   - BLAS runs one thread per caller (openblas_set_num_threads(1)) unless the environment
 *     sets OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS: a pthread OpenBLAS with more threads
 *     starts its own workers, which then fight the OpenMP threads for the cores;
 *   - every compute thread is pinned to one cpu of the OpenMP places (OMP_PLACES, or the
 *     process's cpus), handler i's team on cpus i*team.. : libgomp pins the main thread
 *     to the first place, and pthreads it creates would inherit that one cpu;
 *   - the main thread's OpenMP team (the `threads` of the card, whose bindings the trace
 *     reports) generates the data and validates; it idles during the search, which costs
 *     nothing unless OMP_WAIT_POLICY=active makes it spin (measured here: half the speed
 *     on 2 cpus): the per-thread CPU accounting of the main loop then shows its threads
 *     ("role=omp") using CPU beside the search, with a warning. When handlers have no team
 *     of their own, the main thread itself is handler 0 (pinned to its cpu, "role=compute"),
 *     so that a search starts and ends on the thread that times it.
 * So pool_threads x team x BLAS threads <= cpus by default; a card that asks for more
 * (pool_threads > threads, OPENBLAS_NUM_THREADS > 1) gets it, with a warning and the
 * evidence in the output and the JSON.
 *
 * Figures of one search of all nq queries (best of the counted repetitions, the first is a
 * warm-up): wall seconds, queries/s, GFLOP/s (2 * nq * nb * dim flops), and the users'
 * figure, total thread seconds: the busy time of every compute thread, summed, as a
 * service's workers time their own search calls; beside it the same threads' CPU time
 * (CLOCK_THREAD_CPUTIME_ID). Busy time grows when compute threads wait for a cpu, CPU time
 * does not: the gap, and the CPU time /proc shows for every other thread of the process
 * during the main loop, are the evidence of oversubscription and spinning.
 * Validation recomputes sampled queries naively in double precision and compares ids
 * (ties allowed) and scores (within dim * FLT_EPSILON * sum|q_i * x_i|).
 *
 * Exit status: 0 validated, 1 validation failed or a run-time error, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blasinfo.h"
#include "buildinfo.h"
#include "harness.h"
#include "ipsearch_engine.h"
#include "ipsearch_pool.h"
#include "perfcount.h"
#include "results_json.h"
#include "taskcpu.h"
#include "trace.h"
#include "workload_cli.h"
#include "sc_results_protocol.h"

#define SCT_PROG "streamcard-ipsearch"
#define SCT_EXIT_FAILED 1
#define SCT_EXIT_USAGE 2
#define SCT_SAMPLES 16 /* queries validated against the double-precision reference */
#define SCT_LINE "-------------------------------------------------------------"

struct sct_ips_opts {
    size_t nb, nq, dim, k;
    int pool; /* 0: the default layout */
    enum sct_ips_path path;
    int simd_given; /* --search-simd other than auto */
    enum sct_ips_simd simd;
    int iterations;
    unsigned long long seed;
    struct sct_cli_common cli; /* --json, --build-info, --help */
};

/* ---- validation --------------------------------------------------------------------------- */

/*
 * Recompute SCT_SAMPLES queries spread over [0, nq) (first and last included) naively in
 * double precision, in parallel over the main OpenMP team, and check them. Prints one
 * "Failed Validation" line per failing query. Returns 1 when all pass; *recall is the mean
 * recall@k over the samples.
 */
static int sct__validate(const struct sct_ips_run *r, size_t *nsamples, double *recall)
{
    size_t k = r->res.k, ns = r->data.nq < SCT_SAMPLES ? r->data.nq : SCT_SAMPLES;
    double *ref_s = malloc(ns * k * sizeof(double));
    int64_t *ref_id = malloc(ns * k * sizeof(int64_t));
    size_t *acc = calloc(ns, sizeof(size_t));
    char(*msg)[256] = calloc(ns, sizeof(*msg));
    int *ok = calloc(ns, sizeof(int)), all = 1;

    *nsamples = ns;
    *recall = 0;
    if (!ref_s || !ref_id || !acc || !msg || !ok) {
        printf(SC_TRACE_FAILED_VALIDATION ": out of memory for the reference\n");
        all = 0;
        goto out;
    }
#pragma omp parallel for schedule(dynamic) num_threads(r->omp_threads)
    for (size_t i = 0; i < ns; i++) {
        size_t q = ns > 1 ? i * (r->data.nq - 1) / (ns - 1) : 0;
        sct_ips_reference(&r->data, q, k, ref_s + i * k, ref_id + i * k);
        ok[i] = sct_ips_check_query(&r->data, &r->res, q, ref_s + i * k, ref_id + i * k, &acc[i],
                                    msg[i], sizeof(msg[i]));
    }
    for (size_t i = 0; i < ns; i++) {
        *recall += (double)acc[i] / (double)k / (double)ns;
        if (!ok[i]) {
            printf(SC_TRACE_FAILED_VALIDATION ": %s (tolerance " SCT_IPS_TOLERANCE_TEXT ")\n",
                   msg[i]);
            all = 0;
        }
    }
out:
    free(ref_s);
    free(ref_id);
    free(acc);
    free(msg);
    free(ok);
    return all;
}

/* ---- output ----------------------------------------------------------------------------- */

/* What the main loop cost every thread of the process (the evidence for spinning). */
struct sct_accounting {
    struct sct_task_snapshot before, after;
    double compute_s, team_s, other_s; /* compute threads; main OpenMP team; the rest */
};

/*
 * Who a thread is: "compute" (handler p's team thread j), "main" (the main thread),
 * "omp" (a worker of the main OpenMP team, idle during the search) or "other" (a thread
 * the workload did not start, e.g. a BLAS library's worker).
 */
static const char *sct__role(const struct sct_ips_run *r, pid_t tid, int *p, int *j)
{
    for (int i = 0; i < r->pool * r->team; i++) {
        if (r->slots[i].tid == tid) {
            *p = i / r->team;
            *j = i % r->team;
            return "compute";
        }
    }
    if (tid == getpid())
        return "main";
    for (int i = 0; i < r->omp_threads; i++)
        if (r->omp_tids[i] == tid)
            return "omp";
    return "other";
}

static void sct__accounting_sum(const struct sct_ips_run *r, struct sct_accounting *a)
{
    for (size_t i = 0; i < a->after.n; i++) {
        pid_t tid = a->after.t[i].tid;
        int p, j;
        const char *role = sct__role(r, tid, &p, &j);
        double s = sct_task_seconds(&a->before, &a->after, tid);
        if (role[0] == 'c')
            a->compute_s += s;
        else if (role[0] == 'm' || role[1] == 'm')
            a->team_s += s;
        else
            a->other_s += s;
    }
}

/* Threads that do not search but took at least 5% of the search's CPU are named. */
static int sct__significant(double s, double compute_s)
{
    return s > 0.05 * compute_s && s > 0.01;
}

static void sct__print_accounting(const struct sct_ips_run *r, const struct sct_accounting *a)
{
    printf("CPU time in the main loop, every thread of the process (%s):\n", a->after.source);
    for (size_t i = 0; i < a->after.n; i++) {
        const struct sct_task_time *t = &a->after.t[i];
        int p = 0, j = 0;
        const char *role = sct__role(r, t->tid, &p, &j);
        char what[48] = "";
        if (role[0] == 'c')
            snprintf(what, sizeof(what), " pool=%d thread=%d", p, j);
        printf("  cpu_time tid=%d comm=%s role=%s%s seconds=%.3f\n", (int)t->tid, t->comm, role,
               what, sct_task_seconds(&a->before, &a->after, t->tid));
    }
    printf("cpu_seconds: compute=%.3f main_team=%.3f other=%.3f\n", a->compute_s, a->team_s,
           a->other_s);
    if (sct__significant(a->team_s, a->compute_s))
        printf("warning: the main OpenMP team, idle during the search, used %.3f s of CPU: its "
               "threads spin while waiting (OMP_WAIT_POLICY=active, GOMP_SPINCOUNT, "
               "KMP_BLOCKTIME) and take cpus from the search\n",
               a->team_s);
    if (sct__significant(a->other_s, a->compute_s))
        printf("warning: threads the workload did not start (BLAS workers) used %.3f s of CPU "
               "beside the search: see blas_num_threads and OPENBLAS_NUM_THREADS\n",
               a->other_s);
}

/* The search path and layout, as a sentence and as greppable key=value words. */
static void sct__print_search(const struct sct_ips_run *r)
{
    const struct sct_ips_path_choice *c = &r->path;

    if (r->split)
        printf("layout: split-database (default layout, %zu queries <= %d): each of the %d "
               "handlers searches its slice of the rows for every query, in one pass\n",
               r->data.nq, SCT_IPS_MAX_BLOCK, r->pool);
    else
        printf("layout: split-queries (%s): requests of up to %zu queries, each searched by "
               "one handler's team\n",
               r->pool_given ? "pool_threads given" : "default layout", r->block);
    const struct sct_ips_workspace *w = &r->slots[0].ws;
    if (c->path == SCT_IPS_PATH_SCAN)
        printf("search: scan path for %zu queries per pass (%s), SIMD %s\n", c->in.queries,
               c->reason, sct_ips_simd_name(c->in.simd));
    else
        printf("search: sgemm path for %zu queries per pass (%s), score tiles of %zu rows "
               "x %zu queries per sgemm call (%zu KiB), top-k filter SIMD %s\n",
               c->in.queries, c->reason, w->tile_rows, w->qcall,
               w->tile_rows * w->qcall * sizeof(float) / 1024, sct_ips_simd_name(w->simd));
    printf("search_path=%s search_simd=%s search_layout=%s\n", sct_ips_path_name(c->path),
           sct_ips_simd_name(c->in.simd), sct_ips_layout_name(r));
    /* Everything the choice was made from (ipsearch_path.h): the same inputs, the same path. */
    printf("search_inputs: queries_per_pass=%zu dim=%zu simd=%s simd_source=%s l1d_bytes=%zu "
           "l2_bytes=%zu forced=%s blas_core=%s\n",
           c->in.queries, c->in.dim, sct_ips_simd_name(c->in.simd),
           r->simd_given ? "option" : "cpuid", c->in.l1d_bytes, c->in.l2_bytes,
           sct_ips_path_name(c->in.forced), c->in.blas_core ? c->in.blas_core : "unknown");
}

static void sct__print_model(const struct sct_ips_run *r)
{
    int demand = r->pool * r->team * r->blas_threads;

    if (r->split)
        printf("model: %d request handler(s) (pthreads: pool_threads) search all %zu queries "
               "in one pass, each its slice of the database, then each merges its share; "
               "sgemm, where it runs, with %d BLAS thread(s) per call (%s), top-k fused; %d "
               "compute thread(s) pinned to cpus of the OpenMP places\n",
               r->pool, r->data.nq, r->blas_threads, r->blas_source, r->pool * r->team);
    else
        printf("model: %d request handler(s) (pthreads: pool_threads) take blocks of %zu "
               "queries from a shared queue (%zu requests per search); each block is searched "
               "by an OpenMP team of %d (threads %d / pool_threads %d) by the scan or by "
               "sgemm with %d BLAS thread(s) per call (%s), top-k fused; %d compute thread(s) "
               "pinned to cpus of the OpenMP places\n",
               r->pool, r->block, r->nreq, r->team, r->omp_threads, r->pool, r->blas_threads,
               r->blas_source, r->pool * r->team);
    printf("threads: omp_threads=%d pool_threads=%d team_threads=%d blas_threads=%d "
           "compute_threads=%d cpus=%d\n",
           r->omp_threads, r->pool, r->team, r->blas_threads, r->pool * r->team, r->ncpus);
    if (r->pool != r->omp_threads)
        printf("mismatch: pool_threads=%d threads=%d: %s\n", r->pool, r->omp_threads,
               r->pool > r->omp_threads
                   ? "more request handlers than OpenMP threads: handlers share cpus"
                   : "fewer request handlers than OpenMP threads: each leads a team");
    if (demand > r->ncpus)
        printf("warning: oversubscribed: %d handlers x %d team x %d BLAS threads = %d threads "
               "for %d cpus\n",
               r->pool, r->team, r->blas_threads, demand, r->ncpus);
}

/* Everything the table and the JSON report. */
struct sct_figures {
    const struct sct_kernel_stats *st;
    struct sct_ips_thread_figures th;
    double qps, recall;
    size_t samples;
    int ok;
};

/* The result table (best = fastest counted search; thread columns are sums over the
 * compute threads) and every figure of the JSON's "metrics" as greppable key=value lines,
 * from which `streamcard verify` re-checks results.json. */
static void sct__print_table(const struct sct_figures *f)
{
    printf("%s\n", SCT_LINE);
    printf("Search         QPS    GFLOP/s  Wall best s  Wall avg s  Thread best s  "
           "Thread CPU s  recall@k\n");
    printf("ipsearch %11.1f %10.2f %12.6f %11.6f %14.6f %13.6f %9.3f\n", f->qps, f->st->best_gflops,
           f->st->min_s, f->st->avg_s, f->th.busy_best, f->th.cpu_best, f->recall);
    printf("%s\n", SCT_LINE);
    printf("qps=%.1f wall_seconds=%.6f total_thread_seconds=%.6f total_thread_cpu_seconds=%.6f "
           "gflops=%.2f recall_at_k=%.3f\n",
           f->qps, f->st->min_s, f->th.busy_best, f->th.cpu_best, f->st->best_gflops, f->recall);
    printf("avg_wall_seconds=%.6f max_wall_seconds=%.6f avg_total_thread_seconds=%.6f "
           "avg_total_thread_cpu_seconds=%.6f\n",
           f->st->avg_s, f->st->max_s, f->th.busy_avg, f->th.cpu_avg);
}

/* Adds key: v, written with a timing's nine digits (null when not finite), to o. */
static void sct__add_num(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, sct_json_double(v, SCT_JSON_TIMING));
}

/* The "metrics" object: every figure of the table, and every search's wall seconds, the
   warm-up first (as STREAM's rep_seconds). */
static json_object *sct__metrics(const struct sct_ips_run *r, const struct sct_figures *fig)
{
    json_object *m = json_object_new_object(), *reps = json_object_new_object();
    json_object *search = json_object_new_array();

    if (!m || !reps || !search) {
        json_object_put(m);
        json_object_put(reps);
        json_object_put(search);
        return NULL;
    }
    sct__add_num(m, "qps", fig->qps);
    sct__add_num(m, "gflops", fig->st->best_gflops);
    sct__add_num(m, "total_thread_seconds", fig->th.busy_best);
    sct__add_num(m, "wall_seconds", fig->st->min_s);
    sct__add_num(m, "recall_at_k", fig->recall);
    sct__add_num(m, "avg_wall_seconds", fig->st->avg_s);
    sct__add_num(m, "max_wall_seconds", fig->st->max_s);
    sct__add_num(m, "avg_total_thread_seconds", fig->th.busy_avg);
    sct__add_num(m, "total_thread_cpu_seconds", fig->th.cpu_best);
    sct__add_num(m, "avg_total_thread_cpu_seconds", fig->th.cpu_avg);
    for (int rep = 0; r->rep_wall_s && rep < r->iterations; rep++)
        json_object_array_add(search, sct_json_double(r->rep_wall_s[rep], SCT_JSON_TIMING));
    json_object_object_add(reps, "search", search);
    json_object_object_add(m, SC_RESULT_REP_SECONDS, reps);
    return m;
}

/* Where each compute thread ran: [{"pool": p, "thread": j, "tid": t, "cpu": c}, ...]. */
static json_object *sct__bindings(const struct sct_ips_run *r)
{
    json_object *list = json_object_new_array();

    for (int i = 0; list && i < r->pool * r->team; i++) {
        json_object *b = json_object_new_object();
        if (b) {
            json_object_object_add(b, "pool", json_object_new_int(i / r->team));
            json_object_object_add(b, "thread", json_object_new_int(i % r->team));
            json_object_object_add(b, "tid", json_object_new_int((int)r->slots[i].tid));
            json_object_object_add(b, "cpu", json_object_new_int(r->slots[i].cpu));
        }
        json_object_array_add(list, b);
    }
    return list;
}

/* How the search ran: path, SIMD variant, layout, and why (see ipsearch_path.h). */
static json_object *sct__search_json(const struct sct_ips_run *r)
{
    const struct sct_ips_path_choice *c = &r->path;
    json_object *s = json_object_new_object();

    if (!s)
        return NULL;
    json_object_object_add(s, "path", json_object_new_string(sct_ips_path_name(c->path)));
    json_object_object_add(s, "simd", json_object_new_string(sct_ips_simd_name(c->in.simd)));
    json_object_object_add(s, "simd_source",
                           json_object_new_string(r->simd_given ? "option" : "cpuid"));
    json_object_object_add(s, "layout", json_object_new_string(sct_ips_layout_name(r)));
    json_object_object_add(s, "layout_source",
                           json_object_new_string(r->pool_given ? "pool_threads" : "default"));
    json_object_object_add(s, "queries_per_pass", json_object_new_uint64(c->in.queries));
    json_object_object_add(s, "dim", json_object_new_uint64(c->in.dim));
    json_object_object_add(s, "forced", json_object_new_string(sct_ips_path_name(c->in.forced)));
    json_object_object_add(s, "blas_core",
                           json_object_new_string(c->in.blas_core ? c->in.blas_core : "unknown"));
    json_object_object_add(s, "reason", json_object_new_string(c->reason));
    json_object_object_add(s, "l1d_bytes", json_object_new_uint64(c->in.l1d_bytes));
    json_object_object_add(s, "l2_bytes", json_object_new_uint64(c->in.l2_bytes));
    json_object_object_add(s, "tile_rows", json_object_new_uint64(r->slots[0].ws.tile_rows));
    return s;
}

/* The "evidence" object: the BLAS and OpenMP in force, the threads and where they ran,
   the CPU time of the main loop, the hardware counters. */
static json_object *sct__evidence(const struct sct_ips_run *r, const struct sct_blas_info *blas,
                                  const struct sct_accounting *a,
                                  const struct sct_perf_counts *counts)
{
    char omp[PATH_MAX];
    json_object *e = json_object_new_object(), *cpu = json_object_new_object();

    if (!e || !cpu) {
        json_object_put(e);
        json_object_put(cpu);
        return NULL;
    }
    if (sct_openmp_runtime_path(omp, sizeof(omp)) != 0)
        strcpy(omp, "none");
    json_object_object_add(e, "blas", sct_blas_json(blas));
    json_object_object_add(e, "blas_threads", json_object_new_int(r->blas_threads));
    json_object_object_add(e, "blas_threads_source", json_object_new_string(r->blas_source));
    json_object_object_add(e, "openmp_runtime", json_object_new_string(omp));
    json_object_object_add(e, "env", sct_thread_env_json());
    json_object_object_add(e, "pool_threads", json_object_new_int(r->pool));
    json_object_object_add(e, "omp_threads", json_object_new_int(r->omp_threads));
    json_object_object_add(e, "team_threads", json_object_new_int(r->team));
    json_object_object_add(e, "compute_threads", json_object_new_int(r->pool * r->team));
    json_object_object_add(e, "cpus", json_object_new_int(r->ncpus));
    json_object_object_add(e, "queries_per_request", json_object_new_uint64(r->block));
    json_object_object_add(e, "requests", json_object_new_uint64(r->nreq));
    json_object_object_add(e, "search", sct__search_json(r));
    json_object_object_add(e, "pool_threads_match_omp_threads",
                           json_object_new_boolean(r->pool == r->omp_threads));
    json_object_object_add(e, "oversubscribed",
                           json_object_new_boolean(r->pool * r->team * r->blas_threads > r->ncpus));
    json_object_object_add(e, "compute_thread_bindings", sct__bindings(r));
    json_object_object_add(cpu, "source", json_object_new_string(a->after.source));
    sct__add_num(cpu, "compute", a->compute_s);
    sct__add_num(cpu, "main_team", a->team_s);
    sct__add_num(cpu, "other", a->other_s);
    json_object_object_add(e, "cpu_seconds_main_loop", cpu);
    json_object_object_add(e, "counters", sct_perf_json(counts));
    json_object_object_add(e, "simd_share", sct_perf_json_simd(counts));
    return e;
}

static int sct__write_json(FILE *f, const struct sct_ips_run *r, const struct sct_ips_opts *o,
                           const struct sct_figures *fig, const struct sct_blas_info *blas,
                           const struct sct_accounting *a, const struct sct_perf_counts *counts)
{
    char checksum[32];
    json_object *root = json_object_new_object();
    int rc;

    if (!root)
        return -ENOMEM;
    snprintf(checksum, sizeof(checksum), "0x%016llx",
             (unsigned long long)sct_ips_results_checksum(&r->res));
    json_object_object_add(root, "schema", json_object_new_int(1));
    json_object_object_add(root, "workload", json_object_new_string("ipsearch"));
    json_object_object_add(root, "nb", json_object_new_uint64(o->nb));
    json_object_object_add(root, "nq", json_object_new_uint64(o->nq));
    json_object_object_add(root, "dim", json_object_new_uint64(o->dim));
    json_object_object_add(root, "k", json_object_new_uint64(o->k));
    json_object_object_add(root, "iterations", json_object_new_int(r->iterations));
    json_object_object_add(root, "seed", json_object_new_uint64(o->seed));
    json_object_object_add(root, "threads", json_object_new_int(r->omp_threads));
    json_object_object_add(root, "pool_threads", json_object_new_int(r->pool));
    json_object_object_add(root, SC_RESULT_METRICS, sct__metrics(r, fig));
    json_object_object_add(root, "evidence", sct__evidence(r, blas, a, counts));
    json_object_object_add(root, "validation", json_object_new_string(fig->ok ? "ok" : "failed"));
    json_object_object_add(root, "sampled_queries", json_object_new_uint64(fig->samples));
    json_object_object_add(root, "tolerance", json_object_new_string(SCT_IPS_TOLERANCE_TEXT));
    json_object_object_add(root, "results_checksum", json_object_new_string(checksum));
    rc = sct_json_write(f, root);
    json_object_put(root);
    return rc;
}

/* ---- options ------------------------------------------------------------------------------ */

static void sct__usage(FILE *out)
{
    fprintf(out,
            "usage: " SCT_PROG " [options]\n"
            "Exact top-k inner-product search (faiss IndexFlatIP method: OpenBLAS sgemm with a\n"
            "fused top-k) by a pool of request handlers, with streamcard trace lines.\n"
            "\n"
            "  --nb N            database vectors, N >= 1 (default 200000)\n"
            "  --nq N            queries per search, N >= 1 (default 1000)\n"
            "  --dim N           vector dimension, 1..65536 (default 128)\n"
            "  --k N             results per query, 1..4096 and <= nb (default 10)\n"
            "  --pool-threads N  the application's request handlers (pthreads), N >= 1, each\n"
            "                    taking whole requests (default: one per OpenMP thread, and\n"
            "                    for small batches they split the database instead)\n"
            "  --search-path P   auto | scan | sgemm: the single-pass SIMD scan, or sgemm\n"
            "                    tiles (default auto: a rule on the queries per pass, the\n"
            "                    dimension, the SIMD variant and the L1d)\n"
            "  --search-simd V   auto | scalar | avx2-fma | avx512f: the SIMD variant of the\n"
            "                    scan and of the tiles' top-k filter, one this CPU runs\n"
            "                    (default auto: the widest, by CPUID)\n"
            "  --iterations N    searches of all queries, N >= 2; the first is a warm-up and\n"
            "                    not counted (default 3)\n"
            "  --seed N          data generator seed (default 1)\n"
            "  --json PATH       also write the results and evidence as JSON to PATH\n"
            "  --build-info      print compiler, flags, OpenMP runtime, BLAS library and exit\n"
            "  --help            print this help and exit\n"
            "\n"
            "OpenMP threads and binding come from OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND;\n"
            "BLAS runs one thread per call unless OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS is\n"
            "set. Exit status: 0 validated, 1 validation failed or run-time error, 2 bad usage.\n"
            "\n"
            "Test-only (never set in a real run): STREAMCARD_FAULT=corrupt damages one result\n"
            "after the main loop (validation must fail), =crash raises SIGSEGV and =hang\n"
            "sleeps forever, both halfway through the main loop.\n");
}

/* --search-simd: auto, or a variant this CPU runs; 0 or -EINVAL after the one-line error. */
static int sct__parse_simd(const char *text, struct sct_ips_opts *o)
{
    char valid[96] = "this CPU runs auto";
    size_t n = strlen(valid);
    int known;

    o->simd_given = strcmp(text, "auto") != 0;
    if (!o->simd_given)
        return 0;
    known = sct_ips_simd_parse(text, &o->simd) == 0;
    if (known && sct_ips_simd_supported(o->simd))
        return 0;
    for (int v = 0; v < SCT_IPS_SIMD_COUNT && n < sizeof(valid); v++)
        if (sct_ips_simd_supported((enum sct_ips_simd)v))
            n += (size_t)snprintf(valid + n, sizeof(valid) - n, ", %s",
                                  sct_ips_simd_name((enum sct_ips_simd)v));
    return sct_cli_bad(SCT_PROG, "--search-simd",
                       known ? "this CPU does not run it" : "not a SIMD variant", valid);
}

/* Parse argv into o; 0 or -EINVAL after printing the one-line error. */
static int sct__parse_options(int argc, char **argv, struct sct_ips_opts *o)
{
    static const struct option longopts[] = {
        {"nb", required_argument, NULL, 'b'},
        {"nq", required_argument, NULL, 'q'},
        {"dim", required_argument, NULL, 'd'},
        {"k", required_argument, NULL, 'k'},
        {"pool-threads", required_argument, NULL, 'p'},
        {"iterations", required_argument, NULL, 'i'},
        {"seed", required_argument, NULL, 's'},
        {"search-path", required_argument, NULL, 'P'},
        {"search-simd", required_argument, NULL, 'S'},
        SCT_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    int c, rc = 0;

    *o = (struct sct_ips_opts){
        .nb = 200000, .nq = 1000, .dim = 128, .k = 10, .iterations = 3, .seed = 1};
    opterr = 0; /* our own one-line messages */
    while (rc == 0 && (c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'b':
            rc = sct_cli_count(SCT_PROG, "--nb", optarg, 1, 1ULL << 34, "1 to 2^34 vectors", &v);
            o->nb = (size_t)v;
            break;
        case 'q':
            rc = sct_cli_count(SCT_PROG, "--nq", optarg, 1, 1ULL << 30, "1 to 2^30 queries", &v);
            o->nq = (size_t)v;
            break;
        case 'd':
            rc = sct_cli_count(SCT_PROG, "--dim", optarg, 1, 65536, "1 to 65536", &v);
            o->dim = (size_t)v;
            break;
        case 'k':
            rc = sct_cli_count(SCT_PROG, "--k", optarg, 1, 4096, "1 to 4096, at most --nb", &v);
            o->k = (size_t)v;
            break;
        case 'p':
            rc = sct_cli_count(SCT_PROG, "--pool-threads", optarg, 1, 65536, "1 to 65536", &v);
            o->pool = (int)v;
            break;
        case 'i':
            rc = sct_cli_count(SCT_PROG, "--iterations", optarg, 2, 1000000,
                               "2 to 1000000: the first search is a warm-up", &v);
            o->iterations = (int)v;
            break;
        case 's':
            rc = sct_cli_count(SCT_PROG, "--seed", optarg, 0, UINT64_MAX, "a whole number", &v);
            o->seed = v;
            break;
        case 'P':
            if (sct_ips_path_parse(optarg, &o->path) != 0)
                rc = sct_cli_bad(SCT_PROG, "--search-path", "not a search path",
                                 "auto, scan or sgemm");
            break;
        case 'S':
            rc = sct__parse_simd(optarg, o);
            break;
        default:
            rc = sct_cli_common_opt(SCT_PROG, c, optarg, argv, &o->cli);
        }
    }
    if (rc || (rc = sct_cli_no_operands(SCT_PROG, argc, argv)))
        return rc;
    if (o->k > o->nb)
        return sct_cli_bad(SCT_PROG, "--k", "more results than database vectors", "k <= nb");
    /* 2 * nq * nb * dim flops must fit the harness's element count with room. */
    if ((double)o->nq * (double)o->nb * (double)o->dim > 0x1p62)
        return sct_cli_bad(SCT_PROG, "--nq", "nq * nb * dim is too large", "nq * nb * dim <= 2^62");
    return 0;
}

/* ---- the run ------------------------------------------------------------------------------- */

static void sct__print_header(const struct sct_ips_opts *o)
{
    double mib = (double)o->nb * (double)o->dim * sizeof(float) / (1024.0 * 1024.0);

    printf("%s\n", SCT_LINE);
    printf("ipsearch: exact inner-product top-k (faiss IndexFlatIP method), " SCT_PROG "\n");
    printf("%s\n", SCT_LINE);
    printf("Database nb = %zu vectors, dim = %zu, float32 (%.1f MiB)\n", o->nb, o->dim, mib);
    printf("Queries nq = %zu, k = %zu\n", o->nq, o->k);
    printf("Each search will be executed %d times; the first is a warm-up and not counted.\n",
           o->iterations);
    printf("%s\n", SCT_LINE);
}

/* The main loop between the phase lines, with the accounting snapshots around it. */
static int sct__main_loop(struct sct_ips_run *r, struct sct_kernel_stats *st,
                          struct sct_accounting *a, struct sct_perf_counts *counts)
{
    struct sct_kernel desc = {"search", "Search", 0, 2.0 * (double)r->data.dim, sct_ips_search};
    const struct sct_kernel *kernels[1] = {&desc};
    struct sct_harness h = {.elements = r->data.nq * r->data.nb,
                            .iterations = r->iterations,
                            .rep_seconds = r->rep_wall_s,
                            .ctx = r,
                            .after_repetition = sct_ips_after_repetition};
    int rc;

    sct_phase(SC_TRACE_MAIN_LOOP_BEGIN);
    sct_task_snapshot_take(&a->before);
    sct_ips_counters(r, 1, NULL);
    rc = sct_harness_run(&h, kernels, 1, st);
    sct_ips_counters(r, 0, counts);
    sct_task_snapshot_take(&a->after);
    sct_phase(SC_TRACE_MAIN_LOOP_END);
    return rc;
}

/*
 * Count and bind threads, generate the data, start the pool, run the main loop, validate,
 * print and write the JSON. Returns the exit status.
 */
static int sct__ips_execute(const struct sct_ips_opts *o, struct sct_ips_run *r, FILE *json)
{
    struct sct_kernel_stats st;
    struct sct_blas_info blas;
    struct sct_accounting acct = {0};
    struct sct_perf_counts counts;
    struct sct_figures fig = {.st = &st};
    int counted = 0, rc = SCT_EXIT_FAILED;

    sct__print_header(o);
    sct_threads_requested(r->omp_threads);
#pragma omp parallel num_threads(r->omp_threads)
    {
        if (omp_get_thread_num() < r->omp_threads)
            r->omp_tids[omp_get_thread_num()] = gettid();
        sct_thread_binding(omp_get_thread_num(), sched_getcpu());
#pragma omp atomic
        counted++;
    }
    sct_threads_counted(counted);

    if (sct_ips_data_alloc(&r->data, o->nb, o->nq, o->dim) != 0 ||
        sct_ips_run_setup(r, o->pool, o->k) != 0) {
        fprintf(stderr, SCT_PROG ": setting up %zu x %zu database: %s (smaller --nb or --dim)\n",
                o->nb, o->dim, strerror(ENOMEM));
        goto out;
    }
    sct_ips_data_fill(&r->data, o->seed, r->omp_threads);
    printf("Data: seed = %llu, splitmix64 uniform [0,1), database checksum 0x%016llx, queries "
           "checksum 0x%016llx\n",
           o->seed,
           (unsigned long long)sct_ips_checksum(r->data.db, o->nb * o->dim, r->omp_threads),
           (unsigned long long)sct_ips_checksum(r->data.q, o->nq * o->dim, r->omp_threads));
    sct_ips_blas_threads_set(r);
    sct_blas_probe(&blas);
    sct_blas_print(stdout, "blas: ", &blas);
    sct_thread_env_print(stdout, "env: ");
    sct__print_model(r);
    r->forced = o->path;
    r->simd_given = o->simd_given;
    r->simd = o->simd;
    sct_ips_run_choose_path(r, blas.corename);
    sct__print_search(r);
    if (sct_ips_pool_start(r) != 0) {
        fprintf(stderr, SCT_PROG ": starting %d request handlers: %s (fewer --pool-threads)\n",
                r->pool, strerror(EAGAIN));
        goto out;
    }

    sct_perf_counts_init(&counts);
    if (sct__main_loop(r, &st, &acct, &counts) != 0)
        goto out_stop; /* not reached: options were checked */
    sct_ips_pool_stop(r);

    if (r->fault == SCT_FAULT_CORRUPT) { /* query 0 is always validated */
        r->res.score[0] += 1.0f + fabsf(r->res.score[0]);
        r->res.id[0] = (r->res.id[0] + 1) % (int64_t)o->nb;
    }
    fig.ok = sct__validate(r, &fig.samples, &fig.recall);
    sct_ips_thread_figures(r, &fig.th);
    fig.qps = st.min_s > 0 ? (double)o->nq / st.min_s : 0; /* no "inf" in the log */
    sct__print_table(&fig);
    sct__accounting_sum(r, &acct);
    sct__print_accounting(r, &acct);
    sct_perf_print(stdout, "counters: ", &counts);
    sct_perf_print_simd(stdout, "simd_share: ", &counts);
    printf("results_checksum=0x%016llx\n", (unsigned long long)sct_ips_results_checksum(&r->res));
    if (fig.ok)
        printf(SC_TRACE_VALIDATES " (ipsearch top-k, %zu sampled queries, recall@k=%.3f)\n",
               fig.samples, fig.recall);
    else
        printf(SC_TRACE_FAILED_VALIDATION ": ipsearch top-k, %zu sampled queries, recall@k=%.3f\n",
               fig.samples, fig.recall);
    printf("%s\n", SCT_LINE);
    rc = fig.ok ? 0 : SCT_EXIT_FAILED;
    if (json && sct__write_json(json, r, o, &fig, &blas, &acct, &counts) != 0) {
        sct_cli_bad(SCT_PROG, "--json", strerror(EIO), "a writable file path with space");
        rc = SCT_EXIT_FAILED;
    }
out_stop:
    sct_ips_pool_stop(r);
out:
    sct_task_snapshot_free(&acct.before);
    sct_task_snapshot_free(&acct.after);
    return rc;
}

/* --build-info: the shared build identity plus the BLAS library this binary runs. */
static int sct__ips_build_info(void)
{
    struct sct_blas_info blas;

    if (sct_build_info_print(stdout, sizeof(float)) != 0)
        return SCT_EXIT_FAILED;
    sct_blas_probe(&blas);
    return sct_blas_print(stdout, "", &blas) == 0 && fflush(stdout) == 0 ? 0 : SCT_EXIT_FAILED;
}

/* Options, environment and the results file; everything else is sct__ips_execute(). */
int main(int argc, char **argv)
{
    struct sct_ips_opts o;
    struct sct_ips_run r = {.lock = PTHREAD_MUTEX_INITIALIZER,
                            .go = PTHREAD_COND_INITIALIZER,
                            .done = PTHREAD_COND_INITIALIZER};
    FILE *json = NULL;
    int rc;

    if (sct__parse_options(argc, argv, &o))
        return SCT_EXIT_USAGE;
    if (o.cli.help) {
        sct__usage(stdout);
        return 0;
    }
    if (o.cli.build_info)
        return sct__ips_build_info();
    if (sct_fault_read(SCT_PROG, &r.fault))
        return SCT_EXIT_USAGE;
    /* Open the results file first: a bad path should not cost a long run. */
    if (o.cli.json && !(json = sct_cli_open_json(SCT_PROG, o.cli.json)))
        return SCT_EXIT_USAGE;
    setvbuf(stdout, NULL, _IOLBF, 0); /* the log keeps every line even if we crash */

    r.omp_threads = omp_get_max_threads(); /* before BLAS may change this thread's ICV */
    if (!(r.omp_tids = calloc((size_t)r.omp_threads, sizeof(pid_t)))) {
        fprintf(stderr, SCT_PROG ": allocating %d thread ids: %s (fewer OpenMP threads)\n",
                r.omp_threads, strerror(ENOMEM));
        if (json)
            fclose(json);
        return SCT_EXIT_FAILED;
    }
    r.iterations = o.iterations;
    rc = sct__ips_execute(&o, &r, json);
    sct_ips_run_free(&r);
    if (json && sct_cli_close_json(SCT_PROG, o.cli.json, json) != 0)
        rc = SCT_EXIT_FAILED;
    return rc;
}
