/*
 * execute.c: the local executor (execute.h): one run of a prepared plan here: the bundle,
 * the workload under the observer, the gates, results.json, run.conf and SHA256SUMS.
 * Whatever happens once the bundle exists, it is completed and sealed, and a failed run
 * says what happened:
 *   - the workload crashes, is signalled or times out: its end is recorded, gates fail;
 *   - the disk fills: the files written last (results.json, run.conf, SHA256SUMS) had their
 *     space reserved when the bundle was made, and the evidence gate names what was lost;
 *   - the bundle directory is removed during the run: said plainly, nothing to seal;
 *   - this process is killed (SIGKILL): a guardian process, waiting on a pipe from it,
 *     finishes the bundle with what was written and a failed verdict.
 */
#include "sc_spawn.h"
#include "execute.h"
#include "sc_attest.h"
#include "cli.h"
#include "sc_bundle.h"
#include "sc_caches.h"
#include "sc_file.h"
#include "sc_text.h"
#include "sc_gates.h"
#include "sc_hashcache.h"
#include "sc_kv.h"
#include "sc_mpistack.h"
#include "sc_observe.h"
#include "sc_platform_gate.h"
#include "sc_results.h"
#include "sc_sysstate.h"
#include "sc_tracelog.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Room kept for each file written last, and the least free space a run starts with. */
#define SC__RESERVE_BYTES (64u << 10)
#define SC__MIN_FREE_BYTES (4u << 20)

/* One run in progress: what every step after the start needs. */
typedef struct sc__execution {
    sc_plan *plan;
    sc_bundle b;
    char tmpdir[64];
    char binary_sha[SC_HASH_HEX_LEN + 1];
    int write_errors; /* writes into the bundle that failed, with the first one's reason */
    char write_error[256];
    bool wrapper_killed; /* set in the guardian: the run's own process is gone */
    sc_spawned build_info; /* the binary's --build-info, started before the bundle is made */
} sc__execution;

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

/* Writes a bundle file, counting a failure as lost evidence. */
static int sc__put(sc__execution *run, const char *rel, const char *text)
{
    int rc = sc_bundle_write_str(&run->b, rel, text ? text : "");

    if (rc < 0) {
        if (!run->write_errors++)
            snprintf(run->write_error, sizeof(run->write_error), "%s: %s", rel, strerror(-rc));
        fprintf(stderr, "streamcard: writing %s/%s failed: %s\n", run->b.path, rel,
                strerror(-rc));
    }
    return rc;
}

/* platform/caches.txt: the last-level caches of a STREAM run's cpu_list (its array gate). */
static void sc__caches_snapshot(sc__execution *run)
{
    sc_llc llc;
    char *text;

    if (run->plan->card->workload != SC_WORKLOAD_STREAM)
        return;
    int rc = sc_caches_llc(run->plan->card->cpus, &llc);
    if (rc < 0)
        fprintf(stderr,
                "streamcard: the last-level caches of cpu_list are unknown (hwloc: %s); "
                "the stream_array gate will say so\n",
                strerror(-rc));
    else if ((text = sc_caches_text(&llc))) {
        sc__put(run, "platform/caches.txt", text);
        free(text);
    }
}

/* platform/<name>.txt: the machine state before or after the run. */
static void sc__platform_snapshot(sc__execution *run, const char *rel)
{
    sc_fsroot root;
    sc_kv kv;

    sc_kv_init(&kv);
    if (sc_fsroot_open(&root, run->plan->opts->sysroot) == 0) {
        sc_sysstate_capture(&root, run->plan->card->cpus, &kv);
        sc_fsroot_close(&root);
    }
    if (!kv.failed && kv.text)
        sc__put(run, rel, kv.text);
    sc_kv_free(&kv);
}

/*
 * The SHA-256 of a file of the build (the binary, its libraries) into sha, through the
 * user's hash cache (sc_hashcache.h): a 36 MB BLAS library is read once, not before every
 * run. 0 or -errno.
 */
