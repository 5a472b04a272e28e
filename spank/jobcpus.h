/*
 * jobcpus.h: the CPUs a job holds on this node, from the job's own cpuset cgroup.
 *
 * Whether a job has a node to itself decides whether it may change the node's prefetchers
 * and governor (policy require_exclusive). Slurm's S_JOB_NCPUS answers that in the batch
 * step, but in a step started with srun (the card's MPI ranks on other nodes) it counts
 * the step's CPUs, not the job's. With task/cgroup the job's cpuset is the parent of every
 * step's: .../job_<id>/cpuset.cpus (cgroup v1) or cpuset.cpus.effective (v2), found from
 * this process's /proc/self/cgroup. Both are set by slurmd, never by the user.
 */
#ifndef SC_SPANK_JOBCPUS_H
#define SC_SPANK_JOBCPUS_H

#include <hwloc.h>
#include <stdint.h>

/*
 * From proc_cgroup (the text of /proc/self/cgroup) finds the cgroup directory of job
 * job_id under cgroup_root ("/sys/fs/cgroup"; a test tree in tests) and reads its cpuset
 * into out. Returns 0, -ENOENT when this process is in no cgroup of that job (no
 * task/cgroup), or -errno reading it.
 */
int sc_job_cpuset(const char *proc_cgroup, uint32_t job_id, const char *cgroup_root,
                  hwloc_bitmap_t out);

#endif
