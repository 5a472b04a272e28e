/*
 * pfctl.h: the facade the SPANK plugin calls to change prefetch and the governor for a
 * job, and to put them back.
 *
 * Every call must run as root (euid 0): MSR writes need CAP_SYS_RAWIO, the state directory
 * is root's. Every call takes the state directory's lock for its whole duration, so steps
 * of one job and jobs sharing a node are serialised. No call keeps state in memory between
 * calls: everything that must survive (originals, request, holders) is in the journal, so
 * each callback can run in a different process (slurmstepd, slurmd, the job epilog).
 *
 *   apply          a step daemon (holder = its pid) wants the job's settings
 *   release        that step daemon ends; the last live holder restores the originals
 *   restore_job    the job is over on the node (the extern step's exit with
 *                  PrologFlags=Contain, or the job epilog of spank_streamcard_epilog.so
 *                  without it): restore whatever is left, unconditionally
 *   restore_stale  slurmd starts: restore journals whose holders all died (crash, reboot)
 *
 * Errors: 0 or -errno, and a one-line reason "streamcard: <what failed>: <why> (<valid>)".
 * Restores verify by readback; a mismatch names the cpu, register, expected and read value.
 */
#ifndef SC_PFCTL_H
#define SC_PFCTL_H

#include "sc_card.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The job id under which `streamcard run --platform apply` journals a change as root outside
   Slurm (Slurm never gives a job id 0): messages name it as that command, not as a job. */
#define SC_PFCTL_CLI_JOB 0u

typedef struct sc_pfctl_config {
    const char *sysroot;   /* where /sys, /proc/cpuinfo and /dev/cpu live; NULL means "/" */
    const char *state_dir; /* absolute path of the root-owned journal directory */
} sc_pfctl_config;

typedef struct sc_pfctl_request {
    sc_prefetch prefetch;      /* the card's prefetch */
    const char *governor;      /* the card's governor: a name, "unchanged" (or NULL) */
    hwloc_const_bitmap_t cpus; /* OS cpu numbers to change (the card's cpu_list) */
    bool allow_prefetch;       /* admin policy: users may change prefetch */
    bool allow_governor;       /* admin policy: users may change the governor */
    /* The job's CPUs on this node when it does not hold the whole node (require_exclusive=no);
       NULL when it does. Every CPU a write reaches (the register's scope: a core's SMT
       siblings; the cpufreq policy's related_cpus) must be among them. */
    hwloc_const_bitmap_t job_cpus;
} sc_pfctl_request;

/* Texts for the user's bundle, malloc'd; any may be NULL after a failed allocation. */
typedef struct sc_pfctl_evidence {
    char *control_log;         /* prefetch/control.log: timestamped, step by step */
    char *msr_readback_before; /* prefetch/state/msr_readback_before.txt: the originals */
    char *msr_readback_after;  /* prefetch/state/msr_readback_after.txt: read after the change */
    char *state_env;           /* prefetch/state/state.env: OBSERVED_STATE, STATE_VALID, ... */
    char *node_log; /* for the node's log (slurmd), not the bundle: what an admin must hear of,
                       such as a damaged journal of another job restored and set aside */
    bool started;   /* this call journaled a new change (not one joined as another holder) */
} sc_pfctl_evidence;

/*
 * Applies req for job_id on behalf of holder (the calling slurmstepd's pid). Refuses, and
 * changes nothing, when the policy does not allow a requested change (-EPERM), the CPU has
 * no known prefetch control or a governor is not offered (-ENOTSUP), a CPU is not online
 * (-EINVAL), a write would reach a CPU outside req->job_cpus or its reach cannot be read
 * (-EACCES), or another job holds a change on this node (-EBUSY). When job_id already holds the
 * same request, holder is only added as a reference (steps share one change). Otherwise the
 * originals are journaled, then written, then every value read back; a failure after the first
 * write restores the originals. When prefetch and governor are both unchanged it does nothing and
 * returns 0. ev is filled in every case (release it with sc_pfctl_evidence_free()).
 */
int sc_pfctl_apply(const sc_pfctl_config *cfg, uint32_t job_id, pid_t holder,
                   const sc_pfctl_request *req, sc_pfctl_evidence *ev, char *why, size_t whylen);

/* Frees the texts of ev; accepts NULL. */
void sc_pfctl_evidence_free(sc_pfctl_evidence *ev);

/*
 * Drops holder's reference. When no live holder remains, restores the originals (masked,
 * read back; governors too) and removes the journal. A job without a journal is fine (0).
 * *log (may be NULL) receives a malloc'd multi-line text of what was done.
 */
int sc_pfctl_release(const sc_pfctl_config *cfg, uint32_t job_id, pid_t holder, char **log);

/* Restores job_id's journal whatever its holders (the job is over) and removes it. */
int sc_pfctl_restore_job(const sc_pfctl_config *cfg, uint32_t job_id, char **log);

/*
 * Restores every journal none of whose holders is alive and removes it; leaves journals
 * with a live holder alone (slurmd may restart under running jobs). Corrupt journals are
 * reported and left for an admin (their well-formed records are restored when no holder
 * is alive). Returns 0 or the first error.
 */
int sc_pfctl_restore_stale(const sc_pfctl_config *cfg, char **log);

/* What the platform of some CPUs is now, and what it is when no job changes it. */
typedef struct sc_pfctl_readback {
    char arch[32];          /* the CPU class, "unknown" */
    char prefetch[32];      /* on, off, mixed; unknown without a known prefetch control */
    char governor[32];      /* a governor name, mixed, unknown */
    char base_prefetch[32]; /* the node's own: a journal's original where one covers a CPU, */
    char base_governor[32]; /* else what is read now (as prefetch and governor) */
    char changed_by[128];   /* the jobs whose journal holds a change on the node, "1,2", or
                               "none"; "..." past the first few */
} sc_pfctl_readback;

/*
 * Reads, under the state directory's lock, the prefetch registers and governors of cpus and
 * the node's journals, and fills out. Writes nothing. 0 or -errno (out then says unknown).
 */
int sc_pfctl_read(const sc_pfctl_config *cfg, hwloc_const_bitmap_t cpus, sc_pfctl_readback *out);

/*
 * For an admin (streamcard-node state): one line per journal of the node (job, request,
 * CPUs, class, records, holders alive or dead; a damaged one says so and what of it is
 * readable) and one per damaged journal set aside; *jobs lists the journals' job ids. Reads
 * only, under the lock. Returns 0 with *text and *jobs malloc'd, or -errno with the reason
 * in *text.
 */
int sc_pfctl_show(const sc_pfctl_config *cfg, char **text, uint32_t **jobs, size_t *njobs);

#endif
