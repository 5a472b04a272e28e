/*
 * simdevents.h: which raw PMU events count packed (SIMD) and scalar floating-point
 * instructions on this CPU, for the SIMD share of a workload's arithmetic.
 *
 * No generic perf event counts SIMD instructions; the raw events are the vendor's own.
 * Intel cores since Broadwell have FP_ARITH_INST_RETIRED (event 0xC7): umasks 0x01/0x02
 * count scalar double/single, 0x04..0x80 the 128-, 256- and 512-bit packed forms; one
 * counter can take several umasks at once. AMD's PMU counts retired SSE/AVX operations
 * (FLOPs), not packed against scalar instructions, so there is no share to report there;
 * hybrid Intel parts (Alder Lake and later clients) have two PMUs (cpu_core, cpu_atom)
 * whose raw events are not PERF_TYPE_RAW: not covered either. Anything not known is
 * "unavailable" with the reason, never guessed.
 */
#ifndef SC_KERNELS_SIMDEVENTS_H
#define SC_KERNELS_SIMDEVENTS_H

#include <stddef.h>
#include <stdint.h>

struct sct_simd_events {
    int known;       /* 1: packed and scalar below are this CPU's raw event configs */
    uint64_t packed; /* perf_event_attr.config for PERF_TYPE_RAW */
    uint64_t scalar;
    char why[240]; /* when not known: why (vendor, family and model named) */
};

/* Chooses the events for the CPU that cpuinfo (the text of /proc/cpuinfo) describes. */
void sct_simd_events_for(const char *cpuinfo, struct sct_simd_events *ev);

#endif
