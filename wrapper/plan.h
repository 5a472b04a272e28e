/*
 * plan.h: what `streamcard run` decided before anything runs: the options, the same for
 * every run of the card (sc_run_opts), and per run its card, card.yaml and the workload's
 * exact command and environment (sc_plan, plan.c). --dry-run prints plans; the executors
 * (execute.c here, submit.c through sbatch) carry them out.
 */
#ifndef SC_PLAN_H
#define SC_PLAN_H

#include "sc_card.h"
#include "sc_hash.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The options of `streamcard run`, parsed once for all the runs of its card. */
/* The machine's hwloc topology, loaded at most once per `streamcard run`, when a run needs
   it (one_per_core, STREAM's caches), without hwloc's I/O plugins (plan.c). */
typedef struct sc_topology {
    hwloc_topology_t topo;
    int rc; /* 0 loaded, -errno it could not be; 1 not asked yet */
} sc_topology;

/* The topology, loaded at the first call; NULL (errno set) when it cannot be. */
hwloc_topology_t sc_topology_get(sc_topology *t);
void sc_topology_free(sc_topology *t);

struct sc_cache_memo; /* cacheprobe.h */

typedef struct sc_run_opts {
    char *card_path;  /* NULL for a card made of flags only */
    char *output_dir; /* parent of the bundles */
    double timeout_s;
    bool quiet;         /* do not echo the workload's output */
    bool dry_run;       /* print the plans; write nothing */
    bool submit;        /* --submit: through sbatch --stream-card, one job per run */
    bool keep_going;    /* --keep-going: a series goes on after a run that made no bundle */
    char **sbatch_args; /* --sbatch ARG..., NULL-terminated */
    size_t n_sbatch_args;
    /* Inside a job started with sbatch --stream-card: the bundle the SPANK plugin made
       (its card.yaml and platform evidence are adopted into the same SHA256SUMS). */
    char *adopt_bundle;
    bool platform_control; /* the plugin set and read back the platform state */
    /* streamcard run as root outside a job: the prefetch registers and governors of the
       card's CPUs read before and after the workload, never written (sc_readback.h) */
    bool cli_readback;
    /* --platform apply: with cli_readback, the card's prefetch and governor set on its CPUs
       before each bundle's first run and restored at its end (platform_apply.h) */
    bool platform_apply;
    /* an ablation study: the OpenMP workloads run with OMP_DISPLAY_ENV=true, so the table can
       say when a step's variable changed nothing the runtime read (study_extra.h) */
    bool display_env;
    const char *sysroot;           /* where platform state is read ("/" unless the plugin says) */
    sc_topology *topology;         /* this machine's, shared by every run */
    struct sc_cache_memo **caches; /* what the runs learnt of the caches (cacheprobe.h) */
    /* A paired run (sc_pair.h): --against CARD (side B's card), --against-kernel-dir DIR
       (side B's workloads), --seed N (the order's seed, else drawn). */
    const char *against_path;
    const char *against_kernel_dir;
    bool has_seed;
    uint64_t seed;
    struct sc_timings *timings; /* STREAMCARD_TIMINGS: the phase trace (timings.h); NULL: off */
} sc_run_opts;

void sc_run_opts_free(sc_run_opts *opts);

/* The workload's executable: in STREAMCARD_KERNEL_DIR when set, else next to this program,
   else in ../libexec/streamcard/ beside it; malloc'd absolute path, NULL when not found. */
char *sc_plan_find_kernel(sc_workload workload);

/* The directory of the card's OpenBLAS build (blas: openblas-openmp: the multiarch
   library directory's openblas-openmp/), malloc'd; NULL for blas: default. */
char *sc_plan_blas_dir(const sc_card *card);

/* The library the card's blas: names by its absolute path, preloaded (LD_PRELOAD) ahead of
   any other: the program's BLAS calls bind to it, and a program that links a library of the
   same soname (libopenblas.so.0) maps only this one, the loader matching the soname of what
   is already loaded. NULL for default or a Debian build. */
const char *sc_plan_blas_preload(const sc_card *card);

/* One run: everything decided before it starts; printed by --dry-run, executed by run. */
typedef struct sc_plan {
    const sc_run_opts *opts; /* shared by every run of the card */
    sc_card *card;           /* this run's checked card (its series owns it) */
    const char *card_origin; /* "file", "flags" or "file+flags" */
    char *card_yaml;         /* the bytes that go into the bundle's card.yaml */
    char card_sha256[SC_HASH_HEX_LEN + 1];
    char *binary; /* the workload executable, absolute */
    bool binary_found;
    char *binary_why;  /* a program of the card's command not found: the line that says why */
    char **argv;       /* the workload's command line (argv[0] = binary) */
    char **envp;       /* the workload's whole environment */
    char *omp_summary; /* the OpenMP placement variables, for the plan and run.conf */
    char *json_path;   /* where the workload writes its own results */
    /* mpi: where rank 0 writes what MPI_Init said, kept as transport.log */
    char *transport_log_path;
    char *bundle_path; /* after the run: the bundle it wrote */
    /* A side of a paired run (sc_pair.h): 'A' or 'B' (0 otherwise), its bundle made at
       exactly bundle_at (<pair>/a, <pair>/b) and, for a pair of two builds, its workload
       from kernel_dir instead of STREAMCARD_KERNEL_DIR or the command's own folder. */
    char side;
    const char *bundle_at;
    const char *kernel_dir;
    /* mpi: the launcher (mpirun, outside Slurm) starts this host's ranks as its descendants,
       in the observer's process tree; srun's start under slurmd, outside it */
    bool ranks_under_observer;
} sc_plan;

/*
 * Makes the plan of one run of card under opts: card.yaml and its hash, and unless the
 * run goes through sbatch (opts->submit: the node builds its own) the workload's command
 * line and environment from parent_env. Returns 0 or -errno.
 */
int sc_plan_init(sc_plan *plan, const sc_run_opts *opts, sc_card *card, char **parent_env);
/* As sc_plan_init(), the workload taken from kernel_dir (NULL: as sc_plan_init() finds it). */
int sc_plan_init_in(sc_plan *plan, const sc_run_opts *opts, sc_card *card, char **parent_env,
                    const char *kernel_dir);
/* The folder the workloads are taken from: kernel_dir, else STREAMCARD_KERNEL_DIR, else the
   command's own folder or ../libexec/streamcard beside it, where the workload exists
   (malloc'd, absolute); NULL when none holds it. */
char *sc_plan_kernel_dir(sc_workload w, const char *kernel_dir);
/* Appends one argument to the workload's command line. Returns 0 or -ENOMEM. */
int sc_plan_append_arg(sc_plan *plan, const char *arg);
void sc_plan_print(const sc_plan *plan, FILE *out);
/* Frees what the plan made (not its card or options) and empties it. */
void sc_plan_free(sc_plan *plan);

#endif
