/*
 * scope.h: how far one platform write reaches. A prefetch register is one per thread,
 * core, module or package, depending on the CPU class; writing it for one CPU changes it
 * for every CPU that shares it (an Intel core's SMT siblings). A cpufreq policy covers the
 * CPUs of its related_cpus. When the job does not hold the whole node (require_exclusive=no),
 * a change is allowed only when everything it reaches is the job's
 * (doc/contracts/platform-facts.md, "Platform facts per vendor"). Read-only: every file is looked
 * up under the sysroot.
 */
#ifndef SC_SPANK_SCOPE_H
#define SC_SPANK_SCOPE_H

#include "sc_arch.h"
#include "sc_fsroot.h"

#include <hwloc.h>
#include <stddef.h>

typedef enum sc_scope {
    SC_SCOPE_THREAD = 0, /* one instance per hardware thread */
    SC_SCOPE_CORE,       /* shared by a core's SMT threads */
    SC_SCOPE_MODULE,     /* shared by the cores of a module (one L2) */
    SC_SCOPE_PACKAGE,    /* shared by a whole package */
} sc_scope;

/* The scope of the prefetch register of a class (doc/contracts/platform-facts.md). */
sc_scope sc_scope_of_prefetch(sc_arch_kind kind);
/* "thread", "core", "module", "package". */
const char *sc_scope_name(sc_scope scope);

/*
 * The CPUs that share cpu's instance of a register of scope, read under root: thread: cpu;
 * core: topology/thread_siblings_list (else core_cpus_list); module: cache/index2/
 * shared_cpu_list (the L2 the cores of a module share; else topology/cluster_cpus_list);
 * package: topology/package_cpus_list (else core_siblings_list). Returns 0, or -errno with
 * one line in why (-ENOENT: no such file: the scope cannot be known, refuse).
 */
int sc_scope_cpus(const sc_fsroot *root, unsigned cpu, sc_scope scope, hwloc_bitmap_t out,
                  char *why, size_t whylen);

/* The CPUs of cpu's cpufreq policy (cpufreq/related_cpus), as sc_scope_cpus(). */
int sc_scope_governor_cpus(const sc_fsroot *root, unsigned cpu, hwloc_bitmap_t out, char *why,
                           size_t whylen);

#endif
