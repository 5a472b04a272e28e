/*
 * cmd_run.c: `streamcard run`: the options and the card are read once; core makes the
 * card's series of runs (one, or one per sweep value) and checks each; each run gets its
 * plan, checked against this machine unless the runs go through sbatch (the node checks its
 * own); then the one series loop (run_series.c) hands the runs to an executor: here, one
 * after the other (execute.c), or each as a Slurm job (submit.c). Whatever happens after a
 * bundle exists (crash, signal, failed validation), it is completed and sealed: a failed
 * run is evidence too.
 */
#include "sc_caches.h"
#include "sc_cpulist.h"
#include "cacheprobe.h"
#include "cli.h"
#include "execute.h"
#include "options.h"
#include "platform_apply.h"
#include "run_series.h"
#include "study.h"
#include "sc_machine.h"
#include "sc_file.h"
#include "sc_readback.h"
#include "sc_pair.h"
#include "pair_run.h"
#include "submit.h"
#include "timings.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    OPT_KEEP_GOING,
    OPT_AGAINST,
    OPT_AGAINST_KERNEL_DIR,
    OPT_SEED,
    OPT_PLATFORM,
    OPT_CARD_FLAG = 2000
};

static void sc__run_usage(FILE *out)
{
    const char *help = NULL, *flag;

    fprintf(out,
            "usage: streamcard run [CARD] [--against CARD_B] [options]\n"
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
            "  --keep-going       in a series, run the next value after one that was refused\n"
            "                     or could not run (default: stop, its cause in the table)\n"
            "  --against CARD_B   a paired run: CARD (side A) and CARD_B (side B, which must\n"
            "                     differ from A in one key, or not at all) take turns on the\n"
            "                     same CPUs, each pair in an order drawn from a recorded seed;\n"
            "                     runs: N is N pairs; one directory holds both sides and\n"
            "                     pair.json (the card form: a top-level against: {KEY: value})\n"
            "  --against-kernel-dir DIR\n"
            "                     side B's workloads from DIR (a pair of two builds of one\n"
            "                     card; without --against, B is CARD itself)\n"
            "  --seed N           the seed of the pairs' order (default: drawn, and recorded)\n"
            "  --platform MODE    as root outside Slurm, the card's prefetch and governor:\n"
            "                     read (default): the registers and governors of its CPUs are\n"
            "                     read before and after the workload, never written;\n"
            "                     apply: set with the plugin's journal and readback before the\n"
            "                     workload, restored when the run ends (also when it fails or\n"
            "                     is interrupted; when streamcard is killed, its guardian\n"
            "                     restores, else the next --platform apply or streamcard-node\n"
            "                     state --clear); only what /etc/streamcard/policy allows\n"
            "                     (allow=prefetch,governor)\n"
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
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"output", required_argument, NULL, OPT_OUTPUT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, OPT_HELP},
        {"submit", no_argument, NULL, OPT_SUBMIT},
        {"sbatch", required_argument, NULL, OPT_SBATCH},
        {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
        {"against", required_argument, NULL, OPT_AGAINST},
        {"against-kernel-dir", required_argument, NULL, OPT_AGAINST_KERNEL_DIR},
        {"seed", required_argument, NULL, OPT_SEED},
        {"platform", required_argument, NULL, OPT_PLATFORM},
    };
    size_t nfixed = sizeof(fixed) / sizeof(fixed[0]), nflags = 0;

    while (sc_card_flag(nflags, NULL))
        nflags++;
    struct option *opts = calloc(nfixed + nflags + 1, sizeof(*opts));
    if (!opts)
        return NULL;
    memcpy(opts, fixed, sizeof(fixed));
    for (size_t i = 0; i < nflags; i++)
        opts[nfixed + i] =
            (struct option){sc_card_flag(i, NULL), required_argument, NULL, OPT_CARD_FLAG + (int)i};
    return opts;
}

typedef struct sc__flag_value {
    const char *flag, *value;
} sc__flag_value;

