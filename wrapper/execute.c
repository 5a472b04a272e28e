/*
 * execute.c: the local executor (execute.h): the runs of a series here, one after the
 * other, each a separate process of the workload under the observer, into its card's
 * bundle (record.c writes the records). A card with runs: N or auto keeps its bundle open
 * from its first run to its last; a sweep's values take turns (A B A B ...), so a slow
 * drift of the machine lands on every value alike. Whatever happens once a bundle exists,
 * it is completed and sealed, and a failed run says what happened:
 *   - the workload crashes, is signalled or times out: its end is recorded, gates fail;
 *   - the disk fills: the files written last (results.json, run.conf, SHA256SUMS) had their
 *     space reserved when the bundle was made, and the evidence gate names what was lost;
 *   - the bundle directory is removed during the run: said plainly, nothing to seal;
 *   - this process is killed (SIGKILL): a guardian process, waiting on a pipe from it,
 *     finishes the bundle with what was written and a failed verdict.
 * With --platform apply the card's platform is set before a bundle is made and restored
 * when it ends, in each of these cases (sc_record_finish(), also the guardian's).
 */
#include "execute.h"
#include "platform_apply.h"
#include "cli.h"
#include "record.h"
#include "sc_bundle.h"
#include "sc_runs.h"
#include "sc_trace_protocol.h"
#include "timings.h"

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

