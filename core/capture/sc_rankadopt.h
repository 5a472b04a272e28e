/*
 * sc_rankadopt.h: which MPI rank an observer may count as the job's own when the launcher
 * started it outside the observer's process tree (srun's ranks, slurmstepd's children; see
 * sc_observe_opts.adopt_ranks and doc/contracts/gates.md, "MPI"). A rank is named by rank 0's
 * TRACE_RANK_BINDING line in the run's log, which the program could have printed itself, so
 * the line is held to the process it names: on this host, started after the workload, its
 * environment naming this observer (STREAMCARD_OBSERVER=<pid>@<host>) and, in a Slurm job,
 * this job (SLURM_JOB_ID).
 */
#ifndef SC_RANKADOPT_H
#define SC_RANKADOPT_H

#include <sys/types.h>

/* What a binding line is held to. */
typedef struct sc_rankadopt {
    int proc_root;                     /* /proc (or a tree laid out as /proc, in the tests) */
    const char *host;                  /* this node's name, as the ranks print theirs */
    pid_t observer;                    /* the pid STREAMCARD_OBSERVER names */
    const char *job_id;                /* SLURM_JOB_ID the ranks must carry; NULL: none asked */
    unsigned long long workload_start; /* the workload's start, clock ticks after boot */
} sc_rankadopt;

/* The start time of the process whose stat file is rel under dirfd ("stat", "<pid>/stat"):
   clock ticks after boot, /proc's stat field 22; 0 when it cannot be read. */
unsigned long long sc_rankadopt_start_ticks(int dirfd, const char *rel);

/* The pid of the rank a TRACE_RANK_BINDING line names when it may be adopted, else 0 (any
   other line, another host, a process that is not this run's rank). */
pid_t sc_rankadopt_line(const sc_rankadopt *a, const char *line);

#endif
