/*
 * taskcpu.h: CPU time of every thread of this process, from /proc/self/task, so a workload
 * can show where the CPU went during its main loop: its own compute threads, and threads it
 * did not create itself (an idle OpenMP team spinning at a barrier, a BLAS library's
 * workers). Threads spinning against the workload's threads are what makes a run slow when
 * OMP_WAIT_POLICY or a BLAS thread count is set badly; this is the evidence.
 *
 * Per thread the nanoseconds on a CPU come from /proc/self/task/<tid>/schedstat (first
 * field); where the kernel lacks it, from utime + stime in .../stat (clock ticks).
 */
#ifndef SC_KERNELS_TASKCPU_H
#define SC_KERNELS_TASKCPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sct_task_time {
    pid_t tid;
    uint64_t ns;   /* CPU time so far */
    int cpu;       /* the CPU it last ran on (stat field 39); -1 when unknown */
    char comm[16]; /* the thread's name */
};

/* All threads now. */
struct sct_task_snapshot {
    struct sct_task_time *t;
    size_t n;
    const char *source; /* "schedstat" or "stat" */
};

/* Take a snapshot: 0, -ENOMEM, or -errno when /proc/self/task cannot be read. */
int sct_task_snapshot_take(struct sct_task_snapshot *s);

/* Free (takes a zeroed snapshot). */
void sct_task_snapshot_free(struct sct_task_snapshot *s);

/* CPU seconds thread tid used between the two snapshots (threads born in between count
 * from 0; a thread gone by `after` contributes nothing). */
double sct_task_seconds(const struct sct_task_snapshot *before,
                        const struct sct_task_snapshot *after, pid_t tid);

#endif
