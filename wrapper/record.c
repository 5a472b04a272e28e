/*
 * record.c: the records of a bundle being written (see record.h; build.json: record_build.c): the
 * platform state, each run's record, and the end: the gates over every run from the files as
 * written (exactly what verify reads), results.json, run.conf and SHA256SUMS.
 */
#include "record.h"
#include "platform_apply.h"
#include "cacheprobe.h"
#include "cli.h"
#include "sc_caches.h"
#include "sc_mpistack.h"
#include "sc_platform_gate.h"
#include "sc_readback.h"
#include "sc_text.h"
#include "sc_spawn.h"
#include "sc_file.h"
#include "sc_interference.h"
#include "sc_kv.h"
#include "sc_results.h"
#include "sc_results_protocol.h"
#include "sc_run_files.h"
#include "sc_runs.h"
#include "sc_sysstate.h"
#include "sc_tracelog.h"
#include "timings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void sc__iso_time(const struct timespec *ts, char *buf, size_t len)
{
    struct tm tm;

    if (!ts->tv_sec) {
        snprintf(buf, len, "none");
        return;
    }
    gmtime_r(&ts->tv_sec, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sc_record_caches(sc_execution *x)
{
    const sc_card *card = x->plan->card;
    const sc_llc *llc;
    char *text;

    if (!sc_workload_reads(card->workload, SC_CF_ARRAY_SIZE))
        return;
    /* Known since the plan (cmd_run.c); a cache study needs no probe. */
    int rc =
        sc_cacheprobe_get(x->plan->opts, card, strcmp(card->cache_resident, "accept") != 0, &llc);
    if (rc < 0 && rc != -ENODATA)
        fprintf(stderr,
                "streamcard: the last-level caches of cpu_list are unknown (%s); "
                "the stream_array gate will say so\n",
                strerror(-rc));
    else if ((text = sc_caches_text(llc))) {
        sc_record_put(x, "platform/caches.txt", text);
        free(text);
    }
}

void sc_record_platform(sc_execution *x, const char *rel)
{
    sc_fsroot root;
    sc_kv kv;

    sc_kv_init(&kv);
    if (sc_fsroot_open(&root, x->plan->opts->sysroot) == 0) {
        sc_sysstate_capture(&root, x->plan->card->cpus, &kv);
        sc_fsroot_close(&root);
    }
    if (!kv.failed && kv.text)
        sc_record_put(x, rel, kv.text);
    sc_kv_free(&kv);
}

/* Where the CLI's readback as root goes: the plugin's files, marked as the CLI's. */
#define SC__MSR_BEFORE "prefetch/state/msr_readback_before.txt"
#define SC__MSR_AFTER "prefetch/state/msr_readback_after.txt"

void sc_record_readback(sc_execution *x, bool after)
{
    const sc_plan *plan = x->plan;
    sc_platform p;
    sc_kv kv, env;

    if (!plan->opts->cli_readback)
        return;
    sc_kv_init(&kv);
    sc_kv_init(&env);
    int rc = sc_platform_open(&p, plan->opts->sysroot, NULL, 0);
    if (rc == 0)
        rc = sc_readback_msr(&p, plan->card->cpus, after ? "after" : "before", &kv, NULL, 0);
    else
        sc_kv_append(&kv, "# unavailable: the sysroot or its online CPUs cannot be read\n");
    sc_platform_close(&p);
    /* Registers that cannot be read here (no msr device) say nothing a card did not ask
       for: the bundle then holds no readback, as any user's. */
    bool asked = plan->card->prefetch != SC_PREFETCH_UNCHANGED ||
                 strcmp(plan->card->governor, "unchanged") != 0;
    bool keep = !kv.failed && kv.text && (rc == 0 || asked) &&
                /* after: only beside a before to hold it to */
                (!after || faccessat(x->b.dirfd, SC__MSR_BEFORE, F_OK, AT_SYMLINK_NOFOLLOW) == 0);
    if (keep)
        sc_record_put(x, after ? SC__MSR_AFTER : SC__MSR_BEFORE, kv.text);
    if (!after && keep) { /* every run's gate reads the state the workload found */
        char *before = sc_bundle_read_opt(&x->b, "platform/before.txt");
        bool applied = x->apply && x->apply->applied; /* --platform apply set it */
        if (sc_readback_state_env(plan->card, kv.text, before, applied, &env) == 0)
            sc_record_put(x, "prefetch/state/state.env", env.text);
        free(before);
    }
    sc_kv_free(&kv);
    sc_kv_free(&env);
}

char *sc_record_transport_log_path(const sc_execution *x, size_t i)
{
    char *path = NULL;

    return asprintf(&path, "%s/transport-%zu.log", x->tmpdir, i + 1) < 0 ? NULL : path;
}

void sc_record_transport_log(sc_execution *x, size_t i)
{
    char *path = sc_record_transport_log_path(x, i), *text = NULL, rel[64];
    size_t len = 0;

    if (path && sc_file_read_at(AT_FDCWD, path, 0, 8u << 20, &text, &len) == 0)
        sc_record_put(x, sc_runs_path(x->plan->card, i, "transport.log", rel, sizeof(rel)), text);
    if (path)
        unlink(path);
    free(path);
    free(text);
}

/* Who ran what: the part of run.conf that is the same for every run of the bundle. */
static void sc__bundle_keys(sc_execution *x, sc_kv *kv)
{
    const sc_plan *plan = x->plan;
    const sc_card *c = plan->card;
    char host[256] = "unknown";

    gethostname(host, sizeof(host) - 1);
    sc_kv_append(kv, "# streamcard run.conf: parameters, host, times and gate verdicts\n");
    sc_kv_addf(kv, "streamcard_version", "%s", STREAMCARD_VERSION);
    sc_kv_addf(kv, "run_name", "%s", c->run_name);
    sc_kv_addf(kv, "bundle", "%s", x->b.path);
    sc_kv_addf(kv, "host", "%s", host);
    sc_kv_addf(kv, "uid", "%d", (int)getuid());
    sc_kv_addf(kv, "slurm_job_id", "%s", getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "none");
    sc_kv_addf(kv, "card_origin", "%s", plan->card_origin);
    sc_kv_addf(kv, "card_source", "%s",
               plan->opts->card_path ? plan->opts->card_path : "command line");
    sc_kv_addf(kv, "card_sha256", "%s", plan->card_sha256);
    if (c->swept != SC_CF_COUNT) /* one run of a sweep: its independent variable */
        sc_kv_addf(kv, "sweep_variable", "%s", sc_card_field_name(c->swept));
    if (plan->side) /* a side of a paired run: its runs end by the pair's rule */
        sc_kv_addf(kv, "pair_side", "%c", plan->side);
    sc_kv_addf(kv, "workload", "%s", sc_workload_name(c->workload));
    sc_kv_addf(kv, "kernel", "%s", c->kernel ? c->kernel : "none");
    sc_kv_addf(kv, "cpu_list", "%s", c->cpu_list);
    sc_kv_addf(kv, "threads", "%ld", c->threads);
    if (c->memory_node >= 0)
        sc_kv_addf(kv, "memory_node", "%ld", c->memory_node);
    else
        sc_kv_addf(kv, "memory_node", "none");
    sc_kv_addf(kv, "prefetch", "%s", sc_prefetch_name(c->prefetch));
    sc_kv_addf(kv, "governor", "%s", c->governor);
    sc_card_param params[SC_CARD_MAX_PARAMS];
    size_t n = sc_card_run_parameters(c, params);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(params[i].name, "kernel"))
            continue; /* written above */
        if (params[i].text)
            sc_kv_addf(kv, params[i].name, "%s", params[i].text);
        else
            sc_kv_addf(kv, params[i].name, "%llu", (unsigned long long)params[i].number);
    }
    sc_kv_addf(kv, "binary", "%s", plan->binary);
    sc_kv_addf(kv, "binary_sha256", "%s", x->binary_sha);
    sc_kv_addf(kv, "omp_env", "%s", plan->omp_summary);
    if (c->one_per_core_from) /* one_per_core: what hwloc kept of the card's cpu_list */
        sc_kv_addf(kv, "one_per_core",
                   "cpu_list %s -> %s (one hardware thread per physical core, "
                   "hwloc on this node)",
                   c->one_per_core_from, c->cpu_list);
    for (size_t i = 0; i < c->n_env; i++)
        sc_kv_addf(kv, "env", "%s=%s", c->env[i].key, c->env[i].value);
    sc_kv_addf(kv, "command", "%s", plan->argv[0]);
    for (char **a = plan->argv + 1; *a; a++)
        sc_kv_addf(kv, "command_arg", "%s", *a);
    sc_kv_addf(kv, "interference_accounting", "%s", c->interference_accounting ? "on" : "off");
}

