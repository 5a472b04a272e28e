/*
 * run.c: `streamcard run`: card and flags -> checked plan -> the workload under the
 * observer -> gates -> the sealed evidence bundle. Whatever happens after the bundle
 * exists (crash, signal, failed validation), the bundle is completed and sealed: a
 * failed run is evidence too.
 */
#include "cli.h"
#include "sc_bundle.h"
#include "sc_file.h"
#include "sc_gates.h"
#include "sc_kv.h"
#include "sc_machine.h"
#include "sc_observe.h"
#include "sc_results.h"
#include "sc_sysstate.h"
#include "sc_tracelog.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
    OPT_DRY_RUN = 1000,
    OPT_OUTPUT,
    OPT_TIMEOUT,
    OPT_QUIET,
    OPT_HELP,
    OPT_SUBMIT,
    OPT_SBATCH,
    OPT_CARD_FLAG = 2000
};

static void sc__run_usage(FILE *out)
{
    const char *help = NULL, *flag;

    fprintf(out,
            "usage: streamcard run [CARD] [options]\n"
            "\n"
            "Runs the experiment CARD (YAML) with its CPU and memory binding, watches the\n"
            "workload, checks the acceptance gates and writes a sealed evidence bundle.\n"
            "Exit status: 0 every gate held, 1 the run failed (the bundle says why),\n"
            "2 bad card or options (nothing ran), 3 could not run.\n"
            "\n"
            "options:\n"
            "  --dry-run          print the resolved plan; write nothing, change nothing\n"
            "  --output DIR       parent directory of the bundle (default: .)\n"
            "  --timeout SEC      stop the workload after SEC seconds (the run fails)\n"
            "  --quiet            do not echo the workload's output\n"
            "  --submit           run through Slurm: one sbatch --stream-card job per run\n"
            "                     (per value of a sweep; the plugin sets the platform for each)\n"
            "  --sbatch ARG       pass ARG to sbatch with --submit (repeatable)\n"
            "  -h, --help         this text\n"
            "\n"
            "card keys as flags (override the card; without CARD they make the card):\n");
    for (size_t i = 0; (flag = sc_card_flag(i, &help)); i++)
        fprintf(out, "  --%-18s %s\n", flag, help);
    fprintf(out, "\nexample: streamcard run --workload stream --kernel copy --cpu-list 0-1 "
                 "--threads 2 --dry-run\n");
}

/* The getopt table: the fixed options, then one entry per card flag. */
static struct option *sc__run_options(void)
{
    static const struct option fixed[] = {
        {"dry-run", no_argument, NULL, OPT_DRY_RUN}, {"output", required_argument, NULL, OPT_OUTPUT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT}, {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, OPT_HELP}, {"submit", no_argument, NULL, OPT_SUBMIT},
        {"sbatch", required_argument, NULL, OPT_SBATCH},
    };
    size_t nfixed = sizeof(fixed) / sizeof(fixed[0]), nflags = 0;

    while (sc_card_flag(nflags, NULL))
        nflags++;
    struct option *opts = calloc(nfixed + nflags + 1, sizeof(*opts));
    if (!opts)
        return NULL;
    memcpy(opts, fixed, sizeof(fixed));
    for (size_t i = 0; i < nflags; i++)
        opts[nfixed + i] = (struct option){sc_card_flag(i, NULL), required_argument, NULL,
                                           OPT_CARD_FLAG + (int)i};
    return opts;
}

typedef struct sc__flag_value {
    const char *flag, *value;
} sc__flag_value;

/*
 * Parses options into plan; card flags are applied after the card file is read. A card
 * whose keys or values are wrong sets *card_errors but returns 0, so the checks that
 * follow can report the card's other problems in the same run.
 */