/* The output directory must have room for a bundle before anything runs. */
static int sc__check_room(const char *dir)
{
    struct statvfs st;

    if (statvfs(dir, &st) < 0)
        return 0; /* it may not exist yet: sc_bundle_create makes it and says why not */
    unsigned long long free_bytes = (unsigned long long)st.f_bavail * st.f_frsize;
    if (free_bytes >= SC__MIN_FREE_BYTES)
        return 0;
    fprintf(stderr,
            "streamcard: %s has %llu KiB free, a bundle needs at least %u KiB (valid: "
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

    if (plan->bundle_at) { /* a side of a pair: exactly its folder in the pair's */
        rc = mkdir(plan->bundle_at, 0755) < 0 ? -errno : sc_bundle_open(b, plan->bundle_at);
        if (rc < 0)
            fprintf(stderr, "streamcard: cannot create the bundle %s: %s\n", plan->bundle_at,
                    strerror(-rc));
        return rc;
    }
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

/*
 * The guardian: a child that waits on a pipe from this process. A byte means the bundle was
 * sealed (sc_record_finish() sends it right after SHA256SUMS, so that the guardian's exit
 * overlaps the summary); end-of-file without it means streamcard was killed, and the guardian
 * finishes the bundle with what its runs wrote (the workload dies with streamcard:
 * PR_SET_PDEATHSIG). Its name is SC_BUNDLE_GUARDIAN_COMM: in a --stream-card job, the
 * plugin's slurmstepd waits for it (a while) before killing what is left of the step
 * (spank/guardian.h). It closes the other bundles' pipes, so each guardian sees its own end.
 */
static int sc__guardian_start(sc_local *st, size_t i, const sc_observe *h)
{
    sc_execution *x = &st->x[i];
    int p[2];

    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    x->guardian = fork();
    if (x->guardian < 0) {
        int err = -errno;
        close(p[0]);
        close(p[1]);
        return err;
    }
    if (x->guardian == 0) {
        char byte;
        ssize_t n;
        prctl(PR_SET_NAME, SC_BUNDLE_GUARDIAN_COMM);
        close(p[1]);
        for (size_t k = 0; k < st->n; k++)
            if (k != i && st->open[k] && st->x[k].guard_fd >= 0)
                close(st->x[k].guard_fd);
        if (h)
            sc_observe_close_in_child(h); /* the workload's pipes are streamcard's alone */
        while ((n = read(p[0], &byte, 1)) < 0 && errno == EINTR)
            ;
        if (n == 1)
            _exit(0);
        usleep(200 * 1000); /* let the workload, killed with streamcard, finish dying */
        memset(&x->last, 0, sizeof(x->last));
        x->wrapper_killed = true;
        fprintf(stderr,
                "streamcard: guardian: streamcard was killed; sealing %s with what was "
                "written\n",
                x->b.path);
        sc_record_finish(x);
        _exit(0);
    }
    close(p[0]);
    x->guard_fd = p[1];
    return 0;
}

/* The guardian told (unless sc_record_finish() told it at the seal) and reaped. */
static void sc__guardian_stop(sc_execution *x)
{
    sc_record_tell_guardian(x);
    if (x->guardian <= 0)
        return;
    while (waitpid(x->guardian, NULL, 0) < 0 && errno == EINTR)
        ;
    x->guardian = 0;
}

/*
 * --platform apply: the card's prefetch and governor set before the bundle is made (so
 * platform/before.txt and the registers read before the workload show what it runs on), by
 * the plugin's facade (platform_apply.h). A refusal prints the facade's one line.
 */
static int sc__apply(sc_execution *x)
{
    char why[1024] = "";
    int rc;

    x->apply = calloc(1, sizeof(*x->apply));
    if (!x->apply)
        return -ENOMEM;
    rc = sc_apply_start(x->apply, x->plan->opts, x->plan->card, why, sizeof(why));
    if (rc < 0) {
        fprintf(stderr, "%s%s\n", strncmp(why, "streamcard: ", 12) ? "streamcard: " : "",
                *why ? why : strerror(-rc));
        sc_apply_free(x->apply);
        free(x->apply);
        x->apply = NULL;
        return rc;
    }
    if (x->apply->applied)
        fprintf(stderr,
                "streamcard: platform applied by the CLI as root: prefetch %s, governor %s on "
                "cpus %s, journaled in %s (restored when the run ends)\n",
                sc_prefetch_name(x->plan->card->prefetch), x->plan->card->governor,
                x->plan->card->cpu_list, x->apply->state_dir);
    return 0;
}

/* The change restored and forgotten: the bundle that was to record it was never made, or
   it is sealed (sc_record_finish() restored it). */
static void sc__unapply(sc_execution *x)
{
    if (!x->apply)
        return;
    if (x->apply->applied && sc_apply_restore(x->apply) < 0)
        fprintf(stderr,
                "streamcard: ERROR: the platform could not be restored (the journal in "
                "%s is kept; valid: streamcard-node state --clear as root)\n",
                x->apply->state_dir);
    sc_apply_free(x->apply);
    free(x->apply);
    x->apply = NULL;
}

/*
 * The bundle of series run i, before its first run: created (or adopted from the plugin),
 * the workload's --json argument; sc__open_files() writes the rest once the first run's
 * workload is started. Returns 0, or the exit status to stop with.
 */
static int sc__open(sc_local *st, size_t i, sc_plan *plan)
{
    sc_execution *x = &st->x[i];

    memset(x, 0, sizeof(*x));
    x->plan = plan;
    x->guard_fd = -1;
    if (plan->opts->platform_apply && sc__apply(x) < 0)
        return SC_EXIT_ERROR; /* refused or failed: nothing left changed, nothing written */
    /* The binary's build identity first: remembered from an earlier run, or asked now
       (loading a 36 MB BLAS takes milliseconds, which pass while the bundle and the
       platform snapshot are made). */
    sc_record_build_info_start(x);
    sc_timings_mark(plan->opts->timings, "build-info-start");
    snprintf(x->tmpdir, sizeof(x->tmpdir), "/tmp/streamcard-XXXXXX");
    if (sc__open_bundle(plan, &x->b) < 0) {
        sc_record_build_info_discard(x);
        sc__unapply(x);
        return SC_EXIT_ERROR;
    }
    /* The kernel writes its own results to a private file per run, merged into results.json;
       the MPI workload what MPI_Init said to another, kept as the run's transport.log. Each
       run names its own (sc__set_run_paths). A program we did not write is given neither. */
    bool mpi = sc_workload_mpi(plan->card), ours = !sc_workload_foreign(plan->card);
    if (!mkdtemp(x->tmpdir) || (ours && sc_plan_append_arg(plan, "--json") < 0) ||
        (ours && sc_plan_append_arg(plan, x->tmpdir) < 0) ||
        (mpi && ours &&
         (sc_plan_append_arg(plan, "--transport-log") < 0 ||
          sc_plan_append_arg(plan, x->tmpdir) < 0))) {
        fprintf(stderr, "streamcard: cannot create a temporary directory: %s\n", strerror(errno));
        sc_record_build_info_discard(x);
        sc_bundle_close(&x->b);
        sc__unapply(x);
        return SC_EXIT_ERROR;
    }
    st->open[i] = true;
    sc_timings_mark(plan->opts->timings, "bundle-create");
    return 0;
}

/*
 * The rest of bundle i's first files, written while its first run's workload starts up
 * (sc__run_once): room reserved for the files written last, card.yaml,
 * platform/before.txt (the platform as the workload found it: its start-up does not
 * change it), caches.txt, build.json, the guardian (h: the started workload, whose pipes it
 * must not hold; NULL when none started: no guardian, the bundle is sealed next). Once per
 * bundle. Nothing here stops the run: a file that cannot be written is one the evidence
 * gate misses.
 */
static void sc__open_files(sc_local *st, size_t i, const sc_observe *h)
{
    sc_execution *x = &st->x[i];
    sc_plan *plan = x->plan;

    if (x->files_written)
        return;
    x->files_written = true;

    /* Room for the files written last, whatever fills the disk meanwhile. */
    sc_bundle_reserve(&x->b, "results.json", SC__RESERVE_BYTES);
    sc_bundle_reserve(&x->b, "run.conf", SC__RESERVE_BYTES);
    sc_bundle_reserve(&x->b, SC_BUNDLE_SUMS, SC__RESERVE_BYTES);
    /* An adopted bundle holds the card the plugin wrote; a pair's side is a bundle of its own
       inside it (pair_run.c). */
    bool adopted = plan->opts->adopt_bundle && !plan->bundle_at;
    if (!adopted)
        sc_record_put(x, "card.yaml", plan->card_yaml);
    /* The plugin's before.txt (before it changed the platform) is kept as it is. */
    if (!adopted || faccessat(x->b.dirfd, "platform/before.txt", F_OK, 0) < 0)
        sc_record_platform(x, "platform/before.txt");
    sc_timings_mark(plan->opts->timings, "before.txt");
    sc_record_readback(x, false); /* as root outside a job: the prefetch registers too */
    sc_record_applied(x);         /* --platform apply: what was set, as the facade read it back */
    sc_timings_mark(plan->opts->timings, "readback");
    sc_record_caches(x);
    sc_timings_mark(plan->opts->timings, "caches.txt");
    sc_record_build(x);
    sc_timings_mark(plan->opts->timings, "build.json");
    if (!h)
        return;
    int rc = sc__guardian_start(st, i, h);
    sc_timings_mark(plan->opts->timings, "guardian");
    if (rc < 0)
        fprintf(stderr,
                "streamcard: no guardian for this run (%s): if streamcard is killed, its "
                "bundle stays unsealed\n",
                strerror(-rc));
}

/* The CPUs the observer accounts itself: the card's, except for MPI (each rank does), unless
   the program's output marks its main loop: the ranks cannot see the log, so the observer
   accounts the card's CPUs of its host over the patterns' window, its tasks there the ranks
   (mpirun's children, or srun's, adopted by their binding lines: sc_observe_opts). */
static int *sc__acct_cpus(const sc_plan *plan, size_t *n)
{
    const sc_card *card = plan->card;
    int *cpus = calloc((size_t)hwloc_bitmap_weight(card->cpus) + 1, sizeof(int));
    bool observer = sc_workload_observer_window(card);

    *n = 0;
    if (!cpus || (sc_workload_mpi(card) && !observer))
        return cpus;
    for (int c = hwloc_bitmap_first(card->cpus); c >= 0; c = hwloc_bitmap_next(card->cpus, c))
        cpus[(*n)++] = c;
    return cpus;
}

/* The value after the last flag of argv (NULL: none) becomes value (taken over). */
static void sc__set_arg(char **argv, const char *flag, char *value)
{
    char **at = NULL;

    for (char **a = argv; *a && a[1]; a++)
        if (!strcmp(*a, flag))
            at = a + 1;
    if (at) {
        free(*at);
        *at = value;
    } else {
        free(value);
    }
}

/* The value of variable name in envp (an entry "name=..."; none: nothing) becomes value. */
static int sc__set_env(char **envp, const char *name, const char *value)
{
    size_t n = strlen(name);

    for (char **e = envp; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=') {
            char *entry = NULL;
            if (asprintf(&entry, "%s=%s", name, value) < 0)
                return -ENOMEM;
            free(*e);
            *e = entry;
        }
    return 0;
}

/* Points the workload's --json (and, mpi, --transport-log; an MPI program of the card's,
   the probe's variable: plan.h) at run i's private files. */
static int sc__set_run_paths(sc_execution *x, size_t i)
{
    char *json = sc_record_json_path(x, i), *tlog = sc_record_transport_log_path(x, i);

    if (!json || !tlog || sc__set_env(x->plan->envp, SC_TRACE_TRANSPORT_LOG_ENV, tlog) < 0) {
        free(json);
        free(tlog);
        return -ENOMEM;
    }
    sc__set_arg(x->plan->argv, "--json", json);
    sc__set_arg(x->plan->argv, "--transport-log", tlog);
    return 0;
}

/* The observer's moments, then the end of its watch, into the phase trace. */
static void sc__trace_observed(sc_timings *t, const sc_observe_result *r)
{
    sc_timings_at(t, "workload-to-ready", &r->mono_ready);
    sc_timings_at(t, "ready-capture", &r->mono_released);
    sc_timings_at(t, "main-loop", &r->mono_end);
    sc_timings_at(t, "workload-exit", &r->mono_exit);
    sc_timings_mark(t, "observe-tail");
}

/*
 * Run i of bundle k: the workload under the observer into the run's files (at the top for
 * runs: 1, in run-<i> otherwise). The first run of a bundle writes the bundle's first files
 * (sc__open_files) while its workload starts up. *passed: every gate of this run held
 * (several runs: from its record). Returns 0, or -errno when it could not be watched.
 */
static int sc__run_once(sc_local *st, size_t k, size_t i, bool *passed)
{
    sc_execution *x = &st->x[k];
    sc_plan *plan = x->plan;
    const sc_card *card = plan->card;
    char dir[32], rel[64], *log_path = NULL, guard[256];
    sc_observe_result *r = &x->last;
    sc_observe *h = NULL;
    size_t ncpus = 0;

    *passed = false;
    sc_runs_dir(card, i, dir, sizeof(dir));
    if (sc__set_run_paths(x, i) < 0)
        return -ENOMEM;
    int log_fd = sc_bundle_open_file(&x->b, sc_runs_path(card, i, "stream.log", rel, sizeof(rel)),
                                     O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (log_fd < 0) {
        fprintf(stderr, "streamcard: cannot write %s/%s: %s\n", x->b.path, rel, strerror(-log_fd));
        return log_fd;
    }
    if (!sc_runs_flat(card))
        sc_bundle_reserve(&x->b, sc_runs_path(card, i, "run.conf", rel, sizeof(rel)),
                          SC__RESERVE_BYTES);
    if (asprintf(&log_path, "%s/%s", x->b.path,
                 sc_runs_path(card, i, "stream.log", rel, sizeof(rel))) < 0)
        log_path = NULL;
    snprintf(guard, sizeof(guard), "PREFETCH_MODE=%s\nGOVERNOR=%s\nCPU_LIST=%s\n",
             sc_prefetch_name(card->prefetch), card->governor, card->cpu_list);
    int *cpus = sc__acct_cpus(plan, &ncpus);
    sc_observe_opts o = {.argv = plan->argv,
                         .envp = plan->envp,
                         .cpus = card->cpus,
                         .memory_node = card->memory_node,
                         .log_fd = log_fd,
                         .echo_fd = plan->opts->quiet ? -1 : STDOUT_FILENO,
                         .bundle = &x->b,
                         .dir = dir,
                         .interference = card->interference_accounting,
                         .acct_cpus = cpus,
                         .n_acct_cpus = ncpus,
                         .log_path = log_path,
                         .guard_extra = guard,
                         .timeout_s = plan->opts->timeout_s,
                         .begin_at_start = sc_workload_foreign(card) &&
                                           sc_workload_markers(card) != SC_MARKERS_LIBRARY,
                         .trace_fd = sc_workload_foreign(card),
                         .begin_pattern = card->begin_pattern,
                         .end_pattern = card->end_pattern,
                         .adopt_ranks =
                             ncpus && sc_workload_mpi(card) && !plan->ranks_under_observer,
                         .launcher = sc_workload_mpi(card)};
    x->runs = i + 1;
    sc_timings_mark(plan->opts->timings, "run-prepare");
    int rc = sc_observe_start(&o, r, &h);
    sc_timings_mark(plan->opts->timings, "fork");
    sc__open_files(st, k, h);
    if (sc_runs_flat(card))
        fprintf(stderr, "streamcard: running %s into %s\n", plan->argv[0], x->b.path);
    else
        fprintf(stderr, "streamcard: run %zu: %s into %s/%s\n", i + 1, plan->argv[0], x->b.path,
                dir);
    if (rc == 0)
        rc = sc_observe_wait(h);
    sc__trace_observed(plan->opts->timings, r);
    free(cpus);
    close(log_fd);
    free(log_path);
    if (sc_workload_mpi(card))
        sc_record_transport_log(x, i);
    if (rc < 0)
        fprintf(stderr, "streamcard: watching the workload failed: %s\n", strerror(-rc));
    if (!r->started)
        dprintf(STDERR_FILENO, "streamcard: could not start %s: %s\n", plan->argv[0],
                strerror(r->spawn_error ? r->spawn_error : -rc));
    /* One run: its gates come with the bundle's, at the end; nothing to decide before. */
    *passed = sc_runs_flat(card) || sc_record_run(x, i, r);
    return rc;
}

/* The runs' results so far, read once each (sc_record_result()), as one array. */
static json_object *sc__results(sc_execution *x, size_t n)
{
    json_object *runs = json_object_new_array();

    for (size_t i = 0; runs && i < n; i++) {
        json_object *kj = sc_record_result(x, i)->json;
        json_object_array_add(runs, kj ? json_object_get(kj) : json_object_new_object());
    }
    return runs;
}

json_object *sc_local_runs(sc_local *st, size_t k)
{
    return sc__results(&st->x[k], st->open[k] ? st->x[k].runs : 0);
}

/* Whether bundle x's runs are complete after run i: its why goes into x->stopped. A side of
   a pair ends here only when it failed or was stopped: the pair decides the rest. */
static bool sc__done(sc_execution *x, size_t i, bool passed, int stop_signal, bool paired)
{
    json_object *runs;
    bool done;

    if (stop_signal) {
        snprintf(x->stopped, sizeof(x->stopped), "stopped by signal %d after %zu run%s",
                 stop_signal, x->runs, x->runs == 1 ? "" : "s");
        return true;
    }
    if (paired) {
        if (!passed)
            snprintf(x->stopped, sizeof(x->stopped), "run %zu failed its gates", i + 1);
        return !passed;
    }
    int decided = sc_runs_decided(x->plan->card, i + 1, !passed, x->stopped, sizeof(x->stopped));
    if (decided >= 0) /* runs: N, or a failed run: the figures are not read for it */
        return decided == 1;
    runs = sc__results(x, i + 1);
    done = !runs || sc_runs_done(x->plan->card, runs, !passed, x->stopped, sizeof(x->stopped));
    json_object_put(runs);
    return done;
}

/* Seals bundle i (its last run was run x->runs). Returns the exit status for it. */
static int sc__close(sc_local *st, size_t i)
{
    sc_execution *x = &st->x[i];
    int status = sc_record_finish(x);

    sc_record_build_info_discard(x);
    sc__guardian_stop(x);
    sc_timings_mark(x->plan->opts->timings, "guardian-stop");
    sc_bundle_close(&x->b);
    sc__unapply(x); /* restored by sc_record_finish(): only freed here */
    st->open[i] = false;
    return status;
}

/* Stop requests are held while a run goes on: the observer forwards them to the workload,
   so they cannot cut the bundle short. */
static void sc__hold_signals(sigset_t *old)
{
    sigset_t block;

    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, old);
    signal(SIGPIPE, SIG_IGN);
}

/* Run round of series run i (a bundle of runs: its round-th). */
static int sc__local_run(void *state, const sc_run_series *rs, size_t i, size_t round, bool *more,
                         char **bundle, char **cause)
{
    sc_local *st = state;
    sc_plan *plan = &rs->plans[i];
    sigset_t old;
    bool passed = false;
    int status = SC_EXIT_OK;

    *more = false;
    if (rs->opts->dry_run) {
        sc_plan_print(plan, stdout);
        return plan->binary_found ? SC_EXIT_OK : SC_EXIT_ERROR;
    }
    if (!plan->binary_found && plan->binary_why) {
        fprintf(stderr, "streamcard: %s\n", plan->binary_why);
        *cause = strdup(plan->binary_why);
        return SC_EXIT_ERROR;
    }
    if (!plan->binary_found) {
        fprintf(stderr,
                "streamcard: the %s kernel was not found at %s (build it with cmake "
                "--build build, or set STREAMCARD_KERNEL_DIR)\n",
                sc_workload_name(plan->card->workload), plan->binary);
        if (asprintf(cause, "its kernel was not found at %s", plan->binary) < 0)
            *cause = NULL;
        return SC_EXIT_ERROR;
    }
    sc__hold_signals(&old);
    if (round == 0)
        status = sc__open(st, i, plan);
    if (status == SC_EXIT_OK) {
        sc_execution *x = &st->x[i];
        int rc = st->stop_signal ? 0 : sc__run_once(st, i, round, &passed);
        if (x->last.caller_signal && !st->stop_signal)
            st->stop_signal = x->last.caller_signal;
        *more = rc == 0 && !sc__done(x, round, passed, st->stop_signal, st->paired);
        if (!*more) {
            sc__open_files(st, i, NULL); /* when no run got as far as writing them */
            status = sc__close(st, i);
            if (rc < 0)
                status = SC_EXIT_FAILED;
            *bundle = plan->bundle_path ? strdup(plan->bundle_path) : NULL;
        }
    }
    if (!*more && !(*bundle) &&
        asprintf(cause, "it could not run (exit %d; its messages above)", status) < 0)
        *cause = NULL;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}

int sc_local_close(sc_local *st, size_t k, const char *why, char **bundle)
{
    sc_execution *x = &st->x[k];
    sigset_t old;
    int status;

    *bundle = NULL;
    if (!st->open[k])
        return SC_EXIT_OK;
    sc__hold_signals(&old);
    if (!*x->stopped)
        snprintf(x->stopped, sizeof(x->stopped), "%s", why);
    sc__open_files(st, k, NULL);
    status = sc__close(st, k);
    *bundle = x->plan->bundle_path ? strdup(x->plan->bundle_path) : NULL;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}

static int sc__local_begin(void *state, const sc_run_series *rs)
{
    sc_local *st = state;

    st->n = rs->series->n;
    st->x = calloc(st->n + 1, sizeof(*st->x));
    st->open = calloc(st->n + 1, sizeof(*st->open));
    if (!st->x || !st->open)
        return SC_EXIT_ERROR;
    if (rs->series->variable && !rs->series->paired)
        printf("streamcard sweep: %s over %zu values\n", rs->series->variable, rs->series->n);
    return 0;
}

static void sc__local_end(void *state, const sc_run_series *rs, bool failed)
{
    sc_local *st = state;

    /* A lone run said so in its own summary. */
    if (failed && rs->series->variable && !rs->series->paired)
        fprintf(stderr, "ERROR: workload failed in at least one run of the sweep; its numbers "
                        "are not usable\n");
    free(st->x);
    free(st->open);
    memset(st, 0, sizeof(*st));
}

void sc_local_executor(sc_executor *ex, sc_local *state)
{
    bool paired = state->paired;

    memset(state, 0, sizeof(*state));
    state->paired = paired;
    *ex = (sc_executor){.begin = sc__local_begin,
                        .run = sc__local_run,
                        .end = sc__local_end,
                        .dry_note = "DRY-RUN complete; no files written.",
                        .state = state};
}
