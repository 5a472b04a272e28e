/*
 * sc_numa_maps.h: the anonymous memory of a process per NUMA node, from the text of
 * /proc/<pid>/numa_maps: every line of an anonymous mapping ("anon=") gives, per node,
 * N<node>=<pages> of kernelpagesize_kB each. One reader for the core's memory_node gate
 * and the MPI ranks' own snapshots (libc only).
 */
#ifndef SC_NUMA_MAPS_H
#define SC_NUMA_MAPS_H

/* Called once per N<node>=<pages> word of an anonymous mapping, with its bytes. */
typedef void (*sc_numa_maps_fn)(long node, unsigned long long bytes, void *ctx);

/*
 * Calls fn for every node entry of every anonymous mapping of text (NUL-terminated; the
 * whole of each line is read, however long). Returns how many anonymous mappings there
 * were (0: none), or -ENOMEM.
 */
int sc_numa_maps_anon(const char *text, sc_numa_maps_fn fn, void *ctx);

#endif
