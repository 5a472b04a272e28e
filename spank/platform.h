/*
 * platform.h: the only code of streamcard that writes as root: prefetch MSRs
 * (dev/cpu/N/msr) and the cpufreq governor (sys/devices/system/cpu/cpuN/cpufreq/...). The
 * reads it builds on (the sysroot, the CPU class and its allowlist, a register, a governor)
 * are the core's (sc_platform.h), shared with the `streamcard` command's readback as root.
 *
 * Requests are typed ({cpu, reg, mask, value}); a write is made only when it matches the
 * allowlist entry of the identified CPU class exactly (same register, mask a subset of the
 * writable bits, value inside the mask) and the CPU is online under the root. Writes are
 * read-modify-write: only the masked bits change. Every write is read back. Nothing here
 * parses user text: a governor name is checked against a fixed charset and then against the
 * exact words of the CPU's scaling_available_governors before it is written.
 *
 * Errors: 0 or -errno, with one line in why (may be NULL) saying what failed and why.
 */
#ifndef SC_PLATFORM_WRITE_H
#define SC_PLATFORM_WRITE_H

#include "sc_platform.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One MSR write: set the bits of mask in reg of cpu to those of value. */
typedef struct sc_msr_request {
    unsigned cpu;
    uint32_t reg;
    uint64_t mask;
    uint64_t value;
} sc_msr_request;

/* Checks a request against the allowlist and the online CPUs. Returns 0, -EPERM or -EINVAL. */
int sc_platform_check(const sc_platform *p, const sc_msr_request *req, char *why, size_t whylen);

/*
 * Read-modify-write: new = (old & ~mask) | (value & mask), then read back. old and readback
 * (either may be NULL) receive the value before and after. Returns 0; -EPERM/-EINVAL when
 * refused (nothing opened for writing); -EIO when the masked bits did not read back as
 * written; other -errno from the device.
 */
int sc_platform_msr_write(const sc_platform *p, const sc_msr_request *req, uint64_t *old,
                          uint64_t *readback, char *why, size_t whylen);

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

#endif