/* How one run went: times, snapshots, writes, its end, its figure. */
static void sc__run_keys(sc_kv *kv, const sc_card *c, const sc_observe_result *r, int write_errors,
                         const char *write_error, bool killed, double best, const sc_tracelog *t)
{
    char t_start[64], t_ready[64], t_end[64];

    sc__iso_time(&r->started_at, t_start, sizeof(t_start));
    sc__iso_time(&r->ready_at, t_ready, sizeof(t_ready));
    sc__iso_time(&r->ended_at, t_end, sizeof(t_end));
    sc_kv_addf(kv, "started_at", "%s", t_start);
    sc_kv_addf(kv, "ready_at", "%s", t_ready);
    sc_kv_addf(kv, "ended_at", "%s", t_end);
    if (r->ready_seen)
        sc_kv_addf(kv, "ready_capture_ms", "%.3f", r->ready_capture_ms);
    else
        sc_kv_addf(kv, "ready_capture_ms", "none");
    if (t && t->ready_wait_ms >= 0) /* the same latency as the workload saw it */
        sc_kv_addf(kv, "ready_wait_ms", "%.3f", t->ready_wait_ms);
    else
        sc_kv_addf(kv, "ready_wait_ms", "none");
    sc_kv_addf(kv, "capture_errors", "%d", r->capture_errors);
    if (r->capture_errors)
        sc_kv_addf(kv, "capture_error", "%s", r->capture_error);
    sc_kv_addf(kv, "write_errors", "%d", write_errors);
    if (write_errors)
        sc_kv_addf(kv, "write_error", "%s", write_error);
    sc_kv_addf(kv, "wrapper_killed", "%d", killed ? 1 : 0);
    sc_kv_addf(kv, "spawn_error", "%s", r->spawn_error ? strerror(r->spawn_error) : "none");
    sc_kv_addf(kv, "caller_signal", "%d", r->caller_signal);
    sc_kv_addf(kv, "timed_out", "%d", r->timed_out ? 1 : 0);
    sc_kv_addf(kv, "exit_known", "%d", r->exit_known ? 1 : 0);
    sc_kv_addf(kv, "exit_code", "%d", r->exit_code);
    sc_kv_addf(kv, "exit_signal", "%d", r->exit_signal);
    if (best > 0)
        sc_kv_addf(kv, SC_RESULT_BEST_RATE_MBPS, "%.1f", best);
    if (sc_workload_mpi(c))
        sc_tracelog_transport_conf(t, kv);
}