/*
 * --against CARD_B and --against-kernel-dir: card becomes the pair card of both sides (its
 * against: the one key B changes, none for two builds of one card), B read with the same
 * card flags. A problem is a line in diag (and *problems); -errno only when B cannot be
 * read at all.
 */
static int sc__against(sc_run_opts *opts, sc_card *card, const sc__flag_value *flags, size_t nflags,
                       bool *problems, sc_diag *diag)
{
    sc_card *b = NULL;
    int rc = 0;

    if (card->against || card->n_sweep || card->n_steps) {
        sc_diag_addf(diag,
                     "--against: %s holds %s already (valid: a card of one experiment, without "
                     "against:, a sweep or ablation:)",
                     card->source_name,
                     card->against   ? "against:"
                     : card->n_sweep ? "a sweep"
                                     : "a study");
        *problems = true;
        return 0;
    }
    if (opts->submit && opts->against_kernel_dir) {
        sc_diag_addf(diag, "--against-kernel-dir: a job runs the workloads its node has "
                           "(valid: the pair of two builds run here, inside an allocation)");
        *problems = true;
    }
    if (!opts->against_path) { /* two builds of one card */
        card->against = calloc(1, sizeof(*card->against));
        card->overridden = true;
        return card->against ? 0 : -ENOMEM;
    }
    if (!(b = sc_card_new()))
        return -ENOMEM;
    rc = sc_card_load_file(b, opts->against_path, diag);
    for (size_t i = 0; rc >= 0 && i < nflags; i++)
        if (sc_card_set_flag(b, flags[i].flag, flags[i].value, diag) == -ENOMEM)
            rc = -ENOMEM;
    if (rc == -ENOMEM) {
        sc_card_free(b);
        return rc;
    }
    if (rc < 0 || b->n_sweep || b->n_steps || b->against) {
        if (rc >= 0)
            sc_diag_addf(diag,
                         "--against %s: a card of one experiment (valid: without against:, a "
                         "sweep or ablation:)",
                         opts->against_path);
        *problems = true;
        sc_card_free(b);
        return 0;
    }
    rc = sc_pair_against(card, b, diag);
    if (rc == 0 && opts->against_kernel_dir && sc_pair_key(card)) {
        sc_diag_addf(diag,
                     "--against-kernel-dir: side B differs in %s already: a pair has one "
                     "variable (valid: the same card with another build, or another card with "
                     "the same build)",
                     sc_pair_key(card));
        rc = -EINVAL;
    }
    if (rc == -EINVAL) {
        *problems = true;
        rc = 0;
    }
    card->overridden = true; /* the pair's card.yaml: A's resolved card with its against: */
    sc_card_free(b);
    return rc;
}

/*
 * Parses options into opts and the card into *card; card flags are applied after the card
 * file is read. A wrong option, flag value, card key or card value is reported in diag and
 * sets *problems, but returns 0, so the checks that follow report the card's other problems
 * in the same run. Returns 1 when --help was printed, -errno only when there is nothing to
 * check (no card, or it cannot be read).
 */
