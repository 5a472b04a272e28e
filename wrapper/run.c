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
 * Parses options into plan; card flags are applied after the card file is read. A wrong
 * option, flag value, card key or card value is reported in diag and sets *problems, but
 * returns 0, so the checks that follow report the card's other problems in the same run.
 * Returns -errno only when there is nothing to check (no card, or it cannot be read).
 */
static int sc__run_parse(int argc, char **argv, sc_plan *plan, bool *dry_run, bool *problems,
                         sc_diag *diag)
{
    struct option *opts = sc__run_options();
    sc__flag_value *flags = calloc((size_t)argc + 1, sizeof(*flags));
    size_t nflags = 0;
    const char *output = ".";
    const char *job_bundle = getenv("STREAMCARD_BUNDLE"), *job_card = getenv("STREAMCARD_CARD");
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
                *problems = true;
            }
        } else if (c == OPT_QUIET) {
            plan->quiet = true;
        } else if (c == OPT_SUBMIT) {
            plan->submit = true;
        } else if (c == OPT_SBATCH) {
            char **grown = realloc(plan->sbatch_args, (plan->n_sbatch_args + 2) * sizeof(char *));
            if (!grown) {
                rc = -ENOMEM;
                goto out;
            }
            plan->sbatch_args = grown; /* NULL-terminated at every step: freeable on error */
            grown[plan->n_sbatch_args] = strdup(optarg);
            grown[plan->n_sbatch_args + 1] = NULL;
            if (!grown[plan->n_sbatch_args]) {
                rc = -ENOMEM;
                goto out;
            }
            plan->n_sbatch_args++;
        } else if (c == OPT_HELP || c == 'h') {
            sc__run_usage(stdout);
            rc = 1;
            goto out;
        } else if (c >= OPT_CARD_FLAG) {
            flags[nflags].flag = sc_card_flag((size_t)(c - OPT_CARD_FLAG), NULL);
            flags[nflags++].value = optarg;
        } else if (c == ':') {
            sc_diag_addf(diag, "%s: needs a value (see streamcard run --help)", argv[optind - 1]);
            *problems = true;
        } else {
            sc_diag_addf(diag, "%s: unknown option (see streamcard run --help)", argv[optind - 1]);
            *problems = true;
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
            *problems = true;
        else if (lrc < 0)
            rc = -EINVAL; /* unreadable, or not YAML: nothing more to check */
    } else if (nflags == 0 && job_bundle && job_card) {
        /* In a job submitted with --stream-card: the card and bundle the plugin prepared. */
        plan->adopt_bundle = strdup(job_bundle);
        plan->card_path = strdup(job_card);
        if (!plan->adopt_bundle || !plan->card_path)
            rc = -ENOMEM;
        else if (sc_card_load_file(plan->card, plan->card_path, diag) < 0)
            rc = -EINVAL;
    } else if (nflags == 0) {
        sc_diag_addf(diag, "no card: give a CARD file or the card keys as flags (valid: "
                           "streamcard run card.yaml, or --workload stream --cpu-list 0-1 ...)");
        rc = -EINVAL;
    }
    for (size_t i = 0; i < nflags; i++) {
        int frc = sc_card_set_flag(plan->card, flags[i].flag, flags[i].value, diag);
        if (frc == -EINVAL)
            *problems = true;
        else if (frc < 0)
            rc = frc;
    }
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
    /* card_yaml is the plan's: sc_plan_free() (plan.c) frees it, which the analyzer cannot
       see from this file. NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
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

int sc_run_prepare(int argc, char **argv, long sweep_index, sc_plan *plan, bool *dry_run,
                   sc_diag *diag)
{
    bool problems = false;
    int rc;

    plan->sysroot = getenv("STREAMCARD_SYSROOT") ? getenv("STREAMCARD_SYSROOT") : "/";
    rc = sc__run_parse(argc, argv, plan, dry_run, &problems, diag);
    if (rc != 0)
        return rc; /* 1: --help was printed */
    if (plan->card->n_sweep && sweep_index < 0) {
        if (!problems)
            return 0; /* the caller runs the sweep, run by run */
        sc_card_check(plan->card, diag); /* the rest of the problems, value by value */
        return -EINVAL;
    }
    if (sweep_index >= 0 && sc_card_sweep_select(plan->card, (size_t)sweep_index, diag) < 0)
        problems = true;
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
    if (problems)
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
    int status = sc_run_execute_plan(plan);
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
