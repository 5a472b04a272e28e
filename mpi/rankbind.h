/*
 * rankbind.h: where each MPI rank runs, as it sees itself (its CPU, its affinity), and what
 * the observer's readiness pipe is worth in a rank: shared by streamcard-pingpong and the
 * probe preloaded into a program we did not write (probe_preload.c; doc/contracts/layout.md,
 * "MPI programs under exec").
 */
#ifndef SCM_RANKBIND_H
#define SCM_RANKBIND_H

#include <mpi.h>

/* Where a rank ran, as it saw it itself (gathered to rank 0). */
struct scm_binding {
    int valid; /* set by the rank that filled it in */
    int rank, cpu;
    long pid;
    char host[64];
    char allowed[256]; /* sched_getaffinity as a cpulist, e.g. "0-3,8" */
};

/*
 * Collective: every rank says where it runs; rank 0 prints one TRACE_RANK_BINDING line per
 * rank and TRACE_RANKS_COUNTED (sc_trace_protocol.h) on stdout. all: size entries on rank 0
 * (NULL elsewhere).
 */
void scm_bindings_report(MPI_Comm comm, int rank, int size, struct scm_binding *all);

/*
 * What was decided of STREAMCARD_READY_FD in this process (scm_ready_fd_guard()), for the
 * TRACE_READY_HANDSHAKE line.
 */
struct scm_ready_guard {
    int asked; /* STREAMCARD_READY_FD was set */
    long fd;
    const char *why; /* "pipe" (kept), or why it was dropped */
};

/*
 * STREAMCARD_READY_FD is the observer's pipe only in the process the observer started.
 * Under mpirun or srun the rank inherits the variable but not the descriptor, and once
 * MPI_Init has run the same number is one of the library's own pipes: waiting on it could
 * stall for 10 s, and reading or closing it would break the library. So, before anything
 * opens a descriptor, keep the variable only when it names an inherited read end of a pipe
 * (and, when the observer says which process it started, STREAMCARD_READY_PID, in that
 * process); otherwise drop it. Call first in main() or a constructor.
 */
void scm_ready_fd_guard(struct scm_ready_guard *g);

#endif
