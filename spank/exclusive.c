/*
 * exclusive.c: the node to itself, as Slurm knows it (see exclusive.h).
 */
#include "exclusive.h"
#include "jobcpus.h"
#include "sc_file.h"
#include "sc_why.h"

#include <errno.h>
#include <fcntl.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdlib.h>
#include <string.h>

#define SC__VALID "valid: submit with --exclusive, or leave prefetch and governor unchanged"

/* Slurm's record of job (one job); NULL with *err set when Slurm has none or cannot say. */
static job_info_msg_t *sc__load(uint32_t job, int *err)
{
    job_info_msg_t *msg = NULL;

    if (slurm_load_job(&msg, job, SHOW_DETAIL) != SLURM_SUCCESS || !msg || msg->record_count < 1) {
        *err = slurm_get_errno();
        if (msg)
            slurm_free_job_info_msg(msg);
        return NULL;
    }
    return msg;
}

/* 2: the job's own allocation. */
static int sc__own_job(uint32_t job_id, int ncpus, long online, char *why, size_t whylen)
{
    int err = 0;
    job_info_msg_t *msg = sc__load(job_id, &err);

    if (!msg) {
        sc__why(why, whylen,
                "streamcard: prefetch/governor: cannot ask Slurm whether job %u has this node to "
                "itself: %s (" SC__VALID ")",
                (unsigned)job_id, slurm_strerror(err));
        return -1;
    }
    uint16_t shared = msg->job_array[0].shared;
    slurm_free_job_info_msg(msg);
    if (shared == JOB_SHARED_NONE)
        return 0; /* --exclusive: Slurm keeps every other job off the node */
    if (shared == JOB_SHARED_OK || shared == JOB_SHARED_USER || shared == JOB_SHARED_MCS) {
        sc__why(why, whylen,
                "streamcard: prefetch/governor change the whole node, and this node's policy "
                "requires the job to have it to itself: Slurm lets other jobs share it (%s) "
                "(" SC__VALID ")",
                shared == JOB_SHARED_OK ? "OverSubscribe=YES: --oversubscribe, or the "
                                          "partition's OverSubscribe=FORCE"
                                        : "--exclusive=user or mcs: the user's other jobs");
        return -1;
    }
    if (ncpus < online || online < 1) {
        sc__why(why, whylen,
                "streamcard: prefetch/governor change the whole node, and this node's policy "
                "requires the job to have it to itself: it has %d of %ld CPUs (" SC__VALID ")",
                ncpus, online);
        return -1;
    }
    return 0;
}

/* 1: the other jobs on the node now, each asked of Slurm. */
static int sc__other_jobs(uint32_t job_id, char *why, size_t whylen)
{
    char *text = NULL;
    uint32_t *jobs = NULL;
    size_t n = 0;
    int rc = sc_file_read_at(AT_FDCWD, "/proc/self/cgroup", 0, 1 << 16, &text, NULL);

    if (rc == 0)
        rc = sc_jobs_beside(text, job_id, "/sys/fs/cgroup", &jobs, &n);
    free(text);
    if (rc == -ENOENT) /* no cgroups of the job: the allocation (1) is all Slurm says */
        return 0;
    if (rc < 0) {
        sc__why(why, whylen,
                "streamcard: prefetch/governor: cannot read which jobs run on this node: %s "
                "(" SC__VALID ")",
                strerror(-rc));
        return -1;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int err = 0;
        job_info_msg_t *msg = sc__load(jobs[i], &err);
        if (!msg && err == ESLURM_INVALID_JOB_ID)
            continue; /* not a job of this cluster (any more): a cgroup left behind */
        if (!msg) {
            sc__why(why, whylen,
                    "streamcard: prefetch/governor: cannot ask Slurm about job %u, which has a "
                    "cgroup on this node: %s (" SC__VALID ")",
                    (unsigned)jobs[i], slurm_strerror(err));
            rc = -1;
            break;
        }
        const slurm_job_info_t *o = &msg->job_array[0];
        uint32_t base = o->job_state & JOB_STATE_BASE;
        if (base == JOB_RUNNING || base == JOB_SUSPENDED || (o->job_state & JOB_COMPLETING)) {
            sc__why(why, whylen,
                    "streamcard: node busy: job %u of user %s (uid %u) holds CPUs on this node, "
                    "and this node's policy requires a job to have it to itself for "
                    "prefetch/governor (valid: submit with --exclusive, wait for job %u to end, "
                    "or leave prefetch and governor unchanged)",
                    (unsigned)o->job_id, o->user_name ? o->user_name : "?", (unsigned)o->user_id,
                    (unsigned)o->job_id);
            rc = -1;
        }
        slurm_free_job_info_msg(msg);
    }
    free(jobs);
    return rc;
}

int sc_exclusive_check(uint32_t job_id, int ncpus, long online, char *why, size_t whylen)
{
    /* A job already here is named first: it says best why the node is not the job's. */
    if (sc__other_jobs(job_id, why, whylen) < 0)
        return -1;
    return sc__own_job(job_id, ncpus, online, why, whylen);
}
