/*
 * sc_platform.h: the platform layer's reads, shared by the plugin (spank/, which also writes:
 * spank/platform.h) and the `streamcard` command, which as root outside a job reads the
 * prefetch registers and governors of the card's CPUs before and after the workload
 * (doc/contracts/platform.md, "Read by the CLI as root"). Nothing here writes.
 *
 * Everything is looked up under a sysroot ("/" in production, a fake tree in tests) with
 * openat2(RESOLVE_IN_ROOT) and O_NOFOLLOW, so no path ever leaves the root. The allowlist
 * (per CPU class the one prefetch register and its writable bits, section 14) lives here, as
 * const data: a register is read only when it is the allowlisted one of the identified class,
 * and spank/platform.c writes only what the same table allows.
 *
 * Errors: 0 or -errno, with one line in why (may be NULL) saying what failed and why.
 */
#ifndef SC_PLATFORM_H
#define SC_PLATFORM_H

#include "sc_arch.h"
#include "sc_fsroot.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_MSR_INTEL_MISC_FEATURE_CONTROL 0x1a4u
#define SC_MSR_AMD_PREFETCH_CONTROL 0xc0000108u

/* Longest governor name (the kernel's CPUFREQ_NAME_LEN is 16 with the NUL). */
#define SC_GOVERNOR_MAX 16

typedef struct sc_platform {
    sc_fsroot root;
    sc_arch arch;          /* the CPU class; arch.reason says why when unsupported */
    hwloc_bitmap_t online; /* online CPUs under the root */
} sc_platform;

/* Prefetch state of a register value under the prefetch mask (set bits = disabled). */
typedef enum sc_pfstate {
    SC_PFSTATE_ON = 0, /* no mask bit set: every prefetcher enabled */
    SC_PFSTATE_OFF,    /* every mask bit set: every prefetcher disabled */
    SC_PFSTATE_MIXED,
} sc_pfstate;

/*
 * Opens the sysroot (NULL: "/"), identifies the CPU class and reads the online CPUs. An
 * unsupported CPU class is not an error (governors still work): see p->arch. Returns 0 or
 * -errno; sc_platform_close() is safe after a failed open.
 */
int sc_platform_open(sc_platform *p, const char *sysroot, char *why, size_t whylen);
void sc_platform_close(sc_platform *p);

/*
 * The allowlist entry of the identified class: its prefetch register and writable mask.
 * Returns 0, or -ENOTSUP with p->arch.reason in why.
 */
int sc_platform_prefetch_reg(const sc_platform *p, uint32_t *reg, uint64_t *mask, char *why,
                             size_t whylen);

/* cpu is online under the root. Returns 0, or -EINVAL with the online CPUs in why. */
int sc_platform_check_cpu(const sc_platform *p, unsigned cpu, char *why, size_t whylen);

/* reg is the allowlisted register of this class, of an online CPU. 0, -EPERM or -EINVAL. */
int sc_platform_check_reg(const sc_platform *p, unsigned cpu, uint32_t reg, char *why,
                          size_t whylen);

/*
 * Opens dev/cpu/N/msr under the root with flags (O_RDONLY here; O_RDWR only from
 * spank/platform.c), never through a final symlink, and accepts only a character device
 * (production) or a regular file (the fake trees of the tests). A descriptor or -errno.
 */
int sc_platform_msr_open(const sc_platform *p, unsigned cpu, int flags, char *why, size_t whylen);

/* The 8 bytes at offset reg of an opened msr device. 0, -errno, or -EIO when short. */
int sc_platform_msr_pread(int fd, uint32_t reg, uint64_t *value);

/* Reads an allowlisted register of an online CPU. Returns 0 or -errno. */
int sc_platform_msr_read(const sc_platform *p, unsigned cpu, uint32_t reg, uint64_t *value,
                         char *why, size_t whylen);

/* Reads scaling_governor of an online CPU. Returns 0 or -errno (-ENOENT: no cpufreq). */
int sc_platform_governor_read(const sc_platform *p, unsigned cpu, char *buf, size_t buflen,
                              char *why, size_t whylen);

/* The prefetch state of value under mask, and of two states together. */
sc_pfstate sc_pfstate_of(uint64_t value, uint64_t mask);
sc_pfstate sc_pfstate_merge(sc_pfstate a, sc_pfstate b);
/* "on", "off", "mixed". */
const char *sc_pfstate_name(sc_pfstate s);

#endif