static int sc__hash_build_file(const char *path, char sha[SC_HASH_HEX_LEN + 1])
{
    char dir[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    int rc = sc_hashcache_fd(sc_hashcache_default_dir(dir, sizeof(dir)) == 0 ? dir : NULL, fd, path,
                             sha, NULL);
    close(fd);
    return rc;
}

/* build.json's "<key>_sha256": the SHA-256 of the library the binary's --build-info names. */
static void sc__add_library_hash(json_object *root, const char *info, const char *key)
{
    char path[1024], sha[SC_HASH_HEX_LEN + 1], name[64];

    if (!sc_kv_get(info, key, path, sizeof(path)) || sc__hash_build_file(path, sha) < 0)
        return;
    snprintf(name, sizeof(name), "%s_sha256", key);
    json_object_object_add(root, name, json_object_new_string(sha));
}

/* Reaps the --build-info child of a run that ends before its build.json is written. */
static void sc__build_info_discard(sc__execution *run)
{
    char *info = NULL;

    if (run->build_info.pid >= 0)
        sc_spawn_collect(&run->build_info, &info);
    free(info);
}

/* build.json: the binary's identity (SHA-256, compiler, flags, OpenMP runtime, and for
   ipsearch the BLAS library: path, configuration, core type, threading, its SHA-256). */
static void sc__write_build_json(sc__execution *run)
{
    const sc_plan *plan = run->plan;
    char *info = NULL, value[1024];
    char *const argv[] = {plan->binary, "--build-info", NULL};
    json_object *root = json_object_new_object();
    static const char *const keys[] = {"compiler", "compiler_version", "flags",
                                       "openmp_runtime", "openmp_version", "nt_stores_available",
                                       "element_bytes", "blas_library", "blas_config",
                                       "blas_corename", "blas_parallel", NULL};

    if (sc__hash_build_file(plan->binary, run->binary_sha) < 0)
        strcpy(run->binary_sha, "unavailable");
    json_object_object_add(root, "binary", json_object_new_string(plan->binary));
    json_object_object_add(root, "sha256", json_object_new_string(run->binary_sha));
    /* The answer to the question asked when the run began (sc_run_execute_plan). Asked
       again after a failure: the answer is deterministic, and one transient failure (a
       sanitizer's check at exit under load, a signal) must not cost the bundle the build's
       identity. */
    int rc = sc_spawn_collect(&run->build_info, &info);
    if (rc < 0) {
        free(info);
        info = NULL;
        rc = sc_spawn_capture(argv, NULL, &info);
    }
    if (rc == 0) {
        for (const char *const *k = keys; *k; k++)
            if (sc_kv_get(info, *k, value, sizeof(value)))
                json_object_object_add(root, *k, json_object_new_string(value));
        sc__add_library_hash(root, info, "openmp_runtime");
        sc__add_library_hash(root, info, "blas_library");
    } else {
        json_object_object_add(root, "build_info",
                               json_object_new_string("unavailable: the binary did not answer "
                                                      "--build-info"));
    }
    free(info);
    /* The workload's own sizes and settings, as the card resolved them. */
    json_object *sizes = json_object_new_object();
    sc_card_param params[SC_CARD_MAX_PARAMS];
    size_t n = sc_card_run_parameters(plan->card, params);
    json_object_object_add(sizes, "threads", json_object_new_int64(plan->card->threads));
    for (size_t i = 0; i < n; i++)
        json_object_object_add(sizes, params[i].name,
                               params[i].text ? json_object_new_string(params[i].text)
                                              : json_object_new_int64((int64_t)params[i].number));
    json_object_object_add(root, "run_parameters", sizes);
    json_object_object_add(root, "streamcard_version", json_object_new_string(STREAMCARD_VERSION));
    sc__put(run, "build.json",
            json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

static void sc__write_run_conf(sc__execution *run, const sc_observe_result *r,
                               const sc_gates *gates, double best_rate, const sc_tracelog *t)
{
    const sc_plan *plan = run->plan;
    const sc_card *c = plan->card;
    char host[256] = "unknown", t_start[64], t_ready[64], t_end[64];
    sc_kv kv;

    gethostname(host, sizeof(host) - 1);
    sc__iso_time(&r->started_at, t_start, sizeof(t_start));
    sc__iso_time(&r->ready_at, t_ready, sizeof(t_ready));
    sc__iso_time(&r->ended_at, t_end, sizeof(t_end));
    sc_kv_init(&kv);
    sc_kv_append(&kv, "# streamcard run.conf: parameters, host, times and gate verdicts\n");
    sc_kv_addf(&kv, "streamcard_version", "%s", STREAMCARD_VERSION);
    sc_kv_addf(&kv, "run_name", "%s", c->run_name);
    sc_kv_addf(&kv, "bundle", "%s", run->b.path);
    sc_kv_addf(&kv, "host", "%s", host);
    sc_kv_addf(&kv, "uid", "%d", (int)getuid());
    sc_kv_addf(&kv, "slurm_job_id", "%s", getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "none");
    sc_kv_addf(&kv, "card_origin", "%s", plan->card_origin);
    sc_kv_addf(&kv, "card_source", "%s",
               plan->opts->card_path ? plan->opts->card_path : "command line");
    sc_kv_addf(&kv, "card_sha256", "%s", plan->card_sha256);
    if (c->swept != SC_CF_COUNT) /* one run of a sweep: its independent variable */
        sc_kv_addf(&kv, "sweep_variable", "%s", sc_card_field_name(c->swept));
    sc_kv_addf(&kv, "workload", "%s", sc_workload_name(c->workload));
    sc_kv_addf(&kv, "kernel", "%s", c->kernel ? c->kernel : "none");
    sc_kv_addf(&kv, "cpu_list", "%s", c->cpu_list);
    sc_kv_addf(&kv, "threads", "%ld", c->threads);
    if (c->memory_node >= 0)
        sc_kv_addf(&kv, "memory_node", "%ld", c->memory_node);
    else
        sc_kv_addf(&kv, "memory_node", "none");
    sc_kv_addf(&kv, "prefetch", "%s", sc_prefetch_name(c->prefetch));
    sc_kv_addf(&kv, "governor", "%s", c->governor);
    sc_card_param params[SC_CARD_MAX_PARAMS];
    size_t n = sc_card_run_parameters(c, params);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(params[i].name, "kernel"))
            continue; /* written above */
        if (params[i].text)
            sc_kv_addf(&kv, params[i].name, "%s", params[i].text);
        else
            sc_kv_addf(&kv, params[i].name, "%llu", (unsigned long long)params[i].number);
    }
    sc_kv_addf(&kv, "binary", "%s", plan->binary);
    sc_kv_addf(&kv, "binary_sha256", "%s", run->binary_sha);
    sc_kv_addf(&kv, "omp_env", "%s", plan->omp_summary);
    for (size_t i = 0; i < c->n_env; i++)
        sc_kv_addf(&kv, "env", "%s=%s", c->env[i].key, c->env[i].value);
    sc_kv_addf(&kv, "command", "%s", plan->argv[0]);
    for (char **a = plan->argv + 1; *a; a++)
        sc_kv_addf(&kv, "command_arg", "%s", *a);
    sc_kv_addf(&kv, "started_at", "%s", t_start);
    sc_kv_addf(&kv, "ready_at", "%s", t_ready);
    sc_kv_addf(&kv, "ended_at", "%s", t_end);
    if (r->ready_seen)
        sc_kv_addf(&kv, "ready_capture_ms", "%.3f", r->ready_capture_ms);
    else
        sc_kv_addf(&kv, "ready_capture_ms", "none");
    if (t && t->ready_wait_ms >= 0) /* the same latency as the workload saw it */
        sc_kv_addf(&kv, "ready_wait_ms", "%.3f", t->ready_wait_ms);
    else
        sc_kv_addf(&kv, "ready_wait_ms", "none");
    sc_kv_addf(&kv, "capture_errors", "%d", r->capture_errors);
    if (r->capture_errors)
        sc_kv_addf(&kv, "capture_error", "%s", r->capture_error);
    sc_kv_addf(&kv, "write_errors", "%d", run->write_errors);
    if (run->write_errors)
        sc_kv_addf(&kv, "write_error", "%s", run->write_error);
    sc_kv_addf(&kv, "wrapper_killed", "%d", run->wrapper_killed ? 1 : 0);
    sc_kv_addf(&kv, "spawn_error", "%s", r->spawn_error ? strerror(r->spawn_error) : "none");
    sc_kv_addf(&kv, "caller_signal", "%d", r->caller_signal);
    sc_kv_addf(&kv, "timed_out", "%d", r->timed_out ? 1 : 0);
    sc_kv_addf(&kv, "exit_known", "%d", r->exit_known ? 1 : 0);
    sc_kv_addf(&kv, "exit_code", "%d", r->exit_code);
    sc_kv_addf(&kv, "exit_signal", "%d", r->exit_signal);
    if (best_rate > 0)
        sc_kv_addf(&kv, "best_rate_MBps", "%.1f", best_rate);
    if (c->workload == SC_WORKLOAD_MPI_PINGPONG)
        sc_tracelog_transport_conf(t, &kv);
    sc_kv_append(&kv, "# gate verdicts (1 holds, 0 failed, NA not asked by the card)\n");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        sc_kv_addf(&kv, sc_gate_conf_key((sc_gate_id)i), "%s",
                   s == SC_GATE_OK ? "1" : s == SC_GATE_FAIL ? "0" : "NA");
    }
    sc_kv_addf(&kv, "verdict", "%s", sc_gates_passed(gates) ? "ok" : "failed");
    sc__put(run, "run.conf", kv.text);
    sc_kv_free(&kv);
}

