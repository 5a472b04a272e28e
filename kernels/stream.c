/*
 * stream.c: streamcard-stream, the STREAM workload (copy, scale, add, triad).
 *
 * Follows STREAM's method (McCalpin): three arrays of doubles, first touched by the OpenMP
 * threads that later work on them, each kernel timed over `iterations` repetitions with the
 * first skipped, the best time turned into MB/s with STREAM's bytes-per-kernel table, and
 * the result validated by replaying the scalar recurrence. Unlike the reference source,
 * sizes are chosen at run time, every element is checked, streaming stores are an explicit,
 * reported choice, and the run prints the streamcard trace lines (sc_trace_protocol.h;
 * doc/contracts/trace-protocol.md, "The trace protocol") and optionally writes its results as JSON.
 *
 * Exit status: 0 validated, 1 validation failed or a run-time error, 2 bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cacheprobe.h"
#include "harness.h"
#include "results_json.h"
#include "sc_results_protocol.h"
#include "stream_ops.h"
#include "trace.h"
#include "workload_cli.h"

#define SCT_PROG "streamcard-stream"
#define SCT_SCALAR 3.0       /* STREAM's scalar */
#define SCT_EPSILON 1e-13    /* STREAM's relative tolerance for 8-byte elements */
#define SCT_GRANULE 512      /* 4 KiB of doubles: thread chunks start on page boundaries */
#define SCT_HUGE (2UL << 20) /* arrays at least this big are 2 MiB aligned for THP */
#define SCT_EXIT_FAILED 1    /* validation failed or run-time error */
#define SCT_EXIT_USAGE 2     /* bad option or environment value */

enum { SCT_A, SCT_B, SCT_C, SCT_NARRAYS };
static const char *const sct__array_names[SCT_NARRAYS] = {"a", "b", "c"};

enum sct_kernel_id { SCT_K_COPY, SCT_K_SCALE, SCT_K_ADD, SCT_K_TRIAD, SCT_NKERNELS };

/* A STREAM kernel: the harness descriptor plus which arrays the loop reads and writes. */
struct sct_stream_kernel {
    struct sct_kernel desc;
    enum sct_stream_op op;
    int dst, x, y;        /* array indexes; y < 0 when unused */
    const char *contract; /* the "Solution Validates (...)" text for this kernel alone */
};

/* Everything a repetition needs; the harness passes it to run() as ctx. */
struct sct_stream_run {
    double *arr[SCT_NARRAYS];
    size_t n;
    int iterations;
    enum sct_nt_isa stores; /* SCT_NT_NONE: plain stores */
    enum sct_fault fault;
};

static void sct__run_copy(void *ctx);
static void sct__run_scale(void *ctx);
static void sct__run_add(void *ctx);
static void sct__run_triad(void *ctx);

/* STREAM's table: copy and scale move 2 words per element, add and triad 3. */
static const struct sct_stream_kernel sct__kernels[SCT_NKERNELS] = {
    [SCT_K_COPY] = {.desc = {"copy", "Copy:", 2 * sizeof(double), 0, sct__run_copy},
                    .op = SCT_OP_COPY,
                    .dst = SCT_C,
                    .x = SCT_A,
                    .y = -1,
                    .contract = "Copy-only single kernel contract"},
    [SCT_K_SCALE] = {.desc = {"scale", "Scale:", 2 * sizeof(double), 1, sct__run_scale},
                     .op = SCT_OP_SCALE,
                     .dst = SCT_B,
                     .x = SCT_C,
                     .y = -1,
                     .contract = "Scale-only single kernel contract"},
    [SCT_K_ADD] = {.desc = {"add", "Add:", 3 * sizeof(double), 1, sct__run_add},
                   .op = SCT_OP_ADD,
                   .dst = SCT_C,
                   .x = SCT_A,
                   .y = SCT_B,
                   .contract = "Add-only single kernel contract"},
    [SCT_K_TRIAD] = {.desc = {"triad", "Triad:", 3 * sizeof(double), 2, sct__run_triad},
                     .op = SCT_OP_TRIAD,
                     .dst = SCT_A,
                     .x = SCT_B,
                     .y = SCT_C,
                     .contract = "Triad-only single kernel contract"},
};

