/*
 * submit.h: the sbatch executor of `streamcard run --submit`: each run of a series as its
 * own job, `sbatch --stream-card=<the run's card> --wait`, one after the other, so that the
 * SPANK plugin sets, reads back and restores the platform for each (submit.c).
 */
#ifndef SC_SUBMIT_H
#define SC_SUBMIT_H

#include "run_series.h"

#include <limits.h>

/* The executor's state: where the runs' cards and the job script are written. */
typedef struct sc_sbatch {
    char dir[PATH_MAX + 32];
    char job_sh[PATH_MAX + 64];
} sc_sbatch;

/* Makes ex submit every run as a job, keeping its state in sb. */
void sc_sbatch_executor(sc_executor *ex, sc_sbatch *sb);

#endif
