/*
 * run_series.h: the one loop of `streamcard run`: the runs of a card (a series, core's
 * sc_series.h), each with its plan, handed in order to an executor, which carries each run
 * out here (execute.c) or as a Slurm job (submit.c). A series of several runs ends with its
 * table (the value, the verdict recomputed from the bundle, the figure and its change
 * against the first run), also saved next to the bundles.
 */
#ifndef SC_RUN_SERIES_H
#define SC_RUN_SERIES_H

#include "plan.h"
#include "sc_series.h"

#include <stdbool.h>
#include <stddef.h>

/* A series with a plan per run: plans[i] is the plan of series->runs[i]. */
typedef struct sc_run_series {
    const sc_run_opts *opts;
    const sc_series *series;
    sc_plan *plans;
    /* Optional (a study): filled with each run's bundle, or why it has none (malloc'd or
       NULL, series->n entries); the study prints its own table instead of the sweep's. */
    char **bundles;
    char **causes;
} sc_run_series;

/* How the runs are carried out. Each call gets state, the executor's own. */
typedef struct sc_executor {
    /* Before the first run, also for a dry run (which writes nothing). 0, or the exit
       status of `streamcard run` to stop with. May be NULL. */
    int (*begin)(void *state, const sc_run_series *rs);
    /* The round-th run of series run i (a card with runs: N or auto makes several into one
       bundle), or with opts->dry_run what it would do. Sets *more when run i wants another
       round; otherwise run i is complete, and *bundle (malloc'd) is the bundle it wrote, if
       any; when it wrote none, *cause (malloc'd, one line) says why (a job the node refused:
       the refusal). Returns the exit status of `streamcard run` for it. */
    int (*run)(void *state, const sc_run_series *rs, size_t i, size_t round, bool *more,
               char **bundle, char **cause);
    /* After the last run (also of a dry run): failed says whether one failed. May be NULL. */
    void (*end)(void *state, const sc_run_series *rs, bool failed);
    /* Every bundle is verified again when read back; a run whose bundle fails failed. */
    bool verify_each;
    const char *dry_note; /* the last line of a dry run */
    void *state;
} sc_executor;

/*
 * Runs the series through ex, in order, and prints the table when it has several runs. A run
 * that made no bundle (refused, could not start) stops the series, its cause in the table,
 * unless opts->keep_going.
 * Returns the exit status of `streamcard run`: a lone run's own; for several, 1 when any
 * failed (a dry run of several: 0).
 */
int sc_run_series_execute(const sc_run_series *rs, const sc_executor *ex);

#endif
