/*
 * scope.c: the CPUs one platform write reaches, from the topology under the sysroot (see
 * scope.h).
 */
#include "scope.h"
#include "sc_cpulist.h"
#include "sc_why.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

sc_scope sc_scope_of_prefetch(sc_arch_kind kind)
{
    switch (kind) {
    case SC_ARCH_INTEL_ATOM:
        /* pepc gives core scope, but the L2 it controls is the module's: assume the module. */
        return SC_SCOPE_MODULE;
    case SC_ARCH_INTEL_CORE:
    case SC_ARCH_AMD_ZEN3_5: /* per thread in likwid; sharing not established: the core */
    default:
        return SC_SCOPE_CORE;
    }
}

const char *sc_scope_name(sc_scope scope)
{
    switch (scope) {
    case SC_SCOPE_THREAD:
        return "thread";
    case SC_SCOPE_CORE:
        return "core";
    case SC_SCOPE_MODULE:
        return "module";
    default:
        return "package";
    }
}

/* The first of two cpu lists of cpu that can be read, parsed into out. */
static int sc__read_list(const sc_fsroot *root, unsigned cpu, const char *first, const char *second,
                         hwloc_bitmap_t out, char *why, size_t whylen)
{
    char text[4096], reason[160] = "";
    int rc = sc_fsroot_read_linef(root, text, sizeof(text), "sys/devices/system/cpu/cpu%u/%s", cpu,
                                  first);

    if (rc == -ENOENT && second)
        rc = sc_fsroot_read_linef(root, text, sizeof(text), "sys/devices/system/cpu/cpu%u/%s", cpu,
                                  second);
    if (rc == 0 && sc_cpulist_parse(text, out, reason, sizeof(reason)) < 0)
        rc = -EINVAL;
    if (rc == 0 && !hwloc_bitmap_isset(out, cpu)) {
        snprintf(reason, sizeof(reason), "it does not hold cpu %u", cpu);
        rc = -EINVAL;
    }
    if (rc < 0)
        sc__why(why, whylen, "cannot read which CPUs share cpu %u's %s under %s: %s", cpu, first,
                root->path, *reason ? reason : strerror(-rc));
    return rc;
}

int sc_scope_cpus(const sc_fsroot *root, unsigned cpu, sc_scope scope, hwloc_bitmap_t out,
                  char *why, size_t whylen)
{
    switch (scope) {
    case SC_SCOPE_THREAD:
        return hwloc_bitmap_only(out, cpu) < 0 ? -ENOMEM : 0;
    case SC_SCOPE_CORE:
        return sc__read_list(root, cpu, "topology/thread_siblings_list", "topology/core_cpus_list",
                             out, why, whylen);
    case SC_SCOPE_MODULE:
        return sc__read_list(root, cpu, "cache/index2/shared_cpu_list",
                             "topology/cluster_cpus_list", out, why, whylen);
    default:
        return sc__read_list(root, cpu, "topology/package_cpus_list", "topology/core_siblings_list",
                             out, why, whylen);
    }
}

int sc_scope_governor_cpus(const sc_fsroot *root, unsigned cpu, hwloc_bitmap_t out, char *why,
                           size_t whylen)
{
    return sc__read_list(root, cpu, "cpufreq/related_cpus", NULL, out, why, whylen);
}
