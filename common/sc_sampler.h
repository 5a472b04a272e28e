/*
 * sc_sampler.h: interference accounting of the CPUs a workload runs on (doc/contracts/gates.md,
 * "Interference"). libc only, so both the observer (core/capture/observe.c) and an MPI rank
 * (mpi/pingpong.c) run the same code and write the same records (sc_trace_protocol.h).
 *
 * A sampler accounts a set of CPUs over a window (a workload's main loop). Every sample
 * reads a /proc tree through a directory descriptor (the real /proc, or a captured tree in
 * the tests): the first (begin) and the last (end) read /proc/stat's lines of the accounted
 * CPUs and every task; scans in between (at a low rate that keeps their cost under 0.25% of
 * one CPU) read every task's stat only. A task is the job's own when its process descends
 * from one of the roots (the observer, the MPI ranks): for those, the CPU time and run_delay
 * of /proc/<pid>/task/<tid>/schedstat and the involuntary context switches and allowed CPUs
 * of .../status. Any other task is foreign: its CPU time between two samples is attributed
 * to the CPU it was last seen on, and the ones with the most on an accounted CPU are named
 * (the top intruders). The sampler measures its own CPU time (CLOCK_THREAD_CPUTIME_ID).
 *
 * Functions return 0 or -errno; a task that vanishes while it is read is simply gone.
 */
#ifndef SC_SAMPLER_H
#define SC_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct sc_sampler sc_sampler;

typedef struct sc_sampler_opts {
    const int *cpus; /* the CPUs to account (may be none: the window and cost only) */
    size_t ncpus;
    const pid_t *roots; /* processes whose trees are the job's own */
    size_t nroots;
    const char *source; /* the records' source: "observer", "rank1" */
    const char *host;   /* this node's name, for the window record */
    size_t top;         /* intruders named per CPU; 0: 3 */
    /* The caller takes no SCAN (an MPI rank: its window is its main loop's two ends): each
       stat file is closed once read, not kept open for the scans to re-read, so the sampler
       holds no descriptor of a foreign task and freeing it closes none. */
    bool no_scans;
} sc_sampler_opts;

typedef enum sc_sample_kind {
    SC_SAMPLE_PRIME,   /* optional, before BEGIN: every task's stat, so that BEGIN need not */
    SC_SAMPLE_BEGIN,   /* the window opens: CPU times, every task, the own tasks' details */
    SC_SAMPLE_SCAN,    /* during the window: every task's stat */
    SC_SAMPLE_END,     /* the window closes: as BEGIN */
    SC_SAMPLE_END_OWN, /* instead of END: closes it reading the own and new tasks only */
    SC_SAMPLE_NAMES,   /* after END_OWN, when there is time: every task's stat */
} sc_sample_kind;

/* A new sampler (copies what it needs of o), or NULL (ENOMEM, or bad options: EINVAL). */
sc_sampler *sc_sampler_new(const sc_sampler_opts *o);
void sc_sampler_free(sc_sampler *s);

/* The most roots a sampler holds: the options' and the ones added. */
#define SC_SAMPLER_MAX_ROOTS 4096

/*
 * Adds a root before the window opens (after PRIME or before it): a process that is the
 * job's but not a descendant of the others, as the MPI ranks srun starts through slurmstepd
 * are to the observer. Its tree is the job's own from BEGIN on, also the tasks PRIME saw as
 * foreign. 0 (also when it is a root already); -EINVAL once the window opened or for pid
 * <= 0; -E2BIG beyond SC_SAMPLER_MAX_ROOTS; -ENOMEM.
 */
int sc_sampler_add_root(sc_sampler *s, pid_t pid);

/* Names the records' source before the window opens (an MPI rank primes before MPI_Init
   and learns its number after it). 0; -EINVAL once the window opened. */
int sc_sampler_set_source(sc_sampler *s, const char *source);

/*
 * Takes a sample of the tree under procfd (the directory that holds "stat" and "<pid>/")
 * at now_ns (CLOCK_MONOTONIC). BEGIN first, END last; SCAN any number of times between.
 *
 * PRIME, at most once before BEGIN, moves the cost of reading every task off the moment the
 * window opens (where a workload waits for it): an observer primes while its workload starts
 * up. A BEGIN after PRIME reads /proc/stat, the own processes' tasks and the processes PRIME
 * did not see, and skips the foreign ones it saw: their CPU time counts from PRIME, so an
 * intruder's ticks may include the workload's start-up (the gate's figures do not: they come
 * from /proc/stat and the own tasks, both read at BEGIN).
 *
 * END_OWN and NAMES do the same at the other end: END_OWN closes the window exactly
 * (/proc/stat, the own tasks, the processes born since the last sample that read every
 * task) and NAMES, taken when the workload has gone (an observer's reading competes with
 * its exit otherwise), reads every task's stat for the foreign CPU time, whose last ticks
 * may then be from after the window. The records are complete after END, or after
 * END_OWN (the intruders as the samples before saw them) and better after NAMES.
 */
int sc_sampler_sample(sc_sampler *s, int procfd, sc_sample_kind kind, long long now_ns);

/*
 * After END or END_OWN: whether the window shows no foreign work to name. The accounted
 * CPUs' user, nice and system ticks, less 2 per CPU (the ticks' resolution, as the gate
 * takes it), are within the CPU time of the job's own tasks other than the roots (the
 * workload's, pinned to those CPUs; the sampling process itself counts against it), and no
 * CPU had steal time. Then NAMES would find no foreign CPU time to attribute: an observer
 * skips it (sc_sampler_records() names what the samples before saw).
 */
bool sc_sampler_quiet(const sc_sampler *s);

/* When the next scan is due (ns, the clock of sc_sampler_sample); 0 before BEGIN or after END. */
long long sc_sampler_next_scan(const sc_sampler *s);

/*
 * Passes every record of the window, one line each (without newline), to emit: the window,
 * one per accounted CPU, one per own task, the top intruders per CPU. Stops at emit's first
 * non-zero return and returns it; -EAGAIN before END or END_OWN.
 */
int sc_sampler_records(const sc_sampler *s, int (*emit)(void *ctx, const char *line), void *ctx);

#endif
