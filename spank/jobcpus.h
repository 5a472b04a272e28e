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

/* At most this many other jobs are listed; a node with more is busy anyway. */
#define SC_JOBS_BESIDE_MAX 1024

/*
 * The other jobs that have a cgroup on this node, beside job job_id: for every line of
 * proc_cgroup (this process's /proc/self/cgroup) of the cpuset or freezer hierarchy (cgroup
 * v1: task/cgroup and proctrack/cgroup make those) or of cgroup v2 whose path holds
 * job_<job_id>, the node's part of the tree is the path above the job (above its uid_<n>
 * directory in v1: slurm[_<node>]/uid_<n>/job_<n>; in v2 the directory holding the job
 * directories, such as system.slice/<node>_slurmstepd.scope), and every other job_<n> in it
 * (under any uid_<n> in v1) is listed. Slurm makes a job's cgroups when its first step starts
 * on the node and removes them at its end, so the list is what Slurm runs here now, and
 * what a crashed slurmstepd left (the caller asks Slurm about each). Returns 0 with *jobs
 * sorted, without repeats, malloc'd (NULL when none), -ENOENT when this process is in no
 * cgroup of job_id (no cgroups: the caller cannot see other jobs), or -errno.
 */
int sc_jobs_beside(const char *proc_cgroup, uint32_t job_id, const char *cgroup_root,
                   uint32_t **jobs, size_t *count);

#endif