static void sc__gate_keys(sc_kv *kv, const sc_gates *gates)
{
    sc_kv_append(kv, "# gate verdicts (1 holds, 0 failed, NA not asked by the card)\n");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        sc_kv_addf(kv, sc_gate_conf_key((sc_gate_id)i), "%s",
                   s == SC_GATE_OK     ? "1"
                   : s == SC_GATE_FAIL ? "0"
                                       : "NA");
    }
    sc_kv_addf(kv, "verdict", "%s", sc_gates_passed(gates) ? "ok" : "failed");
}

/* The exit_code gate's note when streamcard itself ended the run. */
static void sc__end_note(sc_gates *g, bool timed_out, bool killed, double timeout_s)
{
    if (timed_out)
        snprintf(g->g[SC_GATE_EXIT_CODE].note, sizeof(g->g[0].note),
                 "stopped after the --timeout of %.0f s", timeout_s);
    if (killed)
        snprintf(g->g[SC_GATE_EXIT_CODE].note, sizeof(g->g[0].note),
                 "not supported by evidence: streamcard was killed before the workload ended; "
                 "its guardian sealed what was written");
}

/* A run's gates from its files as written; *best gets the figure min_rate compared. */
static int sc__gates_of(sc_execution *x, size_t i, const sc_run_files *f, const sc_run_end *e,
                        const sc_platform_files *p, sc_gates *g, double *best)
{
    *best = sc_record_result(x, i)->best_rate_MBps;
    return sc_run_gates(x->plan->card, f, e, p, *best, NULL, g);
}