enum sct_nt_mode { SCT_NT_MODE_AUTO, SCT_NT_MODE_ON, SCT_NT_MODE_OFF };

struct sct_stream_opts {
    int kernel; /* an sct_kernel_id, or -1 for all four */
    size_t array_size;
    int iterations;
    enum sct_nt_mode nt;
    struct sct_cli_common cli;   /* --json, --build-info, --help */
    struct sct_probe_opts probe; /* --cache-probe: probe.max_bytes > 0, nothing else runs */
};

/* ---- the kernels ------------------------------------------------------------------- */

/* One repetition of kernel `id`: every thread runs its static chunk, then the join. */
static void sct__stream_kernel_run(struct sct_stream_run *r, enum sct_kernel_id id)
{
    const struct sct_stream_kernel *k = &sct__kernels[id];
    double *dst = r->arr[k->dst];
    const double *x = r->arr[k->x];
    const double *y = k->y >= 0 ? r->arr[k->y] : NULL;

#pragma omp parallel
    {
        size_t lo, hi;
        sct_static_chunk(r->n, SCT_GRANULE, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        sct_stream_range(r->stores, k->op, dst, x, y, SCT_SCALAR, lo, hi);
    }
}

static void sct__run_copy(void *ctx)
{
    sct__stream_kernel_run(ctx, SCT_K_COPY);
}

static void sct__run_scale(void *ctx)
{
    sct__stream_kernel_run(ctx, SCT_K_SCALE);
}

static void sct__run_add(void *ctx)
{
    sct__stream_kernel_run(ctx, SCT_K_ADD);
}

static void sct__run_triad(void *ctx)
{
    sct__stream_kernel_run(ctx, SCT_K_TRIAD);
}

/* Harness hook: the crash and hang faults strike halfway through the main loop. */
static void sct__stream_after_repetition(int rep, void *ctx)
{
    const struct sct_stream_run *r = ctx;

    if (rep == (r->iterations - 1) / 2)
        sct_fault_strike(r->fault);
}

/* ---- arrays -------------------------------------------------------------------------- */

/*
 * Page-aligned storage for n doubles; big arrays are 2 MiB aligned, padded to whole 2 MiB
 * and advised for transparent huge pages (THP in "madvise" mode only backs advised ranges).
 * Nothing is touched here: first touch is the threads' job.
 */
static double *sct__array_alloc(size_t n)
{
    size_t bytes = n * sizeof(double);
    size_t align = (size_t)sysconf(_SC_PAGESIZE);
    void *p;

    if (bytes >= SCT_HUGE) {
        align = SCT_HUGE;
        bytes = (bytes + SCT_HUGE - 1) / SCT_HUGE * SCT_HUGE;
    }
    if (posix_memalign(&p, align, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (align == SCT_HUGE)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* best effort: THP may be off */
#endif
    return p;
}

/* STREAM's initial values, written by each thread over its own chunk (first touch). */
static void sct__arrays_init(const struct sct_stream_run *r)
{
#pragma omp parallel
    {
        size_t lo, hi;
        sct_static_chunk(r->n, SCT_GRANULE, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            r->arr[SCT_A][i] = 1.0;
            r->arr[SCT_B][i] = 2.0;
            r->arr[SCT_C][i] = 0.0;
        }
    }
}

/* The kernels --kernel selects, in STREAM's order; returns how many. */
static size_t sct__select(int kernel, const struct sct_stream_kernel *sel[SCT_NKERNELS])
{
    size_t nsel = 0;

    for (int k = 0; k < SCT_NKERNELS; k++)
        if (kernel < 0 || kernel == k)
            sel[nsel++] = &sct__kernels[k];
    return nsel;
}

/* ---- validation ---------------------------------------------------------------------- */

/*
 * Replay the kernels on scalars, in the order the harness ran them, to get the value every
 * element of each array must hold. Returns -ERANGE when a value overflows (e.g. `all` with
 * hundreds of iterations grows 15x per repetition), which no run could validate.
 */
static int sct__stream_expected(const struct sct_stream_kernel *const sel[], size_t nsel,
                                int iterations, double expected[SCT_NARRAYS])
{
    double v[SCT_NARRAYS] = {1.0, 2.0, 0.0};

    for (int rep = 0; rep < iterations; rep++) {
        for (size_t j = 0; j < nsel; j++) {
            const struct sct_stream_kernel *k = sel[j];
            double x = v[k->x], y = k->y >= 0 ? v[k->y] : 0.0;
            switch (k->op) {
            case SCT_OP_COPY:
                v[k->dst] = x;
                break;
            case SCT_OP_SCALE:
                v[k->dst] = SCT_SCALAR * x;
                break;
            case SCT_OP_ADD:
                v[k->dst] = x + y;
                break;
            case SCT_OP_TRIAD:
                v[k->dst] = x + SCT_SCALAR * y;
                break;
            }
        }
        if (!isfinite(v[SCT_A]) || !isfinite(v[SCT_B]) || !isfinite(v[SCT_C]))
            return -ERANGE;
    }
    for (int a = 0; a < SCT_NARRAYS; a++)
        expected[a] = v[a];
    return 0;
}

/*
 * Count the elements of v that differ from expected by more than STREAM's relative epsilon
 * (NaN and Inf always differ), in parallel with the kernels' split. *first gets the lowest
 * wrong index. Returns the count.
 */
static size_t sct__array_check(const double *v, size_t n, double expected, size_t *first)
{
    const double tol = SCT_EPSILON * fabs(expected);
    size_t wrong = 0, lowest = SIZE_MAX;

#pragma omp parallel reduction(+ : wrong) reduction(min : lowest)
    {
        size_t lo, hi;
        sct_static_chunk(n, SCT_GRANULE, omp_get_num_threads(), omp_get_thread_num(), &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            if (!(fabs(v[i] - expected) <= tol)) {
                wrong++;
                if (i < lowest)
                    lowest = i;
            }
        }
    }
    *first = lowest;
    return wrong;
}

/* Check all three arrays (the ones no kernel wrote must still hold their start values). */
static int sct__stream_validate(const struct sct_stream_run *r, const double expected[SCT_NARRAYS])
{
    int ok = 1;

    for (int a = 0; a < SCT_NARRAYS; a++) {
        size_t first;
        size_t wrong = sct__array_check(r->arr[a], r->n, expected[a], &first);
        if (wrong == 0)
            continue;
        ok = 0;
        /* The message's own words stay one greppable literal. */
        /* clang-format off */
        printf(SC_TRACE_FAILED_VALIDATION ": %s %zu elements wrong, first at index %zu: expected %.17g got %.17g\n",
               sct__array_names[a], wrong, first, expected[a], r->arr[a][first]);
        /* clang-format on */
    }
    return ok;
}

/* ---- output -------------------------------------------------------------------------- */

static void sct__print_header(const struct sct_stream_opts *o)
{
    double mib = (double)o->array_size * sizeof(double) / (1024.0 * 1024.0);
    const char *line = "-------------------------------------------------------------";

    printf("%s\n", line);
    printf("STREAM method (McCalpin), streamcard-stream implementation\n");
    printf("%s\n", line);
    printf("This system uses %zu bytes per array element.\n", sizeof(double));
    printf("%s\n", line);
    printf("Array size = %zu (elements), Offset = 0 (elements)\n", o->array_size);
    printf("Memory per array = %.1f MiB (= %.1f GiB).\n", mib, mib / 1024.0);
    printf("Total memory required = %.1f MiB (= %.1f GiB).\n", 3.0 * mib, 3.0 * mib / 1024.0);
    printf("Each kernel will be executed %d times.\n", o->iterations);
    printf(SC_TRACE_CLOCK_GRANULARITY("%ld") "\n", sct_clock_granularity_us(NULL, NULL));
    printf(" The *best* time for each kernel (excluding the first iteration)\n");
    printf(" will be used to compute the reported bandwidth.\n");
    printf("%s\n", line);
}

static void sct__print_table(const struct sct_stream_kernel *const sel[], size_t nsel,
                             const struct sct_kernel_stats st[])
{
    printf("-------------------------------------------------------------\n");
    printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
    for (size_t j = 0; j < nsel; j++)
        printf("%-11s%12.1f  %11.6f  %11.6f  %11.6f\n", sel[j]->desc.label, st[j].best_rate_MBps,
               st[j].avg_s, st[j].min_s, st[j].max_s);
    printf("-------------------------------------------------------------\n");
}

/* {"avg_time_s": x, "min_time_s": x, "max_time_s": x} of one kernel, added to o. */
static void sct__add_times(json_object *o, const struct sct_kernel_stats *st)
{
    json_object_object_add(o, SC_RESULT_AVG_TIME_S, sct_json_double(st->avg_s, SCT_JSON_EXACT));
    json_object_object_add(o, SC_RESULT_MIN_TIME_S, sct_json_double(st->min_s, SCT_JSON_EXACT));
    json_object_object_add(o, SC_RESULT_MAX_TIME_S, sct_json_double(st->max_s, SCT_JSON_EXACT));
}

/* The "metrics" object: per-kernel "rates" and "times" always, the kernel's figures at
   the top when one kernel ran, every repetition's seconds when they were kept. */
static json_object *sct__metrics(const struct sct_stream_kernel *const sel[], size_t nsel,
                                 const struct sct_kernel_stats st[], const double *rep_s,
                                 int iterations)
{
    json_object *m = json_object_new_object(), *rates = json_object_new_object();
    json_object *times = json_object_new_object(), *reps = json_object_new_object();

    if (!m || !rates || !times || !reps) {
        json_object_put(m);
        json_object_put(rates);
        json_object_put(times);
        json_object_put(reps);
        return NULL;
    }
    if (nsel == 1) {
        json_object_object_add(m, SC_RESULT_BEST_RATE_MBPS,
                               sct_json_double(st[0].best_rate_MBps, SCT_JSON_EXACT));
        sct__add_times(m, &st[0]);
    }
    for (size_t j = 0; j < nsel; j++) {
        json_object *t = json_object_new_object();
        json_object_object_add(rates, sel[j]->desc.name,
                               sct_json_double(st[j].best_rate_MBps, SCT_JSON_EXACT));
        if (t)
            sct__add_times(t, &st[j]);
        json_object_object_add(times, sel[j]->desc.name, t);
    }
    /* Every repetition's seconds, the warm-up (the first) included: per-repetition plots. */
    for (size_t j = 0; rep_s && j < nsel; j++) {
        json_object *list = json_object_new_array();
        for (int rep = 0; list && rep < iterations; rep++)
            json_object_array_add(list,
                                  sct_json_double(rep_s[(size_t)rep * nsel + j], SCT_JSON_EXACT));
        json_object_object_add(reps, sel[j]->desc.name, list);
    }
    json_object_object_add(m, SC_RESULT_RATES, rates);
    json_object_object_add(m, SC_RESULT_TIMES, times);
    json_object_object_add(m, SC_RESULT_REP_SECONDS, reps);
    return m;
}

/* results of the run, keys as in doc/contracts/results.md ("results.json and build.json");
   per-kernel "rates" and "times" always. */
static int sct__write_json(FILE *f, const struct sct_stream_opts *o, int threads,
                           enum sct_nt_isa stores, const struct sct_stream_kernel *const sel[],
                           size_t nsel, const struct sct_kernel_stats st[], const double *rep_s,
                           int ok)
{
    json_object *root = json_object_new_object();
    int rc;

    if (!root)
        return -ENOMEM;
    json_object_object_add(root, "schema", json_object_new_int(1));
    json_object_object_add(root, "workload", json_object_new_string("stream"));
    json_object_object_add(root, "kernel",
                           json_object_new_string(o->kernel < 0 ? "all" : sel[0]->desc.name));
    json_object_object_add(root, "array_size", json_object_new_uint64(o->array_size));
    json_object_object_add(root, "iterations", json_object_new_int(o->iterations));
    json_object_object_add(root, "threads", json_object_new_int(threads));
    json_object_object_add(
        root, "nt_stores",
        json_object_new_string(stores == SCT_NT_NONE ? "off" : sct_nt_isa_name(stores)));
    json_object_object_add(root, SC_RESULT_METRICS,
                           sct__metrics(sel, nsel, st, rep_s, o->iterations));
    json_object_object_add(root, "validation", json_object_new_string(ok ? "ok" : "failed"));
    rc = sct_json_write(f, root);
    json_object_put(root);
    return rc;
}

/* ---- options ------------------------------------------------------------------------- */

static void sct__usage(FILE *out)
{
    fprintf(out,
            "usage: " SCT_PROG " [options]\n"
            "STREAM copy/scale/add/triad with streamcard trace lines.\n"
            "\n"
            "  --kernel copy|scale|add|triad|all   kernel(s) to run (default all)\n"
            "  --array-size N        elements per array, N >= 1 (default 10000000)\n"
            "  --iterations N        repetitions per kernel, N >= 2; the first is not\n"
            "                        counted (default 10)\n"
            "  --nt-stores auto|on|off\n"
            "                        non-temporal stores: auto uses the widest the CPU has\n"
            "                        (avx512f, avx, sse2; plain stores off x86-64), on requires\n"
            "                        them, off uses plain stores (default auto)\n"
            "  --json PATH           also write the results as JSON to PATH\n"
            "  --build-info          print compiler, flags, OpenMP runtime and exit\n"
            "  --help                print this help and exit\n"
            "  --cache-probe BYTES   instead of STREAM: the read rate of working sets from\n"
            "                        256 KiB to BYTES (the measured cache rule's probe)\n"
            "  --probe-cpus LIST     the probe's CPUs, a comma list; thread t on the t-th\n"
            "  --probe-threads N     the probe's threads (default: one per CPU of the list)\n"
            "\n"
            "Threads and binding come from the OpenMP environment (OMP_NUM_THREADS,\n"
            "OMP_PROC_BIND, OMP_PLACES). Exit status: 0 validated, 1 validation failed or\n"
            "run-time error, 2 bad usage.\n"
            "\n"
            "Test-only (never set in a real run): STREAMCARD_FAULT=corrupt corrupts one\n"
            "element after the main loop (validation must fail), =crash raises SIGSEGV and\n"
            "=hang sleeps forever, both halfway through the main loop.\n");
}

static int sct__parse_kernel(const char *s, int *out)
{
    char why[160];

    if (strcmp(s, "all") == 0) {
        *out = -1;
        return 0;
    }
    for (int k = 0; k < SCT_NKERNELS; k++) {
        if (strcmp(s, sct__kernels[k].desc.name) == 0) {
            *out = k;
            return 0;
        }
    }
    snprintf(why, sizeof(why), "'%.64s' is not a kernel", s);
    return sct_cli_bad(SCT_PROG, "--kernel", why, "copy|scale|add|triad|all");
}

static int sct__parse_nt(const char *s, enum sct_nt_mode *out)
{
    static const char *const names[] = {"auto", "on", "off"};
    char why[160];

    for (int m = 0; m < 3; m++) {
        if (strcmp(s, names[m]) == 0) {
            *out = (enum sct_nt_mode)m;
            return 0;
        }
    }
    snprintf(why, sizeof(why), "'%.64s' is not a mode", s);
    return sct_cli_bad(SCT_PROG, "--nt-stores", why, "auto|on|off");
}

/* Parse argv into o; 0 or -EINVAL after printing the one-line error. */
static int sct__parse_options(int argc, char **argv, struct sct_stream_opts *o)
{
    static const struct option longopts[] = {
        {"kernel", required_argument, NULL, 'k'},
        {"array-size", required_argument, NULL, 'n'},
        {"iterations", required_argument, NULL, 'i'},
        {"nt-stores", required_argument, NULL, 't'},
        {"cache-probe", required_argument, NULL, 'P'},
        {"probe-cpus", required_argument, NULL, 'C'},
        {"probe-threads", required_argument, NULL, 'T'},
        SCT_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    int c;

    *o = (struct sct_stream_opts){.kernel = -1, .array_size = 10000000, .iterations = 10};
    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            if (sct__parse_kernel(optarg, &o->kernel))
                return -EINVAL;
            break;
        case 'n':
            if (sct_cli_count(SCT_PROG, "--array-size", optarg, 1, SIZE_MAX / (3 * sizeof(double)),
                              "a whole number of elements >= 1, e.g. 10000000", &v))
                return -EINVAL;
            o->array_size = (size_t)v;
            break;
        case 'i':
            if (sct_cli_count(SCT_PROG, "--iterations", optarg, 2, INT_MAX,
                              "a whole number >= 2: the first repetition is not counted", &v))
                return -EINVAL;
            o->iterations = (int)v;
            break;
        case 't':
            if (sct__parse_nt(optarg, &o->nt))
                return -EINVAL;
            break;
        case 'P':
            if (sct_cli_count(SCT_PROG, "--cache-probe", optarg, SCT_PROBE_MIN_BYTES,
                              SCT_PROBE_MAX_BYTES, "bytes from 262144 to 17179869184", &v))
                return -EINVAL;
            o->probe.max_bytes = (size_t)v;
            break;
        case 'C':
            if (sct_probe_parse_cpus(SCT_PROG, optarg, &o->probe))
                return -EINVAL;
            break;
        case 'T':
            if (sct_cli_count(SCT_PROG, "--probe-threads", optarg, 1, 65536,
                              "a whole number of threads >= 1", &v))
                return -EINVAL;
            o->probe.threads = (int)v;
            break;
        default:
            if (sct_cli_common_opt(SCT_PROG, c, optarg, argv, &o->cli))
                return -EINVAL;
        }
    }
    if (sct_cli_no_operands(SCT_PROG, argc, argv))
        return -EINVAL;
    if (!o->probe.threads)
        o->probe.threads = o->probe.n_cpus ? o->probe.n_cpus : omp_get_max_threads();
    /* `all` grows 15x per repetition: refuse a count whose expected values overflow. */
    {
        const struct sct_stream_kernel *sel[SCT_NKERNELS];
        double expected[SCT_NARRAYS];
        size_t nsel = sct__select(o->kernel, sel);
        if (!o->cli.help && !o->cli.build_info &&
            sct__stream_expected(sel, nsel, o->iterations, expected) != 0)
            return sct_cli_bad(SCT_PROG, "--iterations",
                               "the kernels' values would overflow a double",
                               "fewer iterations: at most 262 with --kernel all");
    }
    return 0;
}

/* The store path --nt-stores asks for on this CPU; -EINVAL when `on` cannot be honoured. */
static int sct__resolve_stores(enum sct_nt_mode mode, enum sct_nt_isa *out)
{
    enum sct_nt_isa best = sct_nt_isa_detect();

    *out = mode == SCT_NT_MODE_OFF ? SCT_NT_NONE : best;
    if (mode == SCT_NT_MODE_ON && best == SCT_NT_NONE)
        return sct_cli_bad(SCT_PROG, "--nt-stores", "on: no streaming stores on this architecture",
                           "auto|off");
    return 0;
}

/* ---- the run ----------------------------------------------------------------------- */

/* "non-temporal (avx512f)", "plain (--nt-stores off)", "plain (none available)". */
static void sct__print_stores(enum sct_nt_isa stores, enum sct_nt_mode mode)
{
    if (stores != SCT_NT_NONE)
        printf("Stores: non-temporal (%s)\n", sct_nt_isa_name(stores));
    else
        printf("Stores: plain (%s)\n",
               mode == SCT_NT_MODE_OFF ? "--nt-stores off" : "none available");
}

/*
 * Allocate, bind and count threads, first-touch, run the main loop between the phase
 * lines, validate, print and write the JSON. Returns the exit status.
 */
static int sct__stream_execute(const struct sct_stream_opts *o, struct sct_stream_run *r,
                               FILE *json)
{
    const struct sct_stream_kernel *sel[SCT_NKERNELS];
    const struct sct_kernel *desc[SCT_NKERNELS];
    struct sct_kernel_stats st[SCT_NKERNELS];
    struct sct_harness h = {.elements = r->n, .iterations = r->iterations, .ctx = r};
    double expected[SCT_NARRAYS], *rep_s = NULL;
    size_t nsel;
    int counted = 0, ok, rc = SCT_EXIT_FAILED;

    nsel = sct__select(o->kernel, sel);
    for (size_t j = 0; j < nsel; j++)
        desc[j] = &sel[j]->desc;
    if (sct__stream_expected(sel, nsel, r->iterations, expected))
        return SCT_EXIT_FAILED; /* not reached: sct__parse_options checked it */

    sct__print_header(o);
    for (int a = 0; a < SCT_NARRAYS; a++) {
        if (!(r->arr[a] = sct__array_alloc(r->n))) {
            fprintf(stderr, "%s: allocating array %s of %zu bytes: %s (a smaller --array-size)\n",
                    SCT_PROG, sct__array_names[a], r->n * sizeof(double), strerror(ENOMEM));
            goto out_free;
        }
    }

    /* The first parallel region: every thread says where it runs and is counted. */
    sct_threads_requested(omp_get_max_threads());
#pragma omp parallel
    {
        sct_thread_binding(omp_get_thread_num(), sched_getcpu());
#pragma omp atomic
        counted++;
    }
    sct_threads_counted(counted);
    sct__arrays_init(r);
    sct__print_stores(r->stores, o->nt);
    printf("-------------------------------------------------------------\n");

    if (r->fault != SCT_FAULT_NONE)
        h.after_repetition = sct__stream_after_repetition;
    rep_s = calloc((size_t)r->iterations * nsel, sizeof(double)); /* NULL: no list, no harm */
    h.rep_seconds = rep_s;
    sct_phase(SC_TRACE_MAIN_LOOP_BEGIN);
    if (sct_harness_run(&h, desc, nsel, st) != 0)
        goto out_free; /* not reached: options were checked */
    sct_phase(SC_TRACE_MAIN_LOOP_END);

    if (r->fault == SCT_FAULT_CORRUPT) {
        double *v = r->arr[sel[nsel - 1]->dst]; /* the array the last kernel wrote */
        v[r->n / 2] = 2.0 * v[r->n / 2] + 1.0;  /* differs from any x >= 0 */
    }
    sct__print_table(sel, nsel, st);
    ok = sct__stream_validate(r, expected);
    if (ok)
        printf(SC_TRACE_VALIDATES " (%s)\n", nsel == 1 ? sel[0]->contract : "all four kernels");
    printf("-------------------------------------------------------------\n");
    rc = ok ? 0 : SCT_EXIT_FAILED;
    if (json && sct__write_json(json, o, counted, r->stores, sel, nsel, st, rep_s, ok) != 0) {
        sct_cli_bad(SCT_PROG, "--json", strerror(EIO), "a writable file path with space");
        rc = SCT_EXIT_FAILED;
    }

out_free:
    free(rep_s);
    for (int a = 0; a < SCT_NARRAYS; a++)
        free(r->arr[a]);
    return rc;
}

/* Options, environment and the results file; everything else is sct__stream_execute(). */
int main(int argc, char **argv)
{
    struct sct_stream_opts o;
    struct sct_stream_run r = {.fault = SCT_FAULT_NONE};
    FILE *json = NULL;
    int rc;

    if (sct__parse_options(argc, argv, &o))
        return SCT_EXIT_USAGE;
    if (o.cli.help) {
        sct__usage(stdout);
        return 0;
    }
    if (o.cli.build_info)
        return sct_build_info_print(stdout, sizeof(double)) ? SCT_EXIT_FAILED : 0;
    if (o.probe.max_bytes)
        return sct_probe_run(SCT_PROG, &o.probe) ? SCT_EXIT_FAILED : 0;
    if (sct_fault_read(SCT_PROG, &r.fault) || sct__resolve_stores(o.nt, &r.stores))
        return SCT_EXIT_USAGE;
    /* Open the results file first: a bad path should not cost a long run. */
    if (o.cli.json && !(json = sct_cli_open_json(SCT_PROG, o.cli.json)))
        return SCT_EXIT_USAGE;
    setvbuf(stdout, NULL, _IOLBF, 0); /* the log keeps every line even if we crash */

    r.n = o.array_size;
    r.iterations = o.iterations;
    rc = sct__stream_execute(&o, &r, json);
    if (json && sct_cli_close_json(SCT_PROG, o.cli.json, json) != 0)
        rc = SCT_EXIT_FAILED;
    return rc;
}
