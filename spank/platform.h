/*
 * platform.h: the only code of streamcard that writes as root: prefetch MSRs
 * (dev/cpu/N/msr) and the cpufreq governor (sys/devices/system/cpu/cpuN/cpufreq/...).
 *
 * Everything is looked up under a sysroot ("/" in production, a fake tree in tests) with
 * openat2(RESOLVE_IN_ROOT) and O_NOFOLLOW, so no path ever leaves the root. Requests are
 * typed ({cpu, reg, mask, value}); a write is made only when it matches the allowlist entry
 * of the identified CPU class exactly (same register, mask a subset of the writable bits,
 * value inside the mask) and the CPU is online under the root. Writes are read-modify-write:
 * only the masked bits change. Every write is read back. Nothing here parses user text: a
 * governor name is checked against a fixed charset and then against the exact words of the
 * CPU's scaling_available_governors before it is written.
 *
 * Errors: 0 or -errno, with one line in why (may be NULL) saying what failed and why.
 */
#ifndef SC_PLATFORM_H
#define SC_PLATFORM_H

#include "arch.h"
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

/* One MSR write: set the bits of mask in reg of cpu to those of value. */
typedef struct sc_msr_request {
    unsigned cpu;
    uint32_t reg;
    uint64_t mask;
    uint64_t value;
} sc_msr_request;

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

/* Checks a request against the allowlist and the online CPUs. Returns 0, -EPERM or -EINVAL. */
int sc_platform_check(const sc_platform *p, const sc_msr_request *req, char *why, size_t whylen);

/* Reads an allowlisted register of an online CPU. Returns 0 or -errno. */
int sc_platform_msr_read(const sc_platform *p, unsigned cpu, uint32_t reg, uint64_t *value,
                         char *why, size_t whylen);

/*
 * Read-modify-write: new = (old & ~mask) | (value & mask), then read back. old and readback
 * (either may be NULL) receive the value before and after. Returns 0; -EPERM/-EINVAL when
 * refused (nothing opened for writing); -EIO when the masked bits did not read back as
 * written; other -errno from the device.
 */
int sc_platform_msr_write(const sc_platform *p, const sc_msr_request *req, uint64_t *old,
                          uint64_t *readback, char *why, size_t whylen);

/* Reads scaling_governor of an online CPU. Returns 0 or -errno (-ENOENT: no cpufreq). */
int sc_platform_governor_read(const sc_platform *p, unsigned cpu, char *buf, size_t buflen,
                              char *why, size_t whylen);

/*
 * Returns 0 when governor is one exact word of the CPU's scaling_available_governors,
 * -ENOTSUP when it is not offered (why lists what is), -EINVAL for a malformed name,
 * -ENOENT when the CPU has no cpufreq.
 */
int sc_platform_governor_offered(const sc_platform *p, unsigned cpu, const char *governor,
                                 char *why, size_t whylen);

/*
 * Writes an offered governor and reads it back into readback (may be NULL). Returns 0,
 * the errors of sc_platform_governor_offered(), or -EIO when the readback differs.
 */
int sc_platform_governor_write(const sc_platform *p, unsigned cpu, const char *governor,
                               char *readback, size_t rblen, char *why, size_t whylen);

/* The prefetch state of value under mask, and of two states together. */
sc_pfstate sc_pfstate_of(uint64_t value, uint64_t mask);
sc_pfstate sc_pfstate_merge(sc_pfstate a, sc_pfstate b);
/* "on", "off", "mixed". */
const char *sc_pfstate_name(sc_pfstate s);

#endif
