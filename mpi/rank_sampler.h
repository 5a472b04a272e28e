/*
 * rank_sampler.h: interference accounting inside every MPI rank (doc/contracts/gates.md,
 * "Interference"). A rank's CPU may sit on a node the observer cannot see, so each rank runs
 * common/'s sampler over its own CPUs from just before the main loop to just after it (in a
 * program we did not write, from MPI_Init to MPI_Finalize unless its markers say more), and
 * rank 0 prints every rank's records (TRACE_INTERFERENCE_*, source rank<r>) into the log.
 * Only when the observer asked for it (STREAMCARD_OBSERVER=<pid>@<host> in the environment):
 * the observer's process tree (on its host) and every rank's on this host are the job's own.
 */
#ifndef SCM_RANK_SAMPLER_H
#define SCM_RANK_SAMPLER_H

#include <mpi.h>
#include <stdio.h>

struct scm_rank_sampler;

/*
 * Not collective; before MPI_Init, while this process has one thread. When accounting was
 * asked for: makes room in the descriptor table for the files the sampler opens, so that
 * opening them later does not grow it (in a process with threads, as a rank is after
 * MPI_Init, every growth waits for an RCU grace period: several ms each, tens under load,
 * at main_loop_begin, where the workload waits for the sample); then starts a thread that
 * primes the sampler (SC_SAMPLE_PRIME: every task of the node read while MPI_Init mostly
 * waits), which scm_rank_sampler_begin() joins, so that the window's BEGIN reads only the
 * job's processes and the ones started since. The sampler keeps no stat file open: a rank
 * takes no scans (sc_sampler_opts.no_scans).
 */
void scm_rank_sampler_prepare(void);

/*
 * Collective. Opens the window in every rank when every rank was asked to account; *rs is
 * NULL otherwise (or when this rank's sampler could not start: its records are then
 * missing, and the gate says so). span says what bounds it (SC_TRACE_SPAN_MAIN_LOOP: the
 * caller's main loop; SC_TRACE_SPAN_MPI: MPI_Init to MPI_Finalize), printed with the records
 * (SC_TRACE_RANK_WINDOW).
 */
void scm_rank_sampler_begin(struct scm_rank_sampler **rs, MPI_Comm comm, int rank,
                            const char *span);

/*
 * Not collective: this rank's main loop begins (begin 1) or ends (0), as a program's marker
 * says. The first begin reopens the window from now, its span the main loop; the end after
 * it closes the window. Any other call does nothing. 0, or -errno when the sample failed
 * (at a begin the window stays as it was; at an end this rank's records are missing).
 */
int scm_rank_sampler_mark(struct scm_rank_sampler *rs, int begin);

/* Collective. Closes every rank's window; rank 0 prints all the records to out. Frees rs. */
void scm_rank_sampler_end(struct scm_rank_sampler *rs, MPI_Comm comm, int rank, FILE *out);

/* Not collective: frees rs (may be NULL) without records, when the main loop failed. */
void scm_rank_sampler_drop(struct scm_rank_sampler *rs);

#endif