static int sc__run_parse(int argc, char **argv, sc_plan *plan, bool *dry_run, bool *card_errors,
                         sc_diag *diag)
{
    struct option *opts = sc__run_options();
    sc__flag_value *flags = calloc((size_t)argc + 1, sizeof(*flags));
    size_t nflags = 0;
    const char *output = ".";
    int c, rc = 0;

    if (!opts || !flags) {
        free(opts);
        free(flags);
        return -ENOMEM;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_DRY_RUN) {
            *dry_run = true;
        } else if (c == OPT_OUTPUT) {
            output = optarg;
        } else if (c == OPT_TIMEOUT) {
            char *end = NULL;
            plan->timeout_s = strtod(optarg, &end);
            if (!end || *end || plan->timeout_s <= 0) {
                sc_diag_addf(diag, "--timeout: \"%s\" is not a positive number of seconds",
                             optarg);
                rc = -EINVAL;
            }
        } else if (c == OPT_QUIET) {
            plan->quiet = true;
        } else if (c == OPT_SUBMIT) {
            plan->submit = true;
        } else if (c == OPT_SBATCH) {
            char **grown = realloc(plan->sbatch_args, (plan->n_sbatch_args + 2) * sizeof(char *));
            if (!grown || !(grown[plan->n_sbatch_args] = strdup(optarg))) {
                free(grown == plan->sbatch_args ? NULL : grown);
                rc = -ENOMEM;
                goto out;
            }
            plan->sbatch_args = grown;
            grown[++plan->n_sbatch_args] = NULL;
        } else if (c == OPT_HELP || c == 'h') {
            sc__run_usage(stdout);
            rc = 1;
            goto out;
        } else if (c >= OPT_CARD_FLAG) {
            flags[nflags].flag = sc_card_flag((size_t)(c - OPT_CARD_FLAG), NULL);
            flags[nflags++].value = optarg;
        } else if (c == ':') {
            sc_diag_addf(diag, "%s: needs a value (see streamcard run --help)", argv[optind - 1]);
            rc = -EINVAL;
        } else {
            sc_diag_addf(diag, "%s: unknown option (see streamcard run --help)", argv[optind - 1]);
            rc = -EINVAL;
        }
    }
    if (optind < argc - 1) {
        sc_diag_addf(diag, "%s: only one card per run (use a sweep for several)", argv[optind + 1]);
        rc = -EINVAL;
    }
    if (rc < 0)
        goto out;
    plan->card = sc_card_new();
    plan->output_dir = strdup(output);
    if (!plan->card || !plan->output_dir) {
        rc = -ENOMEM;
        goto out;
    }
    if (optind < argc) {
        plan->card_path = strdup(argv[optind]);
        int lrc = sc_card_load_file(plan->card, argv[optind], diag);
        if (lrc == -EINVAL)
            *card_errors = true;
        else if (lrc < 0)
            rc = -EINVAL; /* unreadable, or not YAML: nothing more to check */
    } else if (nflags == 0 && getenv("STREAMCARD_BUNDLE") && getenv("STREAMCARD_CARD")) {
        /* In a job submitted with --stream-card: the card and bundle the plugin prepared. */
        plan->adopt_bundle = strdup(getenv("STREAMCARD_BUNDLE"));
        plan->card_path = strdup(getenv("STREAMCARD_CARD"));
        if (!plan->adopt_bundle || !plan->card_path)
            rc = -ENOMEM;
        else if (sc_card_load_file(plan->card, plan->card_path, diag) < 0)
            rc = -EINVAL;
    } else if (nflags == 0) {
        sc_diag_addf(diag, "no card: give a CARD file or the card keys as flags (valid: "
                           "streamcard run card.yaml, or --workload stream --cpu-list 0-1 ...)");
        rc = -EINVAL;
    }
    for (size_t i = 0; i < nflags; i++)
        if (sc_card_set_flag(plan->card, flags[i].flag, flags[i].value, diag) < 0)
            rc = -EINVAL;
out:
    free(opts);
    free(flags);
    return rc;
}

/* card.yaml: the card exactly as given, or the resolved card when flags changed it. */
static int sc__resolve_card_text(sc_plan *plan)
{
    sc_card *card = plan->card;

    if (card->source && !card->overridden) {
        plan->card_origin = "file";
        plan->card_yaml = strdup(card->source);
    } else {
        plan->card_origin = card->source ? "file+flags" : "flags";
        plan->card_yaml = sc_card_to_yaml(card);
    }
    if (!plan->card_yaml)
        return -ENOMEM;
    return sc_hash_buf(plan->card_yaml, strlen(plan->card_yaml), plan->card_sha256);
}

static int sc__check_machine(const sc_plan *plan, sc_diag *diag)
{
    sc_fsroot root;
    sc_machine m;
    int rc = sc_fsroot_open(&root, plan->sysroot);

    if (rc < 0)
        return rc;
    rc = sc_machine_load(&m, &root);
    if (rc == 0) {
        sc_machine_restrict_to_self(&m);
        rc = sc_card_check_machine(plan->card, &m, plan->platform_control, diag);
        sc_machine_free(&m);
    } else {
        sc_diag_addf(diag, "cannot read this machine's CPUs and memory under /sys: %s",
                     strerror(-rc));
    }
    sc_fsroot_close(&root);
    return rc;
}

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

