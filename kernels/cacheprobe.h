/*
 * cacheprobe.h: the measured cache rule's probe (doc/contracts/gates.md, "The gates":
 * stream_array). `streamcard-stream --cache-probe BYTES` reads working sets of growing size, from
 * 256 KiB up to BYTES in steps of sqrt(2), with the given threads pinned one per CPU, and prints
 * the best read bandwidth of each (SC_PROBE_* lines of sc_trace_protocol.h). Where the
 * rate falls to the memory's for good is the last cache's edge: the core finds it
 * (sc_caches.h), the probe only measures.
 */
#ifndef SC_KERNELS_CACHEPROBE_H
#define SC_KERNELS_CACHEPROBE_H

#include <stddef.h>

/* The smallest working set measured, and the most the probe reads (a bound on its cost). */
#define SCT_PROBE_MIN_BYTES ((size_t)256 << 10)
#define SCT_PROBE_MAX_BYTES ((size_t)16 << 30)
#define SCT_PROBE_MAX_CPUS 1024

struct sct_probe_opts {
    size_t max_bytes;             /* the largest working set */
    int threads;                  /* OpenMP threads, thread t pinned to cpus[t % n_cpus] */
    int cpus[SCT_PROBE_MAX_CPUS]; /* the CPUs, as given; n_cpus == 0: not pinned */
    int n_cpus;
};

/*
 * Parses a comma-separated list of CPU numbers ("0,1,5") into o. 0, or -EINVAL after the
 * one-line usage error of prog.
 */
int sct_probe_parse_cpus(const char *prog, const char *list, struct sct_probe_opts *o);

/*
 * Measures and prints the probe's lines on stdout. Returns 0, or 1 after a one-line error
 * (the memory could not be had).
 */
int sct_probe_run(const char *prog, const struct sct_probe_opts *o);

#endif