/* run-<i>/run.conf: one run's record (several runs), from how it ended. */
static void sc__write_run_record(sc_execution *x, size_t i, const sc_observe_result *r, bool killed,
                                 const sc_run_files *f, const sc_gates *g, double best)
{
    char rel[64];
    sc_tracelog t;
    sc_kv kv;
    bool parsed = f->log && sc_tracelog_parse(f->log, &t) == 0;

    sc_kv_init(&kv);
    sc_kv_append(&kv, "# streamcard run.conf of one run: how it went, its gates\n");
    sc_kv_addf(&kv, "run", "%zu", i + 1);
    sc__run_keys(&kv, x->plan->card, r, killed ? -1 : r->write_errors, r->write_error, killed, best,
                 parsed ? &t : NULL);
    sc__gate_keys(&kv, g);
    sc_record_put(x, sc_runs_path(x->plan->card, i, "run.conf", rel, sizeof(rel)), kv.text);
    sc_kv_free(&kv);
    if (parsed)
        sc_tracelog_free(&t);
}

bool sc_record_run(sc_execution *x, size_t i, const sc_observe_result *r)
{
    sc_run_files f;
    sc_platform_files p;
    sc_gates g;
    double best = 0;
    sc_run_end e = {.exit_known = r->exit_known,
                    .exit_code = r->exit_code,
                    .exit_signal = r->exit_signal,
                    .ended_by_streamcard = r->caller_signal || r->timed_out,
                    .write_errors = r->write_errors};

    snprintf(e.write_error, sizeof(e.write_error), "%s", r->write_error);
    sc_run_files_read(&x->b, x->plan->card, i, &f);
    sc_platform_files_read(&x->b, &p);
    int rc = sc__gates_of(x, i, &f, &e, &p, &g, &best);
    if (rc == 0) {
        sc__end_note(&g, r->timed_out, false, x->plan->opts->timeout_s);
        sc__write_run_record(x, i, r, false, &f, &g, best);
    }
    sc_run_files_free(&f);
    sc_platform_files_free(&p);
    return rc == 0 && sc_gates_passed(&g);
}

