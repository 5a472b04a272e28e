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

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

/* Cycles and instructions are generic events; the packed and scalar FP instructions
 * behind the SIMD share are the CPU's raw events (simdevents.h), optional: where they are
 * unknown or cannot be opened the share is "unavailable" and cycles/IPC still count. */
enum sct_perf_event {
    SCT_PERF_CYCLES,
    SCT_PERF_INSTRUCTIONS,
    SCT_PERF_FP_PACKED,
    SCT_PERF_FP_SCALAR,
    SCT_PERF_NEVENTS
};
#define SCT_PERF_NREQUIRED 2 /* cycles and instructions */

/* One thread's counters: the file descriptors, or why there are none. */
struct sct_perf {
    int fd[SCT_PERF_NEVENTS]; /* -1 when closed */
    int available;            /* 1: cycles and instructions opened */
    int simd_available;       /* 1: the packed and scalar FP events opened too */
    char reason[160];         /* when not available: what failed and the likely cause */
    char simd_reason[280];    /* when the SIMD events are not available: why */
};

/* What some threads counted, summed; also the unit a workload reports. */
struct sct_perf_counts {
    uint64_t value[SCT_PERF_NEVENTS];
    int threads;           /* threads whose counts were added */
    int simd_threads;      /* of those, threads whose FP events were counted too */
    int scaled;            /* 1 when some count was multiplexed and scaled (an estimate) */
    char reason[160];      /* first reason a thread had no counters; "" when all had */
    char simd_reason[280]; /* first reason a thread had no FP events; "" when all had */
};

/* A set with every descriptor closed (before sct_perf_open, or never opened). */
void sct_perf_init(struct sct_perf *p);

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
 * The same as a JSON object: {"status": "ok", "cycles": n, "instructions": n, "ipc": x,
 * "threads": n, "scaled": false} or {"status": "unavailable: <reason>"}; NULL when out of
 * memory.
 */
json_object *sct_perf_json(const struct sct_perf_counts *total);

/*
 * The SIMD share of the FP arithmetic instructions, packed / (packed + scalar), after
 * `prefix`: "simd_share: 0.981 packed=... scalar=... threads=2" or
 * "simd_share: unavailable: <reason>" (0 or -EIO); and as JSON, {"status": "ok", "share":
 * x, "fp_packed": n, "fp_scalar": n, "threads": n} or {"status": "unavailable: <reason>"}
 * (NULL when out of memory).
 */
int sct_perf_print_simd(FILE *out, const char *prefix, const struct sct_perf_counts *total);
json_object *sct_perf_json_simd(const struct sct_perf_counts *total);

#endif
