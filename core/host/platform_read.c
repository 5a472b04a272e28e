/*
 * platform_read.c: the platform layer's reads (see sc_platform.h): the CPU class's allowlist,
 * the online CPUs, the prefetch register and the governor of a CPU. The writes are
 * spank/platform.c's alone.
 */
#include "sc_platform.h"
#include "sc_cpulist.h"
#include "sc_why.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The allowlist: per CPU class, the one register that may be written and the bits of it
 * that may change (the prefetcher-disable bits of arch.h's table; set = disabled).
 */
static const struct sc__allow {
    sc_arch_kind kind;
    uint32_t reg;
    uint64_t mask;
} sc__allowlist[] = {
    {SC_ARCH_INTEL_CORE, SC_MSR_INTEL_MISC_FEATURE_CONTROL, 0xf}, /* L2, L2 adj, DCU, DCU IP */
    {SC_ARCH_INTEL_ATOM, SC_MSR_INTEL_MISC_FEATURE_CONTROL, 0x5}, /* L2, DCU */
    {SC_ARCH_AMD_ZEN3_5, SC_MSR_AMD_PREFETCH_CONTROL, 0x2f},      /* L1 stream/stride/region,
                                                                      L2 stream, UpDown */
};

static const struct sc__allow *sc__allowed(const sc_platform *p)
{
    for (size_t i = 0; i < sizeof(sc__allowlist) / sizeof(sc__allowlist[0]); i++)
        if (sc__allowlist[i].kind == p->arch.kind)
            return &sc__allowlist[i];
    return NULL;
}

int sc_platform_open(sc_platform *p, const char *sysroot, char *why, size_t whylen)
{
    char line[4096];
    int rc;

    memset(p, 0, sizeof(*p));
    p->root.fd = -1;
    rc = sc_fsroot_open(&p->root, sysroot);
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cannot open the sysroot %s: %s", sysroot ? sysroot : "/",
                strerror(-rc));
        return rc;
    }
    sc_arch_read(&p->root, &p->arch); /* an unidentified CPU is recorded in arch.reason */
    p->online = hwloc_bitmap_alloc();
    if (!p->online)
        return -ENOMEM;
    rc = sc_fsroot_read_linef(&p->root, line, sizeof(line), "sys/devices/system/cpu/online");
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cannot read sys/devices/system/cpu/online under %s: %s",
                p->root.path, strerror(-rc));
        return rc;
    }
    rc = sc_cpulist_parse(line, p->online, NULL, 0);
    if (rc < 0)
        sc__why(why, whylen, "streamcard: sys/devices/system/cpu/online under %s is malformed: %s",
                p->root.path, line);
    return rc;
}

void sc_platform_close(sc_platform *p)
{
    if (!p)
        return;
    sc_fsroot_close(&p->root);
    hwloc_bitmap_free(p->online);
    p->online = NULL;
}

int sc_platform_prefetch_reg(const sc_platform *p, uint32_t *reg, uint64_t *mask, char *why,
                             size_t whylen)
{
    const struct sc__allow *a = sc__allowed(p);

    if (!a) {
        sc__why(why, whylen, "%s", p->arch.reason);
        return -ENOTSUP;
    }
    *reg = a->reg;
    *mask = a->mask;
    return 0;
}

int sc_platform_check_cpu(const sc_platform *p, unsigned cpu, char *why, size_t whylen)
{
    if (cpu > SC_CPULIST_MAX_CPU || !hwloc_bitmap_isset(p->online, cpu)) {
        char *online = sc_cpulist_format(p->online);
        sc__why(why, whylen, "streamcard: cpu %u refused: it is not online under %s (valid: %s)",
                cpu, p->root.path, online ? online : "?");
        free(online);
        return -EINVAL;
    }
    return 0;
}

