/*
 * sc_machine.h: facts about the node a workload runs on, read under a sysroot.
 *
 * These are what the machine-dependent card checks need: which CPUs are online, which
 * NUMA nodes exist and how much memory each has, which scaling governors cpufreq offers.
 * Everything is read from files under an sc_fsroot (sys/devices/system/cpu/online,
 * sys/devices/system/node/nodeN/meminfo, .../cpufreq/scaling_available_governors), so
 * tests can describe a 128-core two-socket node with a directory tree.
 */
#ifndef SC_MACHINE_H
#define SC_MACHINE_H

#include "sc_fsroot.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct sc_machine {
    char hostname[256];
    hwloc_bitmap_t cpus_online;
    hwloc_bitmap_t cpus_allowed; /* where this process may run; a copy of online if unknown */
    hwloc_bitmap_t nodes;        /* NUMA nodes with memory */
    hwloc_bitmap_t mems_allowed; /* nodes this process may allocate on; copy of nodes if unknown */
    uint64_t *node_mem_bytes;    /* MemTotal per node, indexed by node number */
    unsigned n_node_mem;
    bool has_cpufreq;  /* cpufreq present on every online CPU */
    char *governors;   /* governors offered on every online CPU, space-separated; NULL */
} sc_machine;

/*
 * Reads the facts under root. cpus_allowed and mems_allowed start as copies of
 * cpus_online and nodes; sc_machine_restrict_to_self() narrows them. Returns 0 or -errno.
 */
int sc_machine_load(sc_machine *m, const sc_fsroot *root);

/* Narrows cpus_allowed/mems_allowed to this process (sched_getaffinity, /proc/self/status). */
int sc_machine_restrict_to_self(sc_machine *m);

void sc_machine_free(sc_machine *m);

/* True when governor is one of m->governors. */
bool sc_machine_offers_governor(const sc_machine *m, const char *governor);

#endif
