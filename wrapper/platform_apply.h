/*
 * platform_apply.h: `streamcard run --platform apply`: as root outside Slurm, the card's
 * prefetch and governor set on its CPUs by the plugin's own code (spank/pfctl.h: the policy
 * check, the journal synced before the first write, every write read back, the restore), the
 * workload run, and the platform restored when the bundle ends (doc/contracts/platform.md,
 * "Set by the CLI as root").
 *
 * The change is journaled as job SC_APPLY_JOB (no Slurm job has that id) with this process
 * as its holder. The bundle's end restores it (sc_apply_restore(): the facade's release),
 * after a failed workload and after a forwarded SIGINT or SIGTERM as after a good run; when
 * this process is killed, its guardian ends the bundle and restores; when both are gone, the
 * journal's holder is dead and the next `--platform apply`, the plugin's next change on the
 * node, slurmd's start or `streamcard-node state --clear` restores it.
 *
 * The policy is the plugin's arguments (spank/policy.h) read from SC_POLICY_FILE under the
 * sysroot: allow= (what may be changed: nothing by default), state_dir= (the journals).
 */
#ifndef SC_WRAPPER_PLATFORM_APPLY_H
#define SC_WRAPPER_PLATFORM_APPLY_H

#include "pfctl.h"
#include "plan.h"
#include "run_series.h"
#include "sc_diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The journal's job id of a change by the command (Slurm never gives a job id 0). */
#define SC_APPLY_JOB SC_PFCTL_CLI_JOB

/* One change made for one bundle. */
typedef struct sc_apply {
    char state_dir[512];
    sc_pfctl_config cfg;  /* the sysroot and the policy's state_dir */
    pid_t holder;         /* this process, the journal's holder */
    bool applied;         /* this process holds a journaled change: the bundle's end
                             releases it (the last holder restores) */
    sc_pfctl_evidence ev; /* the facade's texts of the change */
    char *restore_log;    /* the release's log, after sc_apply_restore() */
    int restore_rc;       /* its result: 0 every original read back, else -errno */
} sc_apply;

/*
 * Whether --platform apply may run the series: as root, outside a Slurm job, not with
 * --submit or a paired run, not a sweep or study whose values take turns (runs: other than
 * 1), a run of the series that changes prefetch or the governor, and
 * the node's policy allowing every change asked. One line per refusal in diag (each says
 * what would be valid). 0, -EINVAL (refused) or -ENOMEM.
 */
int sc_apply_check(const sc_run_opts *opts, const sc_series *series, sc_diag *diag);

/*
 * Applies card's prefetch and governor to its CPUs (sc_pfctl_apply(), holder getpid()).
 * A card that changes nothing applies nothing (0, a->applied false). On a refusal or a
 * failure nothing is left changed (the facade rolls back) and why holds its one line.
 * Returns 0 or -errno; a must be released with sc_apply_free() in every case.
 */
int sc_apply_start(sc_apply *a, const sc_run_opts *opts, const sc_card *card, char *why,
                   size_t whylen);

/* Restores what a->applied journaled (sc_pfctl_release()); a second call does nothing.
   Returns a->restore_rc. */
int sc_apply_restore(sc_apply *a);

/* Frees the texts; accepts NULL. */
void sc_apply_free(sc_apply *a);

#endif