/* A register read or write must name the allowlisted register of this class, of an online CPU. */
int sc_platform_check_reg(const sc_platform *p, unsigned cpu, uint32_t reg, char *why,
                          size_t whylen)
{
    const struct sc__allow *a = sc__allowed(p);

    if (!a) {
        sc__why(why, whylen, "streamcard: MSR 0x%x refused: %s", (unsigned)reg, p->arch.reason);
        return -EPERM;
    }
    if (reg != a->reg) {
        sc__why(why, whylen,
                "streamcard: MSR 0x%x of cpu %u refused: not in the allowlist of %s (valid: 0x%x)",
                (unsigned)reg, cpu, sc_arch_name(p->arch.kind), (unsigned)a->reg);
        return -EPERM;
    }
    return sc_platform_check_cpu(p, cpu, why, whylen);
}

/*
 * Opens dev/cpu/N/msr under the root, never through a final symlink, and accepts only a
 * character device (production) or a regular file (the fake trees of the tests).
 */
int sc_platform_msr_open(const sc_platform *p, unsigned cpu, int flags, char *why, size_t whylen)
{
    char rel[64];
    struct stat st;

    snprintf(rel, sizeof(rel), "dev/cpu/%u/msr", cpu);
    int fd = sc_fsroot_openat(&p->root, rel, flags | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        sc__why(why, whylen, "streamcard: cannot open %s under %s: %s (is the msr module loaded?)",
                rel, p->root.path, strerror(-fd));
        return fd;
    }
    if (fstat(fd, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))) {
        sc__why(why, whylen, "streamcard: %s under %s is not an MSR device", rel, p->root.path);
        close(fd);
        return -EINVAL;
    }
    return fd;
}

/* 8 bytes at offset = register number, as the msr driver defines them. */
int sc_platform_msr_pread(int fd, uint32_t reg, uint64_t *value)
{
    ssize_t n;

    do {
        n = pread(fd, value, sizeof(*value), (off_t)reg);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    return n == (ssize_t)sizeof(*value) ? 0 : -EIO;
}

int sc_platform_msr_read(const sc_platform *p, unsigned cpu, uint32_t reg, uint64_t *value,
                         char *why, size_t whylen)
{
    int rc = sc_platform_check_reg(p, cpu, reg, why, whylen);

    if (rc < 0)
        return rc;
    int fd = sc_platform_msr_open(p, cpu, O_RDONLY, why, whylen);
    if (fd < 0)
        return fd;
    rc = sc_platform_msr_pread(fd, reg, value);
    if (rc < 0)
        sc__why(why, whylen, "streamcard: cannot read MSR 0x%x of cpu %u: %s", (unsigned)reg, cpu,
                strerror(-rc));
    close(fd);
    return rc;
}

int sc_platform_governor_read(const sc_platform *p, unsigned cpu, char *buf, size_t buflen,
                              char *why, size_t whylen)
{
    int rc = sc_platform_check_cpu(p, cpu, why, whylen);

    if (rc < 0)
        return rc;
    rc = sc_fsroot_read_linef(&p->root, buf, buflen,
                              "sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
    if (rc < 0)
        sc__why(why, whylen, "streamcard: cannot read the governor of cpu %u under %s: %s", cpu,
                p->root.path, strerror(-rc));
    return rc;
}

sc_pfstate sc_pfstate_of(uint64_t value, uint64_t mask)
{
    if ((value & mask) == mask)
        return SC_PFSTATE_OFF;
    if ((value & mask) == 0)
        return SC_PFSTATE_ON;
    return SC_PFSTATE_MIXED;
}

sc_pfstate sc_pfstate_merge(sc_pfstate a, sc_pfstate b)
{
    return a == b ? a : SC_PFSTATE_MIXED;
}

const char *sc_pfstate_name(sc_pfstate s)
{
    switch (s) {
    case SC_PFSTATE_ON:
        return "on";
    case SC_PFSTATE_OFF:
        return "off";
    default:
        return "mixed";
    }
}
