/*
 * sc_observe.h: run a workload and watch it.
 *
 * The workload is started with its CPU affinity and memory binding already in place
 * (set in the child between fork and exec, so every thread and page inherits them),
 * its stdout and stderr merged into one pipe. Every byte is written to the log at once;
 * the lines are scanned for the trace protocol, and the moment
 * TRACE_WORKLOAD_PHASE=main_loop_begin arrives the observer snapshots the process
 * (threads and their CPUs, /proc/<pid>/status, numa_maps, per-node pages) into the
 * bundle and records how long that took. With interference accounting, a sampler
 * (common/sc_sampler.h), primed right after the exec, opens its window there, just before
 * the workload is released, scans /proc at a low rate meanwhile and closes it at
 * TRACE_WORKLOAD_PHASE=main_loop_end with the job's own tasks (or at the workload's end);
 * once the workload has gone it reads the foreign tasks a last time (when the window had
 * foreign CPU time) and writes its records to interference.txt; the workload's
 * environment names the observer (STREAMCARD_OBSERVER), so MPI ranks sample their own CPUs
 * and count it as the job's own. Signals to the caller (Ctrl-C, scancel's
 * SIGTERM) are forwarded to the workload's process group and the run still ends with
 * its evidence.
 */
#ifndef SC_OBSERVE_H
#define SC_OBSERVE_H

#include "sc_bundle.h"

#include <hwloc.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

typedef struct sc_observe_opts {
    char *const *argv;         /* argv[0] is an absolute path */
    char *const *envp;         /* the workload's whole environment */
    hwloc_const_bitmap_t cpus; /* affinity; NULL keeps the caller's */
    long memory_node;          /* membind node; -1 for none */
    int log_fd;                /* receives everything the workload prints */
    int echo_fd;               /* a copy for the terminal; -1 for none */
    const sc_bundle *bundle;   /* where the snapshots are written */
    const char *dir;           /* the run's folder in the bundle ("run-2"); "" or NULL: top */
    bool interference;         /* account interference (sets STREAMCARD_OBSERVER) */
    const int *acct_cpus;      /* the CPUs the observer accounts itself (none for MPI: the */
    size_t n_acct_cpus;        /* ranks do); with interference, writes interference.txt */
    const char *log_path;      /* for capture_guard.env and the READY line */
    const char *guard_extra;   /* more "key=value" lines for capture_guard.env; may be NULL */
    double timeout_s;          /* 0: none; else SIGTERM after it, SIGKILL 10 s later */
    /* A program that prints no markers: its main loop is its whole life. The snapshots are
       taken and the window opens at its first output or 50 ms after its exec (or at its end,
       if sooner); the window closes at its end. */
    bool begin_at_start;
    /* With begin_at_start, the program's own lines as its markers instead (bounded POSIX
       extended regexes, the card's): the snapshots and the window's start at the first line
       matching begin_pattern, the window's end at the first after it matching end_pattern
       (lines shorter than 4096 bytes). NULL: none. */
    const char *begin_pattern, *end_pattern;
    /* A program we did not write: its environment names its output pipe in
       STREAMCARD_TRACE_FD, where the marker library (streamcard/marker.h) writes the trace
       protocol's lines; they reach the log and the scanner like the kernels' (with
       begin_at_start false, its main_loop_begin and end bound the window). */
    bool trace_fd;
    /* MPI ranks started outside the observer's process tree (srun's, through slurmstepd),
       with accounting and patterns: each rank of this host that a TRACE_RANK_BINDING line
       names before the window opens, and whose environment names this observer
       (STREAMCARD_OBSERVER), is the job's own from the window's start (a sampler root). */
    bool adopt_ranks;
    /* The program started is an MPI launcher (mpirun, srun): its ranks print their own
       threads, CPUs and NUMA pages, so the launcher's numa_maps (its own pages, none of the
       workload's) is not taken at main_loop_begin, where the ranks wait for the snapshots. */
    bool launcher;
} sc_observe_opts;

typedef struct sc_observe_result {
    pid_t pid;
    bool started;                                   /* the exec succeeded */
    int spawn_error;                                /* errno of a failed fork or exec, else 0 */
    bool exit_known;                                /* the workload was reaped */
    int exit_code;                                  /* when it exited */
    int exit_signal;                                /* the signal that ended it, else 0 */
    bool ready_seen;                                /* main_loop_begin arrived */
    double ready_capture_ms;                        /* marker read -> every snapshot written */
    struct timespec started_at, ready_at, ended_at; /* CLOCK_REALTIME */
    int caller_signal; /* a signal the caller received and forwarded, else 0 */
    bool timed_out;
    int capture_errors; /* snapshots that could not be taken (read from /proc) */
    char capture_error[256];
    int write_errors; /* evidence that could not be written into the bundle */
    char write_error[256];
    bool end_seen; /* main_loop_end arrived */
    /* CLOCK_MONOTONIC moments for the caller's phase trace (zero: not reached): the
       main_loop_begin line read, the workload released, main_loop_end read, the workload
       reaped. */
    struct timespec mono_ready, mono_released, mono_end, mono_exit;
} sc_observe_result;

/* Runs the workload to its end. Returns 0 (see r for how it ended) or -errno. */
int sc_observe_run(const sc_observe_opts *o, sc_observe_result *r);

/*
 * sc_observe_run() in two steps, so that the caller's own work overlaps the workload's
 * start-up (loading its libraries, making its data): sc_observe_start() forks and execs it
 * and returns at once; sc_observe_wait() watches it to its end and frees h. In between, the
 * workload's output waits in its pipe, o and r must stay where they are, and SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT stay blocked (they are read when the watch begins). Start
 * returns 0 with *h set, or -errno with *h NULL (r says whether the fork failed).
 */
typedef struct sc_observe sc_observe;
int sc_observe_start(const sc_observe_opts *o, sc_observe_result *r, sc_observe **h);
int sc_observe_wait(sc_observe *h);
/* In a process forked between start and wait: closes its copies of h's descriptors (the
   workload's pipes, so that this process keeps none of them open). */
void sc_observe_close_in_child(const sc_observe *h);

#endif