/* The runs the bundle holds: 1 for runs: 1, else the run-<i> folders that exist. */
static size_t sc__count_runs(const sc_execution *x)
{
    char dir[32];
    size_t n = 0;

    if (sc_runs_flat(x->plan->card))
        return 1;
    while (n < SC_RUNS_MAX) {
        snprintf(dir, sizeof(dir), "run-%zu", n + 1);
        if (faccessat(x->b.dirfd, dir, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
            break;
        n++;
    }
    return n;
}

/* Everything results.json and the summary need of one run, gathered at the end. */
typedef struct sc__run_out {
    sc_gates gates;
    json_object *kernel; /* the workload's results (x->results: not this struct's) */
    json_object *interference;
    char started_at[64], ended_at[64];
    char dir[32];
} sc__run_out;

/* How run i ended, into *e and o's times: one run, from this process (x->last); several,
   from its record; none, the run in progress when streamcard was killed. Returns whether
   streamcard was killed before the run ended. */
static bool sc__run_end_of(const sc_execution *x, const sc_run_files *f, sc_run_end *e,
                           sc__run_out *o)
{
    long v = 0;

    if (sc_runs_flat(x->plan->card)) {
        *e = (sc_run_end){.exit_known = x->last.exit_known,
                          .exit_code = x->last.exit_code,
                          .exit_signal = x->last.exit_signal,
                          .ended_by_streamcard =
                              x->last.caller_signal || x->last.timed_out || x->wrapper_killed,
                          .write_errors = x->out.errors};
        snprintf(e->write_error, sizeof(e->write_error), "%s", x->out.first);
        sc__iso_time(&x->last.started_at, o->started_at, sizeof(o->started_at));
        sc__iso_time(&x->last.ended_at, o->ended_at, sizeof(o->ended_at));
        return x->wrapper_killed;
    }
    if (f->conf) {
        sc_run_end_from_conf(f->conf, e);
        sc_kv_get(f->conf, "started_at", o->started_at, sizeof(o->started_at));
        sc_kv_get(f->conf, "ended_at", o->ended_at, sizeof(o->ended_at));
        return sc_kv_get_long(f->conf, "wrapper_killed", &v) && v == 1;
    }
    memset(e, 0, sizeof(*e));
    e->write_errors = -1;
    e->ended_by_streamcard = true;
    return true;
}

/* Run i at the end: its gates from its files; for several runs its record, read back (or
   written now, when streamcard was killed before the run ended). */
static int sc__finish_run(sc_execution *x, size_t i, const sc_platform_files *p, sc__run_out *o)
{
    const sc_card *c = x->plan->card;
    bool flat = sc_runs_flat(c);
    sc_run_files f;
    sc_run_end e;
    double best = 0;
    sc_interference rec = {0};

    sc_run_files_read(&x->b, c, i, &f);
    sc_runs_dir(c, i, o->dir, sizeof(o->dir));
    o->kernel = sc_record_result(x, i)->json;
    char *json_path = sc_record_json_path(x, i);
    sc_record_matrix(x, json_path, o->kernel, flat); /* a link matrix's raw figures */
    free(json_path);
    bool killed = sc__run_end_of(x, &f, &e, o);
    int rc = sc__gates_of(x, i, &f, &e, p, &o->gates, &best);
    if (rc == 0) {
        long timed_out = 0;
        if (flat)
            timed_out = x->last.timed_out;
        else if (f.conf)
            sc_kv_get_long(f.conf, "timed_out", &timed_out);
        sc__end_note(&o->gates, timed_out == 1, killed, x->plan->opts->timeout_s);
        if (!flat && !f.conf) {
            sc_observe_result none;
            memset(&none, 0, sizeof(none));
            sc__write_run_record(x, i, &none, true, &f, &o->gates, best);
        }
        if (sc_interference_load(c, f.interference, f.log, &rec) == 0)
            o->interference = sc_interference_json(c, &rec);
    }
    sc_interference_free(&rec);
    sc_run_files_free(&f);
    return rc;
}

/* The first run's stream.log as written, read and parsed once at the end for the records
   that need it (run.conf of one run, build.json's MPI stack): an MPI run's log is a hundred
   lines, and each parse of it took 0.15 ms after the workload. */
typedef struct sc__first_log {
    char *text;
    sc_tracelog t;
    bool parsed;
} sc__first_log;

static void sc__first_log_read(sc_execution *x, sc__first_log *l)
{
    char rel[64];

    memset(l, 0, sizeof(*l));
    if (!sc_runs_flat(x->plan->card) && !sc_workload_mpi(x->plan->card))
        return; /* neither record needs it */
    l->text =
        sc_bundle_read_opt(&x->b, sc_runs_path(x->plan->card, 0, "stream.log", rel, sizeof(rel)));
    l->parsed = l->text && sc_tracelog_parse(l->text, &l->t) == 0;
}

static void sc__first_log_free(sc__first_log *l)
{
    if (l->parsed)
        sc_tracelog_free(&l->t);
    free(l->text);
}

/* run.conf: for one run, everything (log: its stream.log); for several, who ran what and how
   the runs ended. */
static void sc__write_run_conf(sc_execution *x, const sc_gates *gates, const sc__run_out *runs,
                               size_t n, const sc__first_log *log)
{
    const sc_card *c = x->plan->card;
    sc_kv kv;

    sc_kv_init(&kv);
    sc__bundle_keys(x, &kv);
    if (sc_runs_flat(c)) {
        sc__run_keys(&kv, c, &x->last, x->out.errors, x->out.first, x->wrapper_killed,
                     sc_record_result(x, 0)->best_rate_MBps, log->parsed ? &log->t : NULL);
    } else {
        sc_kv_addf(&kv, "runs", "%zu", n);
        if (c->runs)
            sc_kv_addf(&kv, "runs_requested", "%ld", c->runs);
        else
            sc_kv_addf(&kv, "runs_requested", "auto");
        sc_kv_addf(&kv, "runs_stopped", "%s", x->stopped);
        sc_kv_addf(&kv, "started_at", "%s", n ? runs[0].started_at : "none");
        sc_kv_addf(&kv, "ended_at", "%s", n ? runs[n - 1].ended_at : "none");
        sc_kv_addf(&kv, "write_errors", "%d", x->out.errors);
        if (x->out.errors)
            sc_kv_addf(&kv, "write_error", "%s", x->out.first);
    }
    sc__gate_keys(&kv, gates);
    sc_record_put(x, "run.conf", kv.text);
    sc_kv_free(&kv);
}

/* mpi: build.json gains the MPI stack the ranks loaded (sc_mpistack.h), from the first run's
   log (every run starts the same binary in the same environment). */
static void sc__add_mpi_stack(sc_execution *x, const sc__first_log *log)
{
    if (!sc_workload_mpi(x->plan->card))
        return;
    char *text = sc_bundle_read_opt(&x->b, "build.json");
    json_object *build = text ? json_tokener_parse(text) : NULL, *stack = NULL;

    if (log->parsed)
        stack = sc_mpistack_json(&log->t);
    if (build && stack) {
        json_object_object_add(build, "mpi_stack", stack);
        stack = NULL;
        sc_record_put(x, "build.json",
                      json_object_to_json_string_ext(build, JSON_C_TO_STRING_PRETTY |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE));
    }
    json_object_put(stack);
    json_object_put(build);
    free(text);
}

/* True when the bundle directory itself was removed while the run went on. */
static bool sc__bundle_gone(const sc_bundle *b)
{
    struct stat st;

    return fstat(b->dirfd, &st) < 0 || st.st_nlink == 0;
}

/* The workloads' private results, no longer needed once results.json holds them. */
static void sc__remove_tmp(const sc_execution *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *path = sc_record_json_path(x, i);
        if (path)
            unlink(path);
        free(path);
        path = sc_record_transport_log_path(x, i); /* a run that never ended */
        if (path)
            unlink(path);
        free(path);
    }
    rmdir(x->tmpdir);
}

/* What the end of a bundle gathers, handed from one step to the next. */
typedef struct sc__finish {
    size_t n;           /* the runs the bundle holds */
    sc__run_out *runs;  /* each run's gates, times and results */
    sc_gates *each;     /* each run's gates, for the gates over all of them */
    sc_results_run *rr; /* each run, as results.json takes it */
    sc_platform_files p;
    sc_gates gates;  /* over every run (rc 0 only) */
    char *results;   /* results.json as written */
    int rc;          /* 0, or -errno: no gates, no records */
    int lost_before; /* write errors before results.json: one more fails the run */
    int restored;    /* sc_record_restored(): 0, or an original that did not read back */
} sc__finish;

/* The end of a bundle whose directory was removed during the run: nothing left to write. */
static int sc__finish_gone(sc_execution *x)
{
    fprintf(stderr,
            "streamcard: the bundle directory %s was removed during the run: its "
            "evidence is lost and the run proves nothing\n",
            x->b.path);
    sc_record_restored(x); /* --platform apply: the machine is restored all the same */
    sc_record_results_free(x);
    fprintf(stderr, "ERROR: workload failed; do not use its numbers\n");
    return SC_EXIT_FAILED;
}

/* The platform after the runs (after.txt, the readback), restored under --platform apply;
   one run: its writes and the bundle's become one count. */
static void sc__finish_platform(sc_execution *x, sc__finish *f)
{
    sc_record_platform(x, "platform/after.txt");
    sc_record_readback(x, true);
    f->restored = sc_record_restored(x); /* --platform apply: what the workload ran on */
    sc_timings_mark(x->plan->opts->timings, "after.txt");
    if (sc_runs_flat(x->plan->card)) {
        sc_writer_add(&x->out, x->last.write_errors, x->last.write_error);
        x->last.write_errors = 0; /* counted into x->out */
    }
}

/* Each run's gates from its files as written (sc__finish_run()), build.json checked. */
static void sc__finish_runs(sc_execution *x, sc__finish *f)
{
    f->n = sc__count_runs(x);
    f->runs = calloc(f->n + 1, sizeof(*f->runs));
    f->each = calloc(f->n + 1, sizeof(*f->each));
    f->rr = calloc(f->n + 1, sizeof(*f->rr));
    if (!f->runs || !f->each || !f->rr)
        f->rc = -ENOMEM;
    sc_record_build_check(x, f->n);
    sc_timings_mark(x->plan->opts->timings, "build-check");
    sc_platform_files_read(&x->b, &f->p);
    for (size_t i = 0; f->rc == 0 && i < f->n; i++) {
        sc__run_out *o = &f->runs[i];
        f->rc = sc__finish_run(x, i, &f->p, o);
        f->each[i] = o->gates;
        f->rr[i] = (sc_results_run){o->dir,    o->started_at, o->ended_at,
                                    &o->gates, o->kernel,     o->interference};
    }
    sc_timings_mark(x->plan->opts->timings, "gates");
    if (!*x->stopped)
        snprintf(x->stopped, sizeof(x->stopped), "streamcard was killed after %zu run%s", f->n,
                 f->n == 1 ? "" : "s");
    f->lost_before = x->out.errors;
}

/* The gates over every run; several runs: the platform before the first run and after the
   last, and a write into the bundle outside every run (results.json of a disk that filled,
   platform/after.txt) is lost evidence too. */
static void sc__finish_gates(sc_execution *x, sc__finish *f)
{
    const sc_card *card = x->plan->card;
    sc_platform_record pr = sc_platform_files_record(&f->p);

    sc_runs_combine_gates(f->each, f->n, &f->gates);
    if (sc_runs_flat(card))
        return;
    sc_platform_stability(card, &pr, &f->gates.g[SC_GATE_PLATFORM_STATE]);
    if (x->out.errors)
        sc_gate_set(&f->gates.g[SC_GATE_EVIDENCE], SC_GATE_FAIL,
                    "%d writes into the bundle failed, the first: %s", x->out.errors, x->out.first);
}

/* results.json, build.json's MPI stack, run.conf. */
static void sc__finish_records(sc_execution *x, sc__finish *f)
{
    const sc_plan *plan = x->plan;
    char host[256] = "unknown";

    gethostname(host, sizeof(host) - 1);
    sc_results_info info = {.host = host,
                            .card_sha256 = plan->card_sha256,
                            .bundle = x->b.path,
                            .runs = f->rr,
                            .n_runs = f->n,
                            .stopped = x->stopped};
    f->results = sc_results_build(plan->card, &f->gates, &info);
    f->lost_before = x->out.errors;
    sc_record_put(x, "results.json", f->results);
    sc__first_log log;
    sc__first_log_read(x, &log);
    sc__add_mpi_stack(x, &log);
    sc_timings_mark(plan->opts->timings, "results.json");
    sc__write_run_conf(x, &f->gates, f->runs, f->n, &log);
    sc__first_log_free(&log);
    sc_timings_mark(plan->opts->timings, "run.conf");
}

/* SHA256SUMS over what the bundle holds. Returns 0 or -errno. */
static int sc__finish_seal(sc_execution *x)
{
    int seal = sc_bundle_seal(&x->b);

    sc_timings_mark(x->plan->opts->timings, "seal");
    if (seal < 0)
        fprintf(stderr, "streamcard: sealing %s failed: %s\n", x->b.path, strerror(-seal));
    return seal;
}

/* The guardian told that the bundle is sealed (execute.c: its byte) as soon as it is, so that
   it ends while the summary is printed and its reaping (sc__close()) finds it gone, instead
   of its exit being waited for after everything else. None in a guardian itself. */
static void sc__finish_release_guardian(sc_execution *x)
{
    if (!x->wrapper_killed)
        sc_record_tell_guardian(x);
}

void sc_record_tell_guardian(sc_execution *x)
{
    if (x->guard_fd < 0)
        return;
    (void)!write(x->guard_fd, "d", 1);
    close(x->guard_fd);
    x->guard_fd = -1;
}

/* What the run shows on stderr (and BUNDLE= on stdout), and where the bundle is. */
static void sc__finish_say(sc_execution *x, const sc__finish *f)
{
    if (f->rc == 0)
        sc_record_say(x, &f->gates, f->each, f->n, f->results);
    if (x->out.errors)
        fprintf(stderr,
                "streamcard: %d writes into the bundle failed (the first: %s): the "
                "output directory is full or was changed during the run\n",
                x->out.errors, x->out.first);
    free(x->plan->bundle_path);
    x->plan->bundle_path = strdup(x->b.path);
}

/* What the end held, and the workloads' private files. */
static void sc__finish_free(sc_execution *x, sc__finish *f)
{
    for (size_t i = 0; f->runs && i < f->n; i++)
        json_object_put(f->runs[i].interference);
    sc_platform_files_free(&f->p);
    sc__remove_tmp(x, f->n);
    sc_record_results_free(x);
    free(f->runs);
    free(f->each);
    free(f->rr);
    free(f->results);
}

int sc_record_finish(sc_execution *x)
{
    sc__finish f = {0};

    if (sc__bundle_gone(&x->b))
        return sc__finish_gone(x);
    sc__finish_platform(x, &f);
    sc__finish_runs(x, &f);
    if (f.rc == 0) {
        sc__finish_gates(x, &f);
        sc__finish_records(x, &f);
    }
    int seal = sc__finish_seal(x);
    sc__finish_release_guardian(x);
    sc__finish_say(x, &f);
    /* A platform left changed (a restore that did not read back) fails the run too. */
    bool ok = f.rc == 0 && seal == 0 && x->out.errors == f.lost_before && f.restored == 0 &&
              sc_gates_passed(&f.gates);
    sc__finish_free(x, &f);
    sc_timings_mark(x->plan->opts->timings, "summary");
    return ok ? SC_EXIT_OK : SC_EXIT_FAILED;
}
