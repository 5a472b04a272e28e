/*
 * guardian.h: letting streamcard run's guardian seal the bundle before slurmstepd kills
 * what is left of a step.
 *
 * When the job's `streamcard run` is SIGKILLed, its guardian (a child named
 * SC_BUNDLE_GUARDIAN_COMM, sc_bundle.h) finishes and seals the bundle with a failed
 * verdict. But as soon as a step's task has ended, slurmstepd SIGKILLs every process left
 * in the step (proctrack), the guardian with them, and the bundle would stay unsealed.
 * slurm_spank_task_exit runs in slurmstepd between the two: there the plugin waits, for a
 * bounded time, until no guardian is left in the task's process group.
 */
#ifndef SC_SPANK_GUARDIAN_H
#define SC_SPANK_GUARDIAN_H

#include <stdbool.h>
#include <sys/types.h>

/* How long slurmstepd waits at most for a guardian (it seals in well under a second). */
#define SC_GUARDIAN_WAIT_MS 10000

/* True when a process named SC_BUNDLE_GUARDIAN_COMM lives in process group pgid. */
bool sc_guardian_alive(pid_t pgid);

/*
 * Waits until no guardian lives in process group pgid (the task's pid: slurmstepd puts
 * each task in its own group, and the guardian stays in it), at most wait_ms.
 * Returns 1 when none was found, 0 when one ended in time, -ETIMEDOUT when one is still
 * alive.
 */
int sc_guardian_wait(pid_t pgid, unsigned wait_ms);

#endif
