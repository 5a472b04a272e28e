/*
 * sc_bind.h: bind the calling process (and everything it later starts) to a CPU set and
 * a NUMA node: the card's cpu_list and memory_node. Used between fork and exec by the
 * observer, and in the job's task by the SPANK plugin.
 */
#ifndef SC_BIND_H
#define SC_BIND_H

#include <hwloc.h>

/*
 * Sets the CPU affinity to cpus (NULL: unchanged) and a strict membind to memory_node
 * (-1: unchanged) with libnuma. Returns 0 or -errno (EINVAL: a CPU or node not allowed).
 */
int sc_bind_self(hwloc_const_bitmap_t cpus, long memory_node);

#endif
