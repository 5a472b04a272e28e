/*
 * sc_cpulist.h: Linux cpulist syntax ("0-3,8,10-11") to and from hwloc bitmaps.
 *
 * The bitmaps hold OS cpu numbers (as sched_setaffinity and /proc use them), never
 * Slurm's abstract core ids.
 */
#ifndef SC_CPULIST_H
#define SC_CPULIST_H

#include <hwloc.h>
#include <stddef.h>

/* Highest cpu number accepted; protects against "0-4000000000" allocating gigabytes. */
#define SC_CPULIST_MAX_CPU 65535

/*
 * Parses text into set (which is emptied first). Returns 0, or -EINVAL with a reason
 * such as "range 3-1 is reversed" written to why (may be NULL).
 */
int sc_cpulist_parse(const char *text, hwloc_bitmap_t set, char *why, size_t whylen);

/* Returns the cpulist text of set ("" for an empty set), malloc'd; NULL on ENOMEM. */
char *sc_cpulist_format(hwloc_const_bitmap_t set);

/*
 * One hardware thread per physical core of cpus, as topo (loaded) groups them: of each core
 * the lowest-numbered CPU of cpus is kept (a CPU topo does not know is kept as it is).
 * out gets the result. 0, or -ENOMEM.
 */
int sc_cpulist_one_per_core(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out);

#endif
