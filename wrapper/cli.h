/*
 * cli.h: the `streamcard` command's subcommands and the run plan they share. main.c
 * only dispatches; the work is in run.c, plan.c and verify.c, over libstreamcard.
 */
#ifndef SC_CLI_H
#define SC_CLI_H

#include "sc_card.h"
#include "sc_hash.h"
#include "sc_spawn.h" /* sc_spawn_capture: sbatch --wait, a workload's --build-info */

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of `streamcard run` and `streamcard verify`. */
enum {
    SC_EXIT_OK = 0,
    SC_EXIT_FAILED = 1, /* the run or the bundle failed its checks */
    SC_EXIT_USAGE = 2,  /* bad card or options: nothing ran */
    SC_EXIT_ERROR = 3,  /* could not run at all (missing kernel, unwritable output) */
};

/* Everything decided before a run starts; printed by --dry-run, executed by run. */
typedef struct sc_plan {
    sc_card *card;
    char *card_path;     /* NULL for a card made of flags only */
    const char *card_origin; /* "file", "flags" or "file+flags" */
    char *card_yaml;     /* the bytes that go into the bundle's card.yaml */
    char card_sha256[SC_HASH_HEX_LEN + 1];
    char *output_dir;
    char *binary;        /* the workload executable, absolute */
    bool binary_found;
    char **argv;         /* the workload's command line (argv[0] = binary) */
    char **envp;         /* the workload's whole environment */
    char *omp_summary;   /* the OpenMP placement variables, for the plan and run.conf */
    char *json_path;     /* where the workload writes its own results */
    double timeout_s;
    bool quiet;          /* do not echo the workload's output */
    /* Inside a job started with sbatch --stream-card: the bundle the SPANK plugin made
       (its card.yaml and platform evidence are adopted into the same SHA256SUMS). */
    char *adopt_bundle;
    bool platform_control; /* the plugin set and read back the platform state */
    const char *sysroot;   /* where platform state is read ("/" unless the plugin says) */
    char *bundle_path;     /* after the run: the bundle it wrote */
    bool submit;           /* --submit: through sbatch --stream-card, one job per run */
    char **sbatch_args;    /* --sbatch ARG..., NULL-terminated */
    size_t n_sbatch_args;
} sc_plan;

int sc_cmd_run(int argc, char **argv);

/* run.c */
/*
 * Builds the plan of `streamcard run ARGS` (card, flags, every check). sweep_index >= 0
 * selects that run of the card's sweep; -1 leaves a sweep unselected (and unchecked) for
 * the caller. Returns 0 ready, 1 when --help was printed, or -errno with lines in diag.
 */
int sc_run_prepare(int argc, char **argv, long sweep_index, sc_plan *plan, bool *dry_run,
                   sc_diag *diag);
/* Runs a prepared plan and seals its bundle; returns the exit status of `streamcard run`. */
int sc_run_execute(sc_plan *plan);

/* execute.c: the run itself (sc_run_execute adds the signal handling around it). */
int sc_run_execute_plan(sc_plan *plan);

/* sweep.c: every value of the card's sweep in turn, each its own bundle, then the table. */
int sc_run_sweep(int argc, char **argv, const sc_plan *base, bool dry_run);

/* One row of a sweep's table, read back from a finished run's bundle. */
typedef struct sc_sweep_row {
    const char *value;
    char verdict[16];
    double figure;
    char *bundle; /* malloc'd, or NULL */
} sc_sweep_row;
/* Fills row from the bundle at path (NULL: no bundle); *label gets the figure's name. */
void sc_sweep_read(const char *path, sc_workload workload, sc_sweep_row *row, const char **label);
/* Prints the table and saves it next to the bundles in dir; returns nothing. */
void sc_sweep_report(const char *dir, const char *key, const sc_sweep_row *rows, size_t n,
                     const char *label);

/* submit.c: --submit: each run (each sweep value) as a job: sbatch --stream-card --wait. */
int sc_run_submit(int argc, char **argv, const sc_plan *base, bool dry_run);
int sc_cmd_verify(int argc, char **argv);
int sc_cmd_resources(int argc, char **argv);

/* plan.c */
/* Fills argv, envp and binary of plan from its checked card. Returns 0 or -errno. */
int sc_plan_build(sc_plan *plan, char **parent_env);
/* Appends one argument to the workload's command line. Returns 0 or -ENOMEM. */
int sc_plan_append_arg(sc_plan *plan, const char *arg);
void sc_plan_print(const sc_plan *plan, FILE *out);
void sc_plan_free(sc_plan *plan);

#endif