/* Whether anything root signed is in the bundle: the readback a run checks is otherwise the
   user's own word (doc/design.md, section 20), and the run says so. */
static void sc__print_attested(const sc_card *card, const sc_bundle *b)
{
    sc_attest_file *v = NULL;
    size_t n = 0;
    bool more = false;

    if (card->prefetch == SC_PREFETCH_UNCHANGED && strcmp(card->governor, "unchanged") == 0)
        return;
    if (sc_attest_bundle_files(b->dirfd, &v, &n, &more) == 0 && n > 0)
        fprintf(stderr, "streamcard: platform_state: the readback comes with a statement signed "
                        "by the node (streamcard verify checks it against trusted keys)\n");
    else
        fprintf(stderr, "streamcard: platform_state: no platform claim is attested: no statement "
                        "signed by a node key (outside the plugin, the readback is the user's own "
                        "word; streamcard verify fails it)\n");
    sc_attest_files_free(v, n);
}

/* A failed run's first cause line in its log (an MPI library that could not start, the
   workload's own complaint), so that it shows even with --quiet. */
static void sc__print_cause(const char *log)
{
    char line[512], shown[600];
    long at = log ? sc_tracelog_first_cause(log, line, sizeof(line)) : 0;

    if (!at)
        return;
    sc_text_escape(shown, sizeof(shown), line, strlen(line));
    fprintf(stderr, "streamcard: cause: %s (stream.log line %ld)\n", shown, at);
}

