/*
 * attest_sign.h: the plugin's signed statements (doc/contracts/attestation.md): what root did
 * to and read back from this node's platform for a job, signed as root with the node's key
 * (the policy's key=, "%n" the node's short name).
 *
 * apply: in the task before exec (task_init_privileged), from the platform layer's own
 * records (its evidence texts, the state before captured by slurmstepd) and what root
 * reads itself (the task's cpuset, the plugin's file); the envelope is handed to the
 * task, which writes it into the bundle as the user (user_bundle.h): root writes nothing
 * where the user controls the path. restore: in slurmstepd at the step's end, once the
 * last holder restored; written by root into <state_dir>/attest/, a root-owned directory
 * the user may read but not write.
 */
#ifndef SC_SPANK_ATTEST_SIGN_H
#define SC_SPANK_ATTEST_SIGN_H

#include "jobcard.h"
#include "pfctl.h"
#include "policy.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a statement is made from. */
typedef struct sc_attest_in {
    const sc_policy *policy;
    const sc_jobcard *jc;
    uint32_t job_id;
    const char *step; /* "batch", "extern" or the step's number */
    uid_t uid;
    const char *role;            /* "main" or "node" */
    const char *platform_before; /* root's capture before any change; may be NULL */
    const sc_pfctl_evidence *ev; /* the change's evidence; NULL when nothing was changed */
    const char *run;             /* apply of a change: sc_spank_run_id(); NULL: unknown */
} sc_attest_in;

/* This node's short name (up to the first dot), as bundles and statements name it. */
void sc_spank_node_name(char *buf, size_t len);

/* This run of job_id as Slurm knows it: "<restart count>-<start time>" (an RPC to
   slurmctld), or "unknown". A requeued job's next run has another. */
void sc_spank_run_id(uint32_t job_id, char *buf, size_t len);

/*
 * As root: the apply statement, signed (*envelope malloc'd). For a change, its state is the
 * platform layer's (requested, observed, CPUs), BEFORE_PREFETCH and RUN; for a card that
 * leaves the platform alone, what root reads now of its CPUs' prefetch registers and
 * governors, the node's own state (BASELINE_PREFETCH, BASELINE_GOVERNOR: the journals'
 * originals where a job holds a change) and CHANGED_BY (those jobs). Returns 0, or -errno
 * with the reason in why (no key file: -ENOENT, why naming streamcard keygen --out DIR; the
 * run is then not attested, and the job goes on). The plugin calls it only when
 * sc_policy_key_wanted(): keys are opt-in.
 */
int sc_spank_attest_apply(const sc_attest_in *in, char **envelope, char *why, size_t whylen);

/* As root, after an apply that started the job's change on the node (ev->started): notes
   the run and the SHA-256 of its envelope for the restore (attest_store.h). */
int sc_spank_attest_note(const sc_attest_in *in, const char *envelope, char *why, size_t whylen);

/*
 * As root, after the restore of in->job_id's change on this node (rc: the restore's
 * result): takes the apply note (the run, the apply statement's SHA-256), reads back
 * prefetch and governors of the card's CPUs, signs the restore naming both, writes
 * <state_dir>/attest/job_<id>_<node>_<run>.restore.dsse.json (0644, replaced atomically),
 * and prunes the directory (attest_store.h).
 */
int sc_spank_attest_restore(const sc_attest_in *in, int rc, char *why, size_t whylen);

#endif