static int sc__run_parse(int argc, char **argv, sc_run_opts *opts, sc_card **card, bool *problems,
                         sc_diag *diag)
{
    struct option *table = sc__run_options();
    sc__flag_value *flags = calloc((size_t)argc + 1, sizeof(*flags));
    size_t nflags = 0;
    const char *output = ".";
    const char *job_bundle = getenv("STREAMCARD_BUNDLE"), *job_card = getenv("STREAMCARD_CARD");
    bool unknown = false;
    int c, rc = 0;

    if (!table || !flags) {
        free(table);
        free(flags);
        return -ENOMEM;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", table, NULL)) != -1) {
        if (c == OPT_DRY_RUN) {
            opts->dry_run = true;
        } else if (c == OPT_OUTPUT) {
            output = optarg;
        } else if (c == OPT_TIMEOUT) {
            char *end = NULL;
            opts->timeout_s = strtod(optarg, &end);
            if (!end || *end || opts->timeout_s <= 0) {
                sc_diag_addf(diag, "--timeout: \"%s\" is not a positive number of seconds", optarg);
                *problems = true;
            }
        } else if (c == OPT_QUIET) {
            opts->quiet = true;
        } else if (c == OPT_SUBMIT) {
            opts->submit = true;
        } else if (c == OPT_KEEP_GOING) {
            opts->keep_going = true;
        } else if (c == OPT_AGAINST) {
            opts->against_path = optarg;
        } else if (c == OPT_AGAINST_KERNEL_DIR) {
            opts->against_kernel_dir = optarg;
        } else if (c == OPT_SEED) {
            char *end = NULL;
            errno = 0;
            opts->seed = strtoull(optarg, &end, 10);
            opts->has_seed = true;
            if (errno || !end || end == optarg || *end || *optarg == '-') {
                sc_diag_addf(diag, "--seed: \"%s\" is not a whole number (valid: 0 to 2^64-1)",
                             optarg);
                *problems = true;
            }
        } else if (c == OPT_PLATFORM) {
            if (strcmp(optarg, "apply") == 0 || strcmp(optarg, "read") == 0) {
                opts->platform_apply = strcmp(optarg, "apply") == 0;
            } else {
                sc_diag_addf(diag, "--platform: \"%s\" is not a mode (valid: read, apply)", optarg);
                *problems = true;
            }
        } else if (c == OPT_SBATCH) {
            char **grown = realloc(opts->sbatch_args, (opts->n_sbatch_args + 2) * sizeof(char *));
            if (!grown) {
                rc = -ENOMEM;
                goto out;
            }
            opts->sbatch_args = grown; /* NULL-terminated at every step: freeable on error */
            grown[opts->n_sbatch_args] = strdup(optarg);
            grown[opts->n_sbatch_args + 1] = NULL;
            if (!grown[opts->n_sbatch_args]) {
                rc = -ENOMEM;
                goto out;
            }
            opts->n_sbatch_args++;
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
            char line[512];
            sc_option_unknown(table, argc, argv, &optind, line, sizeof(line));
            sc_diag_addf(diag, "%s (see streamcard run --help)", line);
            *problems = unknown = true;
        }
    }
    if (optind < argc - 1) {
        /* After an unknown option the extra word may be its value: that mistake is said. */
        if (!unknown)
            sc_diag_addf(diag, "%s: only one card per run (use a sweep for several)",
                         argv[optind + 1]);
        rc = -EINVAL;
    }
    if (rc < 0)
        goto out;
    *card = sc_card_new();
    opts->output_dir = strdup(output);
    if (!*card || !opts->output_dir) {
        rc = -ENOMEM;
        goto out;
    }
    if ((optind < argc || nflags) && job_bundle && job_card && !opts->dry_run && !opts->submit) {
        /* The plugin prepared this job's bundle for the card given to sbatch: a second card
           would run into a bundle of its own and leave the prepared one unsealed. */
        sc_diag_addf(diag,
                     "this job's card was given to sbatch (--stream-card) and its bundle is "
                     "prepared at %s: a second card would leave it unsealed (valid: run "
                     "`streamcard run` without a card in the job; or unset STREAMCARD_BUNDLE "
                     "to run another card beside it)",
                     job_bundle);
        rc = -EINVAL;
        goto out;
    }
    if (optind < argc) {
        opts->card_path = strdup(argv[optind]);
        int lrc = sc_card_load_file(*card, argv[optind], diag);
        if (lrc == -EINVAL)
            *problems = true;
        else if (lrc < 0)
            rc = -EINVAL; /* unreadable, or not YAML: nothing more to check */
    } else if (nflags == 0 && job_bundle && job_card) {
        /* In a job submitted with --stream-card: the card and bundle the plugin prepared. */
        opts->adopt_bundle = strdup(job_bundle);
        opts->card_path = strdup(job_card);
        if (!opts->adopt_bundle || !opts->card_path)
            rc = -ENOMEM;
        else if (sc_card_load_file(*card, opts->card_path, diag) < 0)
            rc = -EINVAL;
    } else if (nflags == 0) {
        sc_diag_addf(diag, "no card: give a CARD file or the card keys as flags (valid: "
                           "streamcard run card.yaml, or --workload stream --cpu-list 0-1 ...)");
        rc = -EINVAL;
    }
    for (size_t i = 0; i < nflags; i++) {
        int frc = sc_card_set_flag(*card, flags[i].flag, flags[i].value, diag);
        if (frc == -EINVAL)
            *problems = true;
        else if (frc < 0)
            rc = frc;
    }
    if (rc == 0 && (opts->against_path || opts->against_kernel_dir))
        rc = sc__against(opts, *card, flags, nflags, problems, diag);
out:
    free(table);
    free(flags);
    return rc;
}