static void sc__print_summary(const sc_gates *gates, const char *bundle_path, const char *log)
{
    fprintf(stderr, "streamcard: gates:\n");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        fprintf(stderr, "  %-15s %-4s %s\n", sc_gate_name((sc_gate_id)i),
                s == SC_GATE_OK ? "ok" : s == SC_GATE_FAIL ? "FAIL" : "-", gates->g[i].note);
    }
    if (!sc_gates_passed(gates)) {
        sc__print_cause(log);
        fprintf(stderr, "ERROR: workload failed; do not use its numbers. Failed gates:");
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (gates->g[i].state == SC_GATE_FAIL)
                fprintf(stderr, " %s", sc_gate_name((sc_gate_id)i));
        fprintf(stderr, "\n");
    }
    printf("BUNDLE=%s\n", bundle_path);
    fflush(stdout);
}

/* The output directory must have room for a bundle before anything runs. */
static int sc__check_room(const char *dir)
{
    struct statvfs st;

    if (statvfs(dir, &st) < 0)
        return 0; /* it may not exist yet: sc_bundle_create makes it and says why not */
    unsigned long long free_bytes = (unsigned long long)st.f_bavail * st.f_frsize;
    if (free_bytes >= SC__MIN_FREE_BYTES)
        return 0;
    fprintf(stderr, "streamcard: %s has %llu KiB free, a bundle needs at least %u KiB (valid: "
                    "an output directory with room, --output DIR)\n",
            dir, free_bytes >> 10, SC__MIN_FREE_BYTES >> 10);
    return -ENOSPC;
}

/*
 * Creates the bundle, or in a --stream-card job opens the one the plugin made: it must
 * not be sealed yet (one run per bundle) and its card.yaml must be the card it announced.
 */
