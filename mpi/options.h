/*
 * options.h: streamcard-pingpong's command line and test-only fault switch.
 *
 * Parsed by every rank before MPI_Init, so `--help`, `--build-info` and bad options work
 * without a launcher. Errors are one line (kernels/cli.h), printed by the launcher's rank 0
 * only (or by the process, when no launcher started it), so a run shows each error once.
 */
#ifndef SCM_OPTIONS_H
#define SCM_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "workload_cli.h" /* the kernels' usage-error, whole-number and STREAMCARD_FAULT helpers */

#define SCM_PROG "streamcard-pingpong"
#define SCM_EXIT_FAILED 1 /* validation failed or a run-time error */
#define SCM_EXIT_USAGE 2  /* bad option, environment value or rank count */

enum scm_kernel { SCM_KERNEL_PINGPONG, SCM_KERNEL_UNIBAND };

struct scm_opts {
    enum scm_kernel kernel;
    size_t min_bytes, max_bytes; /* message sizes: min, 2 min, 4 min, ... <= max (0 then 1) */
    long iterations;             /* round trips (pingpong) or windows (uniband) per size */
    int window;                  /* uniband: messages in flight per repetition */
    int pairs_all;               /* --pairs all: every pair of the ranks (matrix.h) */
    int passes;                  /* --passes: the schedule this many times (default 1) */
    struct sct_cli_common cli;   /* --json (written by rank 0), --build-info, --help */
    const char *transport_log;   /* --transport-log: rank 0 writes what MPI_Init said */
    enum sct_fault fault;        /* test-only, STREAMCARD_FAULT */
};

/* Parse argv and STREAMCARD_FAULT into o. Returns 0, or -EINVAL after the one-line error. */
int scm_options_parse(int argc, char **argv, struct scm_opts *o);

void scm_options_usage(FILE *out);

/* "pingpong" or "uniband". */
const char *scm_kernel_name(enum scm_kernel k);

/* Print "streamcard-pingpong: <what>: <why> (<valid>)" unless this is not rank 0. */
void scm_error(const char *what, const char *why, const char *valid);

#endif