/* STREAM's array rule, said before anything runs: the stream_array gate would fail. */
static void sc__warn_cache(const sc_run_opts *opts, const sc_card *card)
{
    const sc_llc *llc;

    if (!sc_workload_reads(card->workload, SC_CF_ARRAY_SIZE) || !card->array_size ||
        strcmp(card->cache_resident, "accept") == 0 ||
        sc_cacheprobe_get(opts, card, !opts->dry_run, &llc) < 0 ||
        card->array_size >= sc_caches_min_array_size(llc))
        return;
    uint64_t need = sc_caches_min_array_size(llc);
    fprintf(stderr,
            "streamcard: warning: array_size: %llu elements (%.1f MiB per array) is below %d x "
            "%s %.1f MiB of cpu_list %s: the stream_array gate will fail the run (valid: "
            "array_size >= %llu, %.2f GiB for 3 arrays; array_size: auto; or cache_resident: "
            "accept for a cache study)\n",
            (unsigned long long)card->array_size, 8.0 * (double)card->array_size / 1048576.0,
            SC_CACHES_ARRAY_FACTOR,
            llc->untrusted && llc->edge_bytes ? "the last cache's edge measured at"
                                              : "the last-level caches'",
            (double)sc_caches_rule_bytes(llc) / 1048576.0, card->cpu_list, (unsigned long long)need,
            24.0 * (double)need / 1073741824.0);
}

/*
 * one_per_core: the card's CPUs reduced to one hardware thread per physical core, as hwloc
 * sees this node (sc_card_keep_cpus()). The run's card then names the kept CPUs as its
 * cpu_list (its card.yaml is the resolved card) and remembers the list as written.
 */
static int sc__one_per_core(const sc_run_opts *opts, sc_card *card, sc_diag *diag)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t kept = NULL;
    int rc = -ENOMEM;

    if (!card->one_per_core || card->one_per_core_from || !card->cpu_list)
        return 0;
    if (!(topo = sc_topology_get(opts->topology))) {
        if (errno == ENOMEM)
            return -ENOMEM;
        sc_diag_addf(diag, "one_per_core: hwloc cannot read this node's topology (valid: "
                           "one_per_core: off)");
        return -EINVAL;
    }
    if ((kept = hwloc_bitmap_alloc()) && sc_cpulist_one_per_core(topo, card->cpus, kept) == 0)
        rc = sc_card_keep_cpus(card, kept, diag);
    hwloc_bitmap_free(kept);
    return rc;
}