static int sc__open_bundle(const sc_plan *plan, sc_bundle *b)
{
    int rc;

    if (!plan->opts->adopt_bundle) {
        rc = sc__check_room(plan->opts->output_dir);
        if (rc < 0)
            return rc;
        rc = sc_bundle_create(b, plan->opts->output_dir, plan->card->run_name, time(NULL));
        if (rc < 0)
            fprintf(stderr,
                    "streamcard: cannot create the bundle under %s: %s (valid: a "
                    "writable directory, --output DIR)\n",
                    plan->opts->output_dir, strerror(-rc));
        return rc;
    }
    rc = sc_bundle_open(b, plan->opts->adopt_bundle);
    if (rc < 0) {
        fprintf(stderr, "streamcard: cannot open the job's bundle %s: %s\n",
                plan->opts->adopt_bundle, strerror(-rc));
        return rc;
    }
    const char *announced = getenv("STREAMCARD_CARD_SHA256");
    struct stat sums;
    /* Sealed: SHA256SUMS written (an empty one is only the space reserved for it). */
    if (fstatat(b->dirfd, SC_BUNDLE_SUMS, &sums, AT_SYMLINK_NOFOLLOW) == 0 && sums.st_size > 0) {
        fprintf(stderr,
                "streamcard: the job's bundle %s is already sealed: one run per "
                "bundle (run further cards with streamcard run CARD)\n",
                plan->opts->adopt_bundle);
        rc = -EEXIST;
    } else if (announced && strcmp(announced, plan->card_sha256) != 0) {
        fprintf(stderr,
                "streamcard: %s does not hold the card submitted with the job (sha256 "
                "%s, submitted %s)\n",
                plan->opts->card_path, plan->card_sha256, announced);
        rc = -EINVAL;
    }
    if (rc < 0)
        sc_bundle_close(b);
    return rc;
}

/* True when the bundle directory itself was removed while the run went on. */
static bool sc__bundle_gone(const sc_bundle *b)
{
    struct stat st;

    return fstat(b->dirfd, &st) < 0 || st.st_nlink == 0;
}

/* mpi: what rank 0 wrote of every rank's MPI_Init output, kept as transport.log. */
static void sc__keep_transport_log(sc__execution *run)
{
    char *text = NULL;
    size_t len = 0;

    if (!run->plan->transport_log_path)
        return;
    if (sc_file_read_at(AT_FDCWD, run->plan->transport_log_path, 0, 8u << 20, &text, &len) == 0)
        sc__put(run, "transport.log", text);
    unlink(run->plan->transport_log_path);
    free(text);
}

