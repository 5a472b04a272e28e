/*
 * perfcount.h: hardware counters of the calling thread (cycles, instructions) through
 * perf_event_open, for any workload that wants IPC next to its figures.
 *
 * Counters are per thread: a thread opens its own set, starts it before its work, stops
 * it after and adds what it counted into a total the workload sums over its threads
 * (sct_perf_add). User-space only (exclude_kernel), which perf_event_paranoid <= 2 allows
 * for one's own threads. Where the machine does not offer a counter (a VM without a
 * virtual PMU, a seccomp filter, paranoid 3) the set is "unavailable" with the reason,
 * e.g. "perf_event_open cycles: No such file or directory (no hardware PMU: a VM?)", and
 * every call on it is a no-op: the workload runs as before and records the reason.
 */
#ifndef SC_KERNELS_PERFCOUNT_H
#define SC_KERNELS_PERFCOUNT_H

#include <stdint.h>
#include <stdio.h>

/* Why no SIMD share is reported: the generic perf events have none, and raw events differ
 * per PMU (Intel FP_ARITH_INST_RETIRED, AMD retired SSE/AVX ops). */
#define SCT_PERF_SIMD_REASON                                                                       \
    "no generic perf event counts SIMD instructions; PMU-specific raw events not configured"

enum sct_perf_event { SCT_PERF_CYCLES, SCT_PERF_INSTRUCTIONS, SCT_PERF_NEVENTS };

/* One thread's counters: the file descriptors, or why there are none. */
struct sct_perf {
    int fd[SCT_PERF_NEVENTS]; /* -1 when closed */
    int available;            /* 1: every event opened */
    char reason[160];         /* when not available: what failed and the likely cause */
};

/* What some threads counted, summed; also the unit a workload reports. */
struct sct_perf_counts {
    uint64_t value[SCT_PERF_NEVENTS];
    int threads;      /* threads whose counts were added */
    int scaled;       /* 1 when some count was multiplexed and scaled (an estimate) */
    char reason[160]; /* first reason a thread had no counters; "" when all had */
};

/*
 * Open the counters of the calling thread, disabled. Returns 0, or -errno of the first
 * event that failed (p->reason says which and why; p is then a no-op set). Never fails
 * for lack of counters in a way that should stop a workload.
 */
int sct_perf_open(struct sct_perf *p);

/* Reset and enable / disable the counters; no-ops on an unavailable set. */
void sct_perf_start(struct sct_perf *p);
void sct_perf_stop(struct sct_perf *p);

/*
 * Add what p counted into total (thread-safe: callers from many threads may share one
 * total), and close p. An unavailable set only contributes its reason.
 */
void sct_perf_add(struct sct_perf *p, struct sct_perf_counts *total);

/* Zero a total before threads add into it. */
void sct_perf_counts_init(struct sct_perf_counts *total);

/*
 * Print the total as key=value words on one line after `prefix`, e.g.
 * "counters: cycles=123 instructions=456 ipc=3.70 threads=2" or
 * "counters: unavailable: perf_event_open cycles: ...". Returns 0 or -EIO.
 */
int sct_perf_print(FILE *out, const char *prefix, const struct sct_perf_counts *total);

/*
 * The same as a JSON object: {"cycles": n, "instructions": n, "ipc": x, "threads": n,
 * "scaled": false} or {"status": "unavailable: <reason>"}. Returns 0 or -EIO.
 */
int sct_perf_json(FILE *out, const struct sct_perf_counts *total);

#endif
