/*
 * sc_sysstate.h: the machine state recorded in every bundle, before and after a run:
 * kernel, CPU identity and microcode, online CPUs, SMT, THP, numa_balancing, taint, the
 * MSR write filter, per CPU the cpufreq governor and frequencies, and per NUMA node its
 * allocation counters (numa_hit, numa_miss, ...). Everything is
 * read under an sc_fsroot; what a machine does not offer is recorded as "unavailable".
 */
#ifndef SC_SYSSTATE_H
#define SC_SYSSTATE_H

#include "sc_fsroot.h"
#include "sc_kv.h"

#include <hwloc.h>

typedef struct sc_cpu_identity {
    char vendor[32];      /* "GenuineIntel", "AuthenticAMD"; arm64: "ARM", "Fujitsu", ... */
    int family, model;    /* x86: "cpu family", "model"; arm64: "CPU implementer", "CPU
                             part" (hex); -1 if absent */
    char model_name[128]; /* x86: "model name"; arm64: the part's name and r<variant>p<rev> */
    char microcode[32];
    char flags_hint[16]; /* "hypervisor" when the flags say so, else "" */
    char simd[16];       /* the widest vector instructions its flags (x86) or Features (arm64)
                            name: "avx512f", "avx2", "avx", "sse4_2", ..., "sve2", "sve",
                            "asimd"; "" when none is named */
} sc_cpu_identity;

/*
 * Parses the first processor block of a /proc/cpuinfo text, x86 or arm64. Returns 0, or
 * -EINVAL when it names no vendor (x86) nor implementer (arm64). A family or model that is
 * not a plain decimal (x86) or 0x-hexadecimal (arm64) number is -1.
 */
int sc_cpu_identity_parse(const char *text, sc_cpu_identity *id);

/* Reads proc/cpuinfo under root and parses it. Returns 0 or -errno. */
int sc_cpu_identity_read(const sc_fsroot *root, sc_cpu_identity *id);

/*
 * Appends the state as "key=value" lines to out. cpus selects the CPUs whose cpufreq
 * state is recorded (NULL: every online CPU). Returns 0 or -ENOMEM.
 */
int sc_sysstate_capture(const sc_fsroot *root, hwloc_const_bitmap_t cpus, sc_kv *out);

/* The counters of a node's numastat file kept (numa_hit, numa_miss, ... : six in Linux 6). */
#define SC_NUMASTAT_MAX_COUNTERS 16

/*
 * The NUMA allocation counters of every node under root (sys/devices/system/node/online, each
 * node<N>/numastat): into table (may be NULL) as numastat prints them, a comment line, a
 * header "node numa_hit numa_miss ..." and one row per node; into keys (may be NULL) as
 * "node<N>.<counter>=<pages>" lines. 0, -ENODATA when no node has one, or -errno.
 */
int sc_sysstate_numastat(const sc_fsroot *root, sc_kv *table, sc_kv *keys);

/* The selected value of a sysfs choice file ("always [madvise] never" -> "madvise"). */
void sc_sysstate_selected(const char *text, char *buf, size_t buflen);

#endif
