/*
 * exclusive.h: whether a job has its node to itself, as Slurm knows it (policy
 * require_exclusive=yes; doc/contracts/spank.md, "The SPANK plugin", "Exclusivity"). Asked in the
 * task as root, before a platform change:
 *
 *   1. The jobs on the node now (sc_jobs_beside: the other job cgroups of this node), each
 *      asked of Slurm (slurm_load_job): one Slurm runs (or is ending) refuses the change, by
 *      name; one Slurm does not know (not this cluster's, or a leftover) is skipped. This
 *      covers OverSubscribe=YES and FORCE, --oversubscribe, and the srun steps of other jobs.
 *   2. Slurm's record of the job itself, so that no job can come later: allocated with
 *      --exclusive (OverSubscribe NO), Slurm keeps every other job off its nodes. A job that
 *      allows sharing (--oversubscribe, OverSubscribe=YES or FORCE; --exclusive=user or mcs)
 *      is refused. A job with the default (neither) must hold every CPU of the node.
 *
 * The Slurm calls are those of the process the plugin is loaded into (slurmstepd links
 * Slurm's own library); the plugin links no Slurm library itself.
 */
#ifndef SC_SPANK_EXCLUSIVE_H
#define SC_SPANK_EXCLUSIVE_H

#include <stddef.h>
#include <stdint.h>

/*
 * job_id's right to change the node's platform: ncpus is how many CPUs of the node the job
 * holds, online how many the node has. Returns 0, or -1 with one line in why saying which
 * job or setting stands in the way and what would be valid.
 */
int sc_exclusive_check(uint32_t job_id, int ncpus, long online, char *why, size_t whylen);

#endif