/* blas: the build the card names must be installed here (its library under the sysroot). */
static int sc__check_blas(const sc_run_opts *opts, const sc_card *card, sc_diag *diag)
{
    char *dir = sc_plan_blas_dir(card), path[PATH_MAX], why[256];
    const char *preload = sc_plan_blas_preload(card);

    /* A library of the user's: preloaded as it is, so it must be one the loader can map. */
    if (preload && sc_file_is_shared_object(preload, why, sizeof(why)) < 0) {
        sc_diag_addf(diag,
                     "blas: %s: %s (valid: default, openblas-pthread, openblas-openmp, "
                     "openblas-serial, or an absolute path to a readable ELF shared library)",
                     preload, why);
        return -EINVAL;
    }
    if (!dir)
        return 0;
    snprintf(path, sizeof(path), "%s/%s/libopenblas.so.0",
             strcmp(opts->sysroot, "/") ? opts->sysroot : "", dir);
    int rc = access(path, R_OK) == 0 ? 0 : -EINVAL;
    if (rc < 0)
        sc_diag_addf(diag,
                     "blas: %s is not installed on this machine: no %s (valid: default, or "
                     "install Debian's libopenblas0-%s)",
                     card->blas, path, card->blas + strlen("openblas-"));
    free(dir);
    return rc;
}

/* prefetch: expected, outside a job, as root: its registers must be readable here. */
static int sc__check_readback(const sc_run_opts *opts, const sc_card *card, sc_diag *diag)
{
    char why[512];

    if (!opts->cli_readback || card->prefetch == SC_PREFETCH_UNCHANGED ||
        sc_readback_check(opts->sysroot, card->cpus, why, sizeof(why)) == 0)
        return 0;
    sc_diag_addf(diag,
                 "%s: prefetch: %s cannot be read back here, so it cannot be checked: %s (valid: "
                 "unchanged; or a CPU of doc/contracts/platform-facts.md with the msr module "
                 "loaded)",
                 card->source_name, sc_prefetch_name(card->prefetch),
                 strncmp(why, "streamcard: ", 12) ? why : why + 12);
    return -EINVAL;
}

/* The rules of the node that runs the workload: this machine, as far as this job sees it.
   warn: the card and options had no problem, so a warning about the run is worth saying
   (beside a refusal it would be a second message for nothing). */
static int sc__check_machine(const sc_run_opts *opts, const sc_card *card, bool warn, sc_diag *diag)
{
    sc_fsroot root;
    sc_machine m;
    int rc = sc_fsroot_open(&root, opts->sysroot);

    if (rc < 0)
        return rc;
    rc = sc_machine_load(&m, &root);
    if (rc == 0) {
        sc_machine_restrict_to_self(&m);
        rc = sc_card_check_machine(card, &m, opts->platform_control || opts->cli_readback, diag);
        if (sc__check_readback(opts, card, diag) < 0)
            rc = -EINVAL;
        if (sc__check_blas(opts, card, diag) < 0)
            rc = -EINVAL;
        sc_machine_free(&m);
        sc_timings_mark(opts->timings, "machine-read");
        if (rc == 0 && warn)
            sc__warn_cache(opts, card);
    } else {
        sc_diag_addf(diag, "cannot read this machine's CPUs and memory under /sys: %s",
                     strerror(-rc));
    }
    sc_fsroot_close(&root);
    return rc;
}

/*
 * The series of card and a plan for each of its runs. Every problem is reported at once:
 * each run's card rules and, unless the runs go through sbatch, each run against this
 * machine, even after a card rule failed; a problem several runs share is said once.
 * Returns 0, or -errno with the problems in diag.
 */