/* mpi: build.json gains the MPI stack the ranks loaded (sc_mpistack.h), from the log. */
static void sc__add_mpi_stack(sc__execution *run, const sc_tracelog *t)
{
    char *text = sc_bundle_read_opt(&run->b, "build.json");
    json_object *build = text ? json_tokener_parse(text) : NULL, *stack = sc_mpistack_json(t);

    if (build && stack) {
        json_object_object_add(build, "mpi_stack", stack);
        stack = NULL;
        sc__put(run, "build.json",
                json_object_to_json_string_ext(build, JSON_C_TO_STRING_PRETTY |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
    }
    json_object_put(stack);
    json_object_put(build);
    free(text);
}

/*
 * Everything after the workload's end: platform/after.txt, the gates from the files as
 * written (exactly as verify reads them), results.json, run.conf and SHA256SUMS. Used by
 * the run itself and by its guardian. Returns the exit status of `streamcard run`.
 */
static int sc__finish(sc__execution *run, const sc_observe_result *r)
{
    sc_plan *plan = run->plan;
    sc_gates gates;
    char *kernel_json = NULL;

    if (sc__bundle_gone(&run->b)) {
        fprintf(stderr, "streamcard: the bundle directory %s was removed during the run: its "
                        "evidence is lost and the run proves nothing\n",
                run->b.path);
        fprintf(stderr, "ERROR: workload failed; do not use its numbers\n");
        return SC_EXIT_FAILED;
    }
    sc__platform_snapshot(run, "platform/after.txt");
    run->write_errors += r->write_errors;
    if (r->write_errors && !*run->write_error)
        snprintf(run->write_error, sizeof(run->write_error), "%s", r->write_error);
    char *log = sc_bundle_read_opt(&run->b, "stream.log");
    char *threads = sc_bundle_read_opt(&run->b, "threads_at_ready.txt");
    char *status = sc_bundle_read_opt(&run->b, "workload_status_at_ready.txt");
    char *maps = sc_bundle_read_opt(&run->b, "numa_maps_at_ready.txt");
    char *state = sc_bundle_read_opt(&run->b, "prefetch/state/state.env");
    char *caches = sc_bundle_read_opt(&run->b, "platform/caches.txt");
    sc_host_state *hosts = NULL;
    size_t n_hosts = 0;
    sc_host_states_read(&run->b, &hosts, &n_hosts); /* none: the gate asks for what it needs */
    if (plan->json_path) {
        sc_file_read_at(AT_FDCWD, plan->json_path, 0, 1 << 20, &kernel_json, NULL);
        unlink(plan->json_path);
    }
    sc__keep_transport_log(run);
    if (plan->json_path)
        rmdir(run->tmpdir);
    json_object *kj = kernel_json ? json_tokener_parse(kernel_json) : NULL, *metrics = NULL;
    if (kj)
        json_object_object_get_ex(kj, "metrics", &metrics);
    double best = sc_results_best_rate(metrics);
    sc_evidence ev = {.log = log, .exit_known = r->exit_known, .exit_code = r->exit_code,
                      .exit_signal = r->exit_signal, .threads_at_ready = threads,
                      .status_at_ready = status, .numa_maps_at_ready = maps, .state_env = state,
                      .host_states = hosts, .n_host_states = n_hosts, .best_rate_MBps = best, .write_errors = run->write_errors,
                      .write_error = run->write_error,
                      .caches = caches,
                      .ended_by_streamcard =
                          r->caller_signal || r->timed_out || run->wrapper_killed};
    int rc = sc_gates_evaluate(plan->card, &ev, &gates);
    if (rc == 0 && r->timed_out)
        snprintf(gates.g[SC_GATE_EXIT_CODE].note, sizeof(gates.g[0].note),
                 "stopped after the --timeout of %.0f s", plan->opts->timeout_s);
    if (rc == 0 && run->wrapper_killed)
        snprintf(gates.g[SC_GATE_EXIT_CODE].note, sizeof(gates.g[0].note),
                 "not supported by evidence: streamcard was killed before the workload ended; "
                 "its guardian sealed what was written");

    char host[256] = "unknown", t_start[64], t_end[64];
    gethostname(host, sizeof(host) - 1);
    sc__iso_time(&r->started_at, t_start, sizeof(t_start));
    sc__iso_time(&r->ended_at, t_end, sizeof(t_end));
    sc_results_info info = {.host = host, .card_sha256 = plan->card_sha256, .bundle = run->b.path,
                            .started_at = t_start, .ended_at = t_end, .kernel_json = kernel_json};
    char *results = rc == 0 ? sc_results_build(plan->card, &gates, &info) : NULL;
    int lost_before = run->write_errors;
    sc__put(run, "results.json", results);
    sc_tracelog t;
    bool parsed = log && sc_tracelog_parse(log, &t) == 0;
    if (parsed && plan->card->workload == SC_WORKLOAD_MPI_PINGPONG)
        sc__add_mpi_stack(run, &t);
    if (rc == 0)
        sc__write_run_conf(run, r, &gates, best, parsed ? &t : NULL);
    if (parsed)
        sc_tracelog_free(&t);
    int seal = sc_bundle_seal(&run->b);
    if (seal < 0)
        fprintf(stderr, "streamcard: sealing %s failed: %s\n", run->b.path, strerror(-seal));
    if (rc == 0) {
        sc__print_attested(plan->card, &run->b);
        sc__print_summary(&gates, run->b.path, log);
    }
    if (run->write_errors)
        fprintf(stderr, "streamcard: %d writes into the bundle failed (the first: %s): the "
                        "output directory is full or was changed during the run\n",
                run->write_errors, run->write_error);
    free(plan->bundle_path);
    plan->bundle_path = strdup(run->b.path);
    int code = (rc == 0 && seal == 0 && run->write_errors == lost_before &&
                sc_gates_passed(&gates))
                   ? SC_EXIT_OK
                   : SC_EXIT_FAILED;
    json_object_put(kj);
    free(results);
    free(kernel_json);
    free(log);
    free(threads);
    free(status);
    free(maps);
    free(state);
    free(caches);
    sc_host_states_free(hosts, n_hosts);
    return code;
}

/*
 * The guardian: a child that waits on a pipe from the run. A byte means the run finished
 * its bundle; end-of-file without it means the run was killed, and the guardian finishes
 * the bundle with what was written (the workload dies with the run: PR_SET_PDEATHSIG).
 * Its name is SC_BUNDLE_GUARDIAN_COMM: in a --stream-card job, the plugin's slurmstepd waits for
 * it (a while) before killing what is left of the step (spank/guardian.h).
 */
static int sc__guardian_start(sc__execution *run, pid_t *pid)
{
    int p[2];

    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    *pid = fork();
    if (*pid < 0) {
        int err = -errno;
        close(p[0]);
        close(p[1]);
        return err;
    }
    if (*pid == 0) {
        char byte;
        ssize_t n;
        prctl(PR_SET_NAME, SC_BUNDLE_GUARDIAN_COMM);
        close(p[1]);
        while ((n = read(p[0], &byte, 1)) < 0 && errno == EINTR)
            ;
        if (n == 1)
            _exit(0);
        usleep(200 * 1000); /* let the workload, killed with the run, finish dying */
        sc_observe_result r;
        memset(&r, 0, sizeof(r));
        run->wrapper_killed = true;
        fprintf(stderr, "streamcard: guardian: streamcard was killed; sealing %s with what was "
                        "written\n",
                run->b.path);
        sc__finish(run, &r);
        _exit(0);
    }
    close(p[0]);
    return p[1];
}

static void sc__guardian_stop(int fd, pid_t pid)
{
    if (fd < 0)
        return;
    (void)!write(fd, "d", 1);
    close(fd);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* One run of plan, start to sealed bundle. Returns the exit status of `streamcard run`. */
static int sc__execute_plan(sc_plan *plan)
{
    sc__execution run = {.plan = plan};
    sc_observe_result r;
    pid_t guardian = -1;

    /* The binary's build identity is asked for first: loading its libraries (a 36 MB BLAS)
       takes milliseconds, which pass while the bundle and the platform snapshot are made. */
    char *const info_argv[] = {plan->binary, "--build-info", NULL};
    if (sc_spawn_start(info_argv, NULL, &run.build_info) < 0)
        run.build_info.pid = -1; /* sc__write_build_json() asks again */
    snprintf(run.tmpdir, sizeof(run.tmpdir), "/tmp/streamcard-XXXXXX");
    if (sc__open_bundle(plan, &run.b) < 0) {
        sc__build_info_discard(&run);
        return SC_EXIT_ERROR;
    }
    if (!mkdtemp(run.tmpdir) || asprintf(&plan->json_path, "%s/results.json", run.tmpdir) < 0) {
        fprintf(stderr, "streamcard: cannot create a temporary directory: %s\n", strerror(errno));
        sc__build_info_discard(&run);
        sc_bundle_close(&run.b);
        return SC_EXIT_ERROR;
    }
    /* The kernel writes its own results to a private file, merged into results.json; the
       MPI workload what MPI_Init said to another, kept as transport.log. */
    bool mpi = plan->card->workload == SC_WORKLOAD_MPI_PINGPONG;
    if (sc_plan_append_arg(plan, "--json") < 0 || sc_plan_append_arg(plan, plan->json_path) < 0 ||
        (mpi && (asprintf(&plan->transport_log_path, "%s/transport.log", run.tmpdir) < 0 ||
                 sc_plan_append_arg(plan, "--transport-log") < 0 ||
                 sc_plan_append_arg(plan, plan->transport_log_path) < 0))) {
        fprintf(stderr, "streamcard: out of memory\n");
        sc__build_info_discard(&run);
        sc_bundle_close(&run.b);
        return SC_EXIT_ERROR;
    }
    /* Room for the files written last, whatever fills the disk meanwhile. */
    sc_bundle_reserve(&run.b, "results.json", SC__RESERVE_BYTES);
    sc_bundle_reserve(&run.b, "run.conf", SC__RESERVE_BYTES);
    sc_bundle_reserve(&run.b, SC_BUNDLE_SUMS, SC__RESERVE_BYTES);
    if (!plan->opts->adopt_bundle)
        sc__put(&run, "card.yaml", plan->card_yaml);
    /* The plugin's before.txt (before it changed the platform) is kept as it is. */
    if (!plan->opts->adopt_bundle || faccessat(run.b.dirfd, "platform/before.txt", F_OK, 0) < 0)
        sc__platform_snapshot(&run, "platform/before.txt");
    sc__caches_snapshot(&run);
    sc__write_build_json(&run);
    int log_fd = sc_bundle_open_file(&run.b, "stream.log", O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (log_fd < 0) {
        fprintf(stderr, "streamcard: cannot write %s/stream.log: %s\n", run.b.path,
                strerror(-log_fd));
        sc_bundle_close(&run.b);
        return SC_EXIT_ERROR;
    }
    int guard_fd = sc__guardian_start(&run, &guardian);
    if (guard_fd < 0)
        fprintf(stderr, "streamcard: no guardian for this run (%s): if streamcard is killed, "
                        "its bundle stays unsealed\n",
                strerror(-guard_fd));
    char *log_path = NULL, guard[256];
    if (asprintf(&log_path, "%s/stream.log", run.b.path) < 0)
        log_path = NULL;
    snprintf(guard, sizeof(guard), "PREFETCH_MODE=%s\nGOVERNOR=%s\nCPU_LIST=%s\n",
             sc_prefetch_name(plan->card->prefetch), plan->card->governor, plan->card->cpu_list);
    sc_observe_opts o = {.argv = plan->argv,
                         .envp = plan->envp,
                         .cpus = plan->card->cpus,
                         .memory_node = plan->card->memory_node,
                         .log_fd = log_fd,
                         .echo_fd = plan->opts->quiet ? -1 : STDOUT_FILENO,
                         .bundle = &run.b,
                         .log_path = log_path,
                         .guard_extra = guard,
                         .timeout_s = plan->opts->timeout_s};
    fprintf(stderr, "streamcard: running %s into %s\n", plan->argv[0], run.b.path);
    int rc = sc_observe_run(&o, &r);
    close(log_fd);
    free(log_path);
    if (rc < 0)
        fprintf(stderr, "streamcard: watching the workload failed: %s\n", strerror(-rc));
    if (!r.started)
        dprintf(STDERR_FILENO, "streamcard: could not start %s: %s\n", plan->argv[0],
                strerror(r.spawn_error ? r.spawn_error : -rc));
    int status = sc__finish(&run, &r);
    if (rc < 0)
        status = SC_EXIT_FAILED;
    sc__guardian_stop(guard_fd, guardian);
    sc_bundle_close(&run.b);
    return status;
}

/* The run of plan with stop requests held for the observer. */
static int sc__execute(sc_plan *plan)
{
    sigset_t block, old;

    if (!plan->binary_found) {
        fprintf(stderr,
                "streamcard: the %s kernel was not found at %s (build it with cmake "
                "--build build, or set STREAMCARD_KERNEL_DIR)\n",
                sc_workload_name(plan->card->workload), plan->binary);
        return SC_EXIT_ERROR;
    }
    /* Stop requests are handled by the observer and must not cut the bundle short. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, &old);
    signal(SIGPIPE, SIG_IGN);
    int status = sc__execute_plan(plan);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}

static int sc__local_begin(void *state, const sc_run_series *rs)
{
    (void)state;
    if (rs->series->variable)
        printf("streamcard sweep: %s over %zu values\n", rs->series->variable, rs->series->n);
    return 0;
}

static int sc__local_run(void *state, const sc_run_series *rs, size_t i, char **bundle,
                         char **cause)
{
    sc_plan *plan = &rs->plans[i];

    (void)state;
    if (rs->opts->dry_run) {
        sc_plan_print(plan, stdout);
        return plan->binary_found ? SC_EXIT_OK : SC_EXIT_ERROR;
    }
    int status = sc__execute(plan);
    *bundle = plan->bundle_path ? strdup(plan->bundle_path) : NULL;
    if (!*bundle && asprintf(cause, "it could not run (exit %d; its messages above)", status) < 0)
        *cause = NULL;
    return status;
}

static void sc__local_end(void *state, const sc_run_series *rs, bool failed)
{
    (void)state;
    /* A lone run said so in its own summary. */
    if (failed && rs->series->variable)
        fprintf(stderr, "ERROR: workload failed in at least one run of the sweep; its numbers "
                        "are not usable\n");
}

void sc_local_executor(sc_executor *ex)
{
    *ex = (sc_executor){.begin = sc__local_begin,
                        .run = sc__local_run,
                        .end = sc__local_end,
                        .dry_note = "DRY-RUN complete; no files written."};
}