/* platform/<name>.txt: the machine state before or after the run. */
static void sc__platform_snapshot(const sc_bundle *b, const sc_plan *plan, const char *rel)
{
    sc_fsroot root;
    sc_kv kv;

    sc_kv_init(&kv);
    if (sc_fsroot_open(&root, plan->sysroot) == 0) {
        sc_sysstate_capture(&root, plan->card->cpus, &kv);
        sc_fsroot_close(&root);
    }
    if (!kv.failed && kv.text)
        sc_bundle_write_str(b, rel, kv.text);
    sc_kv_free(&kv);
}

/* build.json: the binary's identity (SHA-256, compiler, flags, OpenMP runtime). */
static void sc__write_build_json(const sc_bundle *b, const sc_plan *plan, char *binary_sha)
{
    char *info = NULL, value[1024];
    char *const argv[] = {plan->binary, "--build-info", NULL};
    json_object *root = json_object_new_object();
    static const char *const keys[] = {"compiler", "compiler_version", "flags",
                                       "openmp_runtime", "openmp_version", "nt_stores_available",
                                       "element_bytes", NULL};
    int fd = open(plan->binary, O_RDONLY | O_CLOEXEC);

    strcpy(binary_sha, "unavailable");
    if (fd >= 0) {
        sc_hash_fd(fd, binary_sha);
        close(fd);
    }
    json_object_object_add(root, "binary", json_object_new_string(plan->binary));
    json_object_object_add(root, "sha256", json_object_new_string(binary_sha));
    if (sc_spawn_capture(argv, &info) == 0) {
        for (const char *const *k = keys; *k; k++)
            if (sc_kv_get(info, *k, value, sizeof(value)))
                json_object_object_add(root, *k, json_object_new_string(value));
        if (sc_kv_get(info, "openmp_runtime", value, sizeof(value))) {
            char sha[SC_HASH_HEX_LEN + 1];
            int rfd = open(value, O_RDONLY | O_CLOEXEC);
            if (rfd >= 0 && sc_hash_fd(rfd, sha) == 0)
                json_object_object_add(root, "openmp_runtime_sha256", json_object_new_string(sha));
            if (rfd >= 0)
                close(rfd);
        }
    } else {
        json_object_object_add(root, "build_info", json_object_new_string("unavailable: the "
                                                                          "binary did not answer "
                                                                          "--build-info"));
    }
    free(info);
    json_object *sizes = json_object_new_object();
    json_object_object_add(sizes, "array_size", json_object_new_int64((int64_t)plan->card->array_size));
    json_object_object_add(sizes, "iterations", json_object_new_int64(plan->card->iterations));
    json_object_object_add(sizes, "threads", json_object_new_int64(plan->card->threads));
    json_object_object_add(sizes, "nt_stores", json_object_new_string(plan->card->nt_stores));
    json_object_object_add(root, "run_parameters", sizes);
    json_object_object_add(root, "streamcard_version", json_object_new_string(STREAMCARD_VERSION));
    sc_bundle_write_str(b, "build.json",
                        json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                 JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}

/* Reads an optional bundle file; NULL when absent. */
static char *sc__read_opt(const sc_bundle *b, const char *rel)
{
    char *text = NULL;

    return sc_bundle_read(b, rel, &text, NULL) == 0 ? text : NULL;
}

static void sc__write_run_conf(const sc_bundle *b, const sc_plan *plan,
                               const sc_observe_result *r, const sc_gates *gates,
                               const char *binary_sha, double best_rate)
{
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
    sc_kv_addf(&kv, "bundle", "%s", b->path);
    sc_kv_addf(&kv, "host", "%s", host);
    sc_kv_addf(&kv, "uid", "%d", (int)getuid());
    sc_kv_addf(&kv, "slurm_job_id", "%s", getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "none");
    sc_kv_addf(&kv, "card_origin", "%s", plan->card_origin);
    sc_kv_addf(&kv, "card_source", "%s", plan->card_path ? plan->card_path : "command line");
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
    if (c->workload == SC_WORKLOAD_STREAM) {
        sc_kv_addf(&kv, "array_size", "%llu", (unsigned long long)c->array_size);
        sc_kv_addf(&kv, "iterations", "%ld", c->iterations);
        sc_kv_addf(&kv, "nt_stores", "%s", c->nt_stores);
    }
    sc_kv_addf(&kv, "binary", "%s", plan->binary);
    sc_kv_addf(&kv, "binary_sha256", "%s", binary_sha);
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
    sc_kv_addf(&kv, "capture_errors", "%d", r->capture_errors);
    if (r->capture_errors)
        sc_kv_addf(&kv, "capture_error", "%s", r->capture_error);
    sc_kv_addf(&kv, "spawn_error", "%s", r->spawn_error ? strerror(r->spawn_error) : "none");
    sc_kv_addf(&kv, "caller_signal", "%d", r->caller_signal);
    sc_kv_addf(&kv, "timed_out", "%d", r->timed_out ? 1 : 0);
    sc_kv_addf(&kv, "exit_known", "%d", r->exit_known ? 1 : 0);
    sc_kv_addf(&kv, "exit_code", "%d", r->exit_code);
    sc_kv_addf(&kv, "exit_signal", "%d", r->exit_signal);
    if (best_rate > 0)
        sc_kv_addf(&kv, "best_rate_MBps", "%.1f", best_rate);
    sc_kv_append(&kv, "# gate verdicts (1 holds, 0 failed, NA not asked by the card)\n");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        sc_kv_addf(&kv, sc_gate_conf_key((sc_gate_id)i), "%s",
                   s == SC_GATE_OK ? "1" : s == SC_GATE_FAIL ? "0" : "NA");
    }
    sc_kv_addf(&kv, "verdict", "%s", sc_gates_passed(gates) ? "ok" : "failed");
    sc_bundle_write_str(b, "run.conf", kv.text ? kv.text : "");
    sc_kv_free(&kv);
}