static int sc__prepare(const sc_run_opts *opts, const sc_card *card, bool problems,
                       sc_series *series, sc_plan **plans, sc_diag *diag)
{
    int rc = sc_series_from_card(card, series, diag);

    for (size_t i = 0; rc != -ENOMEM && !opts->submit && i < series->n; i++) {
        sc_card *one = series->runs[i].card;
        sc_diag found;
        if (!sc_workload_ops_of(one->workload))
            continue;
        sc_diag_init(&found);
        int crc = sc__one_per_core(opts, one, &found);
        if (crc == 0 && !problems) /* a refused card or option: no probe, no size said */
            crc = sc_cacheprobe_resolve(opts, one, &found);
        if (crc == -ENOMEM)
            rc = -ENOMEM;
        sc_timings_mark(opts->timings, "card-resolve");
        if (crc < 0 || sc__check_machine(opts, one, !problems && rc == 0, &found) < 0)
            rc = rc == -ENOMEM ? rc : -EINVAL;
        sc_timings_mark(opts->timings, "machine-check");
        if (sc_diag_merge(diag, &found) < 0)
            rc = -ENOMEM;
        sc_diag_free(&found);
    }
    /* A job gets its card as YAML, which has no unset: the variable would stay. */
    for (size_t i = 0; rc != -ENOMEM && opts->submit && i < series->n; i++)
        if (series->runs[i].card && series->runs[i].card->n_env_unset) {
            sc_diag_addf(diag,
                         "%s: ablation: unset: %s: a job cannot start without an "
                         "inherited variable (valid: run the study here, without "
                         "--submit; or set the variable in the step)",
                         card->source_name, series->runs[i].card->env_unset[0]);
            rc = -EINVAL;
            break;
        }
    /* --platform apply: who may set what here, said with the card's problems. */
    int arc = rc != -ENOMEM && opts->platform_apply ? sc_apply_check(opts, series, diag) : 0;
    if (arc < 0)
        rc = arc == -ENOMEM ? arc : rc == -ENOMEM ? rc : -EINVAL;
    if (rc == 0 && (problems || diag->count))
        rc = -EINVAL;
    if (rc < 0)
        return rc;
    *plans = calloc(series->n + 1, sizeof(**plans)); /* + 1: never a zero-sized allocation */
    if (!*plans)
        return -ENOMEM;
    /* A pair's side B may take its workload from another build. */
    for (size_t i = 0; i < series->n && rc == 0; i++)
        rc = sc_plan_init_in(&(*plans)[i], opts, series->runs[i].card, environ,
                             series->paired && i == 1 ? opts->against_kernel_dir : NULL);
    sc_timings_mark(opts->timings, "plan");
    return rc;
}

/*
 * A pair card through sbatch: one job for both sides (they take turns inside it), so the
 * job's card is the pair card itself, with its against:.
 */
static int sc__submit_pair(const sc_run_opts *opts, sc_card *card, const sc_series *series,
                           const sc_executor *ex)
{
    sc_instance one = {.card = series->runs[0].card}; /* named after side A */
    sc_series job = {.runs = &one, .n = 1};
    sc_plan plan;
    int status = SC_EXIT_ERROR;

    if (sc_plan_init(&plan, opts, one.card, environ) == 0) {
        char *text = sc_pair_card_yaml(card, one.card);
        if (text) { /* the job's card: side A resolved, with the pair's against: */
            free(plan.card_yaml);
            plan.card_yaml = text;
            sc_hash_buf(text, strlen(text), plan.card_sha256);
            status = sc_run_series_execute(
                &(sc_run_series){.opts = opts, .series = &job, .plans = &plan}, ex);
        }
    }
    sc_plan_free(&plan);
    return status;
}

/* The pair's variable: the key side B changes, or two builds, or none (A/A). */
static const char *sc__pair_variable(const sc_run_opts *opts, const sc_card *card)
{
    const char *key = sc_pair_key(card);

    return key ? key : opts->against_kernel_dir ? SC_PAIR_BUILD : SC_PAIR_NONE;
}

