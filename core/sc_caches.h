/*
 * sc_caches.h: the last-level caches a STREAM run's CPUs use (doc/design.md, "The gates":
 * stream_array). STREAM's rule: each array at least 4 times the sum of the last-level
 * caches in use, else the rates measure a cache, not memory. The sizes come from hwloc's
 * topology of the machine the workload runs on, and are kept in the bundle as
 * platform/caches.txt, so verify judges the rule from the bundle alone.
 */
#ifndef SC_CACHES_H
#define SC_CACHES_H

#include <hwloc.h>
#include <stdint.h>

/* STREAM's factor: an array holds at least this many times the last-level caches. */
#define SC_CACHES_ARRAY_FACTOR 4

/* The distinct last-level caches that hold a CPU of a set. */
typedef struct sc_llc {
    unsigned level;     /* 3 for an L3; 0 when unknown */
    unsigned instances; /* how many distinct caches */
    uint64_t bytes;     /* their sum */
} sc_llc;

/*
 * The last-level caches of cpus in topo (this machine's, loaded by the caller: loading one
 * starts hwloc's plugins, which costs milliseconds, so a caller loads it once): for each CPU
 * the data or unified cache farthest from it, each cache counted once. Returns 0, -ENODATA
 * when hwloc shows no cache above those CPUs, -EINVAL for an empty set or no topology,
 * -ENOMEM.
 */
int sc_caches_llc(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, sc_llc *out);

/* platform/caches.txt: key=value lines (llc_level, llc_instances, llc_bytes), malloc'd. */
char *sc_caches_text(const sc_llc *llc);

/* Reads what sc_caches_text() wrote. 0, or -ENODATA when llc_bytes is absent or 0. */
int sc_caches_parse(const char *text, sc_llc *out);

/* The smallest array_size (8-byte elements) that holds the rule against llc. */
uint64_t sc_caches_min_array_size(const sc_llc *llc);

#endif
