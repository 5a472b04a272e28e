/*
 * ipsearch_pool.h: the request-handler pool of streamcard-ipsearch and the OpenMP teams it
 * leads (the threading model is described at the top of ipsearch.c).
 *
 * A run owns the data, the results, one slot per compute thread (handler p is slot
 * p * team, thread j of its team slot p * team + j) and the queue. The harness calls
 * sct_ips_search() once per repetition: it releases the handlers, which take requests
 * (blocks of queries) until the queue is empty, and returns when all are done.
 */
#ifndef SC_KERNELS_IPSEARCH_POOL_H
#define SC_KERNELS_IPSEARCH_POOL_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "workload_cli.h"
#include "ipsearch_engine.h"
#include "ipsearch_path.h"
#include "perfcount.h"

/* Queries per request, at most: every request streams the whole database through sgemm's
 * packing once, so big requests read it fewer times per search (1024: ~4% faster than 512
 * at nq = 1000 on one core). */
#define SCT_IPS_MAX_BLOCK 1024

/*
 * The default layout (no --pool-threads) splits the database instead of the queries when
 * the whole batch is one request's worth (at most SCT_IPS_MAX_BLOCK queries): every
 * compute thread then searches its own rows for all queries, so every core works even for
 * one query and the database is read once per search, not once per handler. For sgemm it
 * is also the cheaper split: one taller product per tile (measured on 2 cpus at nq = 256
 * and 1000: 5-10% less CPU time than two handlers with half the queries each). Larger
 * batches are cut into requests, at least one per handler.
 */

struct sct_ips_run;

/* What a request handler thread is started with. */
struct sct_handler_arg {
    struct sct_ips_run *r;
    int p;
};

/* One compute thread: pool handler p is slot p * team, its team's thread j slot + j. */
struct sct_ips_slot {
    struct sct_ips_workspace ws;
    struct sct_perf perf;
    pid_t tid;
    int cpu;       /* the cpu it is pinned to */
    double busy_s; /* wall seconds it worked in the current repetition */
    double cpu_s;  /* CPU seconds (CLOCK_THREAD_CPUTIME_ID) it used for that work */
};

/* The whole run; the harness hands it to sct_ips_search() as ctx. */
struct sct_ips_run {
    struct sct_ips_data data;
    struct sct_ips_results res;
    size_t block, nreq; /* queries per request, requests per search */
    int omp_threads, pool, team, iterations;
    int pool_given;                  /* --pool-threads: handlers take whole requests, as asked */
    int split;                       /* one pass per search: handler p searches rows slice p */
    pthread_barrier_t split_barrier; /* split: every slice searched before any merge */
    enum sct_ips_path forced;        /* --search-path */
    int simd_given;                  /* --search-simd: simd below, else the widest this CPU runs */
    enum sct_ips_simd simd;
    struct sct_ips_path_choice path;
    int blas_threads; /* as set for the search */
    const char *blas_source;
    int *cpus, ncpus; /* where compute threads go, in order */
    pid_t *omp_tids;  /* the main OpenMP team's threads, by thread number */
    struct sct_ips_slot *slots;
    struct sct_ips_workspace **parts; /* &slots[i].ws, for the merge */
    pthread_t *handlers;              /* handler p's thread (p >= caller_is_first) */
    struct sct_handler_arg *args;
    int caller_is_first; /* handler 0 is the thread that calls sct_ips_search() */
    int started;         /* the handlers are running */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned long generation;
    int ready, finished, quit;
    size_t next;                    /* the queue: next request, taken atomically */
    double *rep_busy_s, *rep_cpu_s; /* per repetition: compute threads' sums */
    double *rep_wall_s;             /* per repetition: the search's wall seconds (harness) */
    enum sct_fault fault;
};

/*
 * Size the run for pool handlers (0: the default layout, as many handlers as OpenMP
 * threads, splitting the database for small batches) and k results per query: the cpus,
 * the team per handler (threads / pool, at least 1), the layout and requests, and every
 * buffer but the data. Returns 0, -ENOMEM, or -ENODEV when no cpu is usable.
 */
int sct_ips_run_setup(struct sct_ips_run *r, int pool, size_t k);

/* Choose the search path for the run's passes (after the data and BLAS threads are set) and
 * the SIMD variant of the scan and of the sgemm tiles' top-k filter; blas_core: OpenBLAS's
 * kernel set (openblas_get_corename()), or NULL. */
void sct_ips_run_choose_path(struct sct_ips_run *r, const char *blas_core);

/* "split-database" or "split-queries". */
const char *sct_ips_layout_name(const struct sct_ips_run *r);

/* Free everything the run holds, the data too (takes a zeroed run). */
void sct_ips_run_free(struct sct_ips_run *r);

/* One BLAS thread per call unless OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS is set; records
 * the count and where it came from in r. */
void sct_ips_blas_threads_set(struct sct_ips_run *r);

/* Start the handlers; returns when every compute thread is pinned and has printed its
 * "TRACE_POOL_THREAD pool=<p> thread=<j> cpu=<c>" line. Handlers without a team: the
 * calling thread becomes handler 0 (pinned here) and works in sct_ips_search(). 0 or
 * -EAGAIN. */
int sct_ips_pool_start(struct sct_ips_run *r);

/* Stop the handlers and wait for them (no-op when none run). */
void sct_ips_pool_stop(struct sct_ips_run *r);

/* Harness kernel: one search of all queries. */
void sct_ips_search(void *ctx);

/* Harness hook: the repetition's compute-thread CPU seconds; test faults strike here. */
void sct_ips_after_repetition(int rep, void *ctx);

/* Enable (on = 1) or stop and add into total (on = 0) every compute thread's counters. */
void sct_ips_counters(struct sct_ips_run *r, int on, struct sct_perf_counts *total);

/*
 * The users' figure, total thread time of one search: the busy (wall) seconds of every
 * compute thread, summed, as a service's workers time their own search calls; and the CPU
 * seconds of the same work. Busy time grows when threads wait for a cpu (oversubscription,
 * spinning neighbours); CPU time does not. Minimum and mean over the counted repetitions.
 */
struct sct_ips_thread_figures {
    double busy_best, busy_avg, cpu_best, cpu_avg;
};
void sct_ips_thread_figures(const struct sct_ips_run *r, struct sct_ips_thread_figures *f);

#endif