static void sc__print_summary(const sc_gates *gates, const char *bundle_path)
{
    bool passed = sc_gates_passed(gates);

    fprintf(stderr, "streamcard: gates:\n");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        fprintf(stderr, "  %-15s %-4s %s\n", sc_gate_name((sc_gate_id)i),
                s == SC_GATE_OK ? "ok" : s == SC_GATE_FAIL ? "FAIL" : "-", gates->g[i].note);
    }
    if (!passed) {
        fprintf(stderr, "ERROR: workload failed; do not use its numbers. Failed gates:");
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (gates->g[i].state == SC_GATE_FAIL)
                fprintf(stderr, " %s", sc_gate_name((sc_gate_id)i));
        fprintf(stderr, "\n");
    }
    printf("BUNDLE=%s\n", bundle_path);
    fflush(stdout);
}

/*
 * Creates the bundle, or in a --stream-card job opens the one the plugin made: it must
 * not be sealed yet (one run per bundle) and its card.yaml must be the card it announced.
 */
static int sc__open_bundle(const sc_plan *plan, sc_bundle *b)
{
    int rc;

    if (!plan->adopt_bundle) {
        rc = sc_bundle_create(b, plan->output_dir, plan->card->run_name, time(NULL));
        if (rc < 0)
            fprintf(stderr, "streamcard: cannot create the bundle under %s: %s (valid: a "
                            "writable directory, --output DIR)\n",
                    plan->output_dir, strerror(-rc));
        return rc;
    }
    rc = sc_bundle_open(b, plan->adopt_bundle);
    if (rc < 0) {
        fprintf(stderr, "streamcard: cannot open the job's bundle %s: %s\n", plan->adopt_bundle,
                strerror(-rc));
        return rc;
    }
    const char *announced = getenv("STREAMCARD_CARD_SHA256");
    if (faccessat(b->dirfd, SC_BUNDLE_SUMS, F_OK, 0) == 0) {
        fprintf(stderr, "streamcard: the job's bundle %s is already sealed: one run per "
                        "bundle (run further cards with streamcard run CARD)\n",
                plan->adopt_bundle);
        rc = -EEXIST;
    } else if (announced && strcmp(announced, plan->card_sha256) != 0) {
        fprintf(stderr, "streamcard: %s does not hold the card submitted with the job (sha256 "
                        "%s, submitted %s)\n",
                plan->card_path, plan->card_sha256, announced);
        rc = -EINVAL;
    }
    if (rc < 0)
        sc_bundle_close(b);
    return rc;
}