/* The series loop; a study (ablation:) then writes its table and record. */
static int sc__execute(const sc_run_opts *opts, sc_card *card, const sc_series *series,
                       sc_plan *plans, const sc_executor *ex)
{
    if (series->paired && opts->submit)
        return sc__submit_pair(opts, card, series, ex);
    if (series->paired) {
        sc_pair_run pr = {.seed = opts->has_seed ? opts->seed : sc_pair_new_seed(),
                          .variable = sc__pair_variable(opts, card)};
        return sc_pair_execute(&(sc_run_series){.opts = opts, .series = series, .plans = plans},
                               card, &pr);
    }
    bool study = card->n_steps && !opts->dry_run;
    char **bundles = study ? calloc(series->n, sizeof(char *)) : NULL;
    char **causes = study ? calloc(series->n, sizeof(char *)) : NULL;
    int status;

    if (study && (!bundles || !causes)) {
        free(bundles);
        free(causes);
        return SC_EXIT_ERROR;
    }
    status = sc_run_series_execute(
        &(sc_run_series){
            .opts = opts, .series = series, .plans = plans, .bundles = bundles, .causes = causes},
        ex);
    if (study)
        status = sc_study_finish(&(sc_run_series){.opts = opts,
                                                  .series = series,
                                                  .plans = plans,
                                                  .bundles = bundles,
                                                  .causes = causes},
                                 card, status);
    for (size_t i = 0; study && i < series->n; i++) {
        free(bundles[i]);
        free(causes[i]);
    }
    free(bundles);
    free(causes);
    return status;
}

int sc_cmd_run(int argc, char **argv)
{
    sc_topology topology = {.rc = 1};
    sc_cache_memo *caches = NULL;
    sc_run_opts opts = {.sysroot =
                            getenv("STREAMCARD_SYSROOT") ? getenv("STREAMCARD_SYSROOT") : "/",
                        .topology = &topology,
                        .caches = &caches,
                        .timings = sc_timings_open()};
    sc_timings *timings = opts.timings; /* sc_run_opts_free() forgets it */
    sc_card *card = NULL;
    sc_series series = {0};
    sc_plan *plans = NULL;
    sc_executor ex;
    sc_sbatch sbatch;
    sc_local local;
    sc_diag diag;
    bool problems = false;
    int rc, status;

    sc_timings_mark(timings, "start");
    sc_diag_init(&diag);
    rc = sc__run_parse(argc, argv, &opts, &card, &problems, &diag);
    sc_timings_mark(timings, "card");
    if (rc == 1) {
        status = SC_EXIT_OK; /* --help */
        goto out;
    }
    if (rc == 0 && opts.adopt_bundle) {
        char state[PATH_MAX];
        snprintf(state, sizeof(state), "%s/prefetch/state/state.env", opts.adopt_bundle);
        opts.platform_control = access(state, R_OK) == 0;
    }
    opts.display_env = rc == 0 && card->n_steps > 0;
    /* Root outside a job reads the platform before and after, and sets nothing. */
    opts.cli_readback = rc == 0 && !opts.adopt_bundle && !opts.submit && geteuid() == 0;
    if (rc == 0 && !problems && !opts.submit && opts.adopt_bundle && card->n_sweep) {
        fprintf(stderr, "streamcard: a sweep inside a --stream-card job cannot change the "
                        "platform between runs (valid: one job per value: streamcard run "
                        "CARD --submit, or a card without a sweep)\n");
        status = SC_EXIT_USAGE;
        goto out;
    }
    if (rc == 0)
        rc = sc__prepare(&opts, card, problems, &series, &plans, &diag);
    if (rc < 0 || diag.count) {
        sc_diag_print(&diag, "streamcard: ", stderr);
        if (!diag.count)
            fprintf(stderr, "streamcard: %s\n", strerror(-rc));
        status = diag.count ? SC_EXIT_USAGE : SC_EXIT_ERROR;
        goto out;
    }
    if (opts.submit)
        sc_sbatch_executor(&ex, &sbatch);
    else
        sc_local_executor(&ex, &local);
    status = sc__execute(&opts, card, &series, plans, &ex);
out:
    for (size_t i = 0; plans && i < series.n; i++)
        sc_plan_free(&plans[i]);
    free(plans);
    sc_series_free(&series);
    sc_card_free(card);
    sc_run_opts_free(&opts);
    sc_topology_free(&topology);
    sc_cache_memo_free(caches);
    sc_diag_free(&diag);
    sc_timings_mark(timings, "done");
    sc_timings_close(timings);
    return status;
}