/* Runs the plan and writes the bundle. Returns the exit status of `streamcard run`. */
static int sc__execute(sc_plan *plan)
{
    sc_bundle b;
    sc_observe_result r;
    sc_gates gates;
    char tmpl[] = "/tmp/streamcard-XXXXXX", binary_sha[SC_HASH_HEX_LEN + 1];
    char *kernel_json = NULL;
    int rc = sc__open_bundle(plan, &b);

    if (rc < 0)
        return SC_EXIT_ERROR;
    if (!mkdtemp(tmpl) || asprintf(&plan->json_path, "%s/results.json", tmpl) < 0) {
        fprintf(stderr, "streamcard: cannot create a temporary directory: %s\n", strerror(errno));
        sc_bundle_close(&b);
        return SC_EXIT_ERROR;
    }
    /* The kernel writes its own results to a private file, merged into results.json. */
    if (sc_plan_append_arg(plan, "--json") < 0 || sc_plan_append_arg(plan, plan->json_path) < 0) {
        fprintf(stderr, "streamcard: out of memory\n");
        sc_bundle_close(&b);
        return SC_EXIT_ERROR;
    }
    if (!plan->adopt_bundle)
        sc_bundle_write_str(&b, "card.yaml", plan->card_yaml);
    /* The plugin's before.txt (before it changed the platform) is kept as it is. */
    if (!plan->adopt_bundle || faccessat(b.dirfd, "platform/before.txt", F_OK, 0) < 0)
        sc__platform_snapshot(&b, plan, "platform/before.txt");
    sc__write_build_json(&b, plan, binary_sha);
    int log_fd = sc_bundle_open_file(&b, "stream.log", O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (log_fd < 0) {
        fprintf(stderr, "streamcard: cannot write %s/stream.log: %s\n", b.path, strerror(-log_fd));
        sc_bundle_close(&b);
        return SC_EXIT_ERROR;
    }
    char *log_path = NULL, guard[256];
    if (asprintf(&log_path, "%s/stream.log", b.path) < 0)
        log_path = NULL;
    snprintf(guard, sizeof(guard), "PREFETCH_MODE=%s\nGOVERNOR=%s\nCPU_LIST=%s\n",
             sc_prefetch_name(plan->card->prefetch), plan->card->governor, plan->card->cpu_list);
    sc_observe_opts o = {.argv = plan->argv, .envp = plan->envp, .cpus = plan->card->cpus,
                         .memory_node = plan->card->memory_node, .log_fd = log_fd,
                         .echo_fd = plan->quiet ? -1 : STDOUT_FILENO, .bundle = &b,
                         .log_path = log_path, .guard_extra = guard,
                         .timeout_s = plan->timeout_s};
    fprintf(stderr, "streamcard: running %s into %s\n", plan->argv[0], b.path);
    rc = sc_observe_run(&o, &r);
    close(log_fd);
    free(log_path);
    if (rc < 0)
        fprintf(stderr, "streamcard: watching the workload failed: %s\n", strerror(-rc));
    if (!r.started)
        dprintf(STDERR_FILENO, "streamcard: could not start %s: %s\n", plan->argv[0],
                strerror(r.spawn_error ? r.spawn_error : -rc));
    sc__platform_snapshot(&b, plan, "platform/after.txt");

    /* The gates read the evidence back from the bundle, exactly as verify will. */
    char *log = sc__read_opt(&b, "stream.log");
    char *threads = sc__read_opt(&b, "threads_at_ready.txt");
    char *status = sc__read_opt(&b, "workload_status_at_ready.txt");
    char *maps = sc__read_opt(&b, "numa_maps_at_ready.txt");
    char *state = sc__read_opt(&b, "prefetch/state/state.env");
    sc_file_read_at(AT_FDCWD, plan->json_path, 0, 1 << 20, &kernel_json, NULL);
    unlink(plan->json_path);
    rmdir(tmpl);
    json_object *kj = kernel_json ? json_tokener_parse(kernel_json) : NULL, *metrics = NULL;
    if (kj)
        json_object_object_get_ex(kj, "metrics", &metrics);
    double best = sc_results_best_rate(metrics);
    sc_evidence ev = {.log = log, .exit_known = r.exit_known, .exit_code = r.exit_code,
                      .exit_signal = r.exit_signal, .threads_at_ready = threads,
                      .status_at_ready = status, .numa_maps_at_ready = maps, .state_env = state,
                      .best_rate_MBps = best};
    rc = sc_gates_evaluate(plan->card, &ev, &gates);
    if (rc == 0 && r.timed_out)
        snprintf(gates.g[SC_GATE_EXIT_CODE].note, sizeof(gates.g[0].note),
                 "stopped after the --timeout of %.0f s", plan->timeout_s);

    char host[256] = "unknown", t_start[64], t_end[64];
    gethostname(host, sizeof(host) - 1);
    sc__iso_time(&r.started_at, t_start, sizeof(t_start));
    sc__iso_time(&r.ended_at, t_end, sizeof(t_end));
    sc_results_info info = {.host = host, .card_sha256 = plan->card_sha256, .bundle = b.path,
                            .started_at = t_start, .ended_at = t_end, .kernel_json = kernel_json};
    char *results = sc_results_build(plan->card, &gates, &info);
    if (results)
        sc_bundle_write_str(&b, "results.json", results);
    sc__write_run_conf(&b, plan, &r, &gates, binary_sha, best);
    int seal = sc_bundle_seal(&b);
    if (seal < 0)
        fprintf(stderr, "streamcard: sealing %s failed: %s\n", b.path, strerror(-seal));
    sc__print_summary(&gates, b.path);
    free(plan->bundle_path);
    plan->bundle_path = strdup(b.path);
    int status_code = (rc == 0 && seal == 0 && sc_gates_passed(&gates)) ? SC_EXIT_OK
                                                                        : SC_EXIT_FAILED;
    json_object_put(kj);
    free(results);
    free(kernel_json);
    free(log);
    free(threads);
    free(status);
    free(maps);
    free(state);
    sc_bundle_close(&b);
    return status_code;
}

int sc_run_prepare(int argc, char **argv, long sweep_index, sc_plan *plan, bool *dry_run,
                   sc_diag *diag)
{
    bool card_errors = false;
    int rc;

    plan->sysroot = getenv("STREAMCARD_SYSROOT") ? getenv("STREAMCARD_SYSROOT") : "/";
    rc = sc__run_parse(argc, argv, plan, dry_run, &card_errors, diag);
    if (rc != 0)
        return rc; /* 1: --help was printed */
    if (plan->card->n_sweep && sweep_index < 0)
        return card_errors ? -EINVAL : 0; /* the caller runs the sweep, run by run */
    if (sweep_index >= 0 && sc_card_sweep_select(plan->card, (size_t)sweep_index, diag) < 0)
        card_errors = true;
    if (plan->adopt_bundle) {
        char state[PATH_MAX];
        snprintf(state, sizeof(state), "%s/prefetch/state/state.env", plan->adopt_bundle);
        plan->platform_control = access(state, R_OK) == 0;
    }
    /* Report every problem at once: the machine rules run even after a card rule failed. */
    rc = sc_card_check(plan->card, diag);
    /* With --submit the machine is the compute node's: the plugin checks it there. */
    if (!plan->submit && plan->card->workload != SC_WORKLOAD_NONE &&
        sc__check_machine(plan, diag) < 0)
        rc = -EINVAL;
    if (card_errors)
        rc = -EINVAL;
    if (rc == 0)
        rc = sc__resolve_card_text(plan);
    if (rc == 0 && !plan->submit)
        rc = sc_plan_build(plan, environ);
    return rc < 0 ? rc : (diag->count ? -EINVAL : 0);
}

int sc_run_execute(sc_plan *plan)
{
    sigset_t block, old;

    if (!plan->binary_found) {
        fprintf(stderr, "streamcard: the %s kernel was not found at %s (build it with cmake "
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
    int status = sc__execute(plan);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}

int sc_cmd_run(int argc, char **argv)
{
    sc_plan plan = {0};
    sc_diag diag;
    bool dry_run = false;
    int rc, status;

    sc_diag_init(&diag);
    rc = sc_run_prepare(argc, argv, -1, &plan, &dry_run, &diag);
    if (rc == 1) {
        status = SC_EXIT_OK; /* --help */
        goto out;
    }
    if (rc == 0 && plan.submit) {
        status = sc_run_submit(argc, argv, &plan, dry_run);
        goto out;
    }
    if (rc == 0 && plan.card->n_sweep) {
        status = sc_run_sweep(argc, argv, &plan, dry_run);
        goto out;
    }
    if (rc < 0 || diag.count) {
        sc_diag_print(&diag, "streamcard: ", stderr);
        if (!diag.count)
            fprintf(stderr, "streamcard: %s\n", strerror(-rc));
        status = diag.count ? SC_EXIT_USAGE : SC_EXIT_ERROR;
        goto out;
    }
    if (dry_run) {
        sc_plan_print(&plan, stdout);
        printf("DRY-RUN complete; no files written.\n");
        status = plan.binary_found ? SC_EXIT_OK : SC_EXIT_ERROR;
        goto out;
    }
    status = sc_run_execute(&plan);
out:
    sc_diag_free(&diag);
    sc_plan_free(&plan);
    return status;
}
