/*
 * platform.c: the privileged writes of streamcard (see platform.h). Keep this file small
 * and free of parsing: it is the one an auditor has to read.
 */
#include "platform.h"
#include "why.h"
#include "sc_cpulist.h"
#include "sc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
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

static int sc__check_cpu(const sc_platform *p, unsigned cpu, char *why, size_t whylen)
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

/* A register read must name the allowlisted register of this class, of an online CPU. */
static int sc__check_reg(const sc_platform *p, unsigned cpu, uint32_t reg, char *why, size_t whylen)
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
    return sc__check_cpu(p, cpu, why, whylen);
}

int sc_platform_check(const sc_platform *p, const sc_msr_request *req, char *why, size_t whylen)
{
    const struct sc__allow *a = sc__allowed(p);
    int rc = sc__check_reg(p, req->cpu, req->reg, why, whylen);

    if (rc < 0)
        return rc;
    if (req->mask == 0 || (req->mask & ~a->mask) != 0) {
        sc__why(why, whylen,
                "streamcard: MSR 0x%x write refused: mask 0x%llx is not within the writable bits "
                "of %s (valid: a non-empty subset of 0x%llx)",
                (unsigned)req->reg, (unsigned long long)req->mask, sc_arch_name(p->arch.kind),
                (unsigned long long)a->mask);
        return -EPERM;
    }
    if ((req->value & ~req->mask) != 0) {
        sc__why(why, whylen,
                "streamcard: MSR 0x%x write refused: value 0x%llx has bits outside mask 0x%llx",
                (unsigned)req->reg, (unsigned long long)req->value, (unsigned long long)req->mask);
        return -EINVAL;
    }
    return 0;
}

/*
 * Opens dev/cpu/N/msr under the root, never through a final symlink, and accepts only a
 * character device (production) or a regular file (the fake trees of the tests).
 */
static int sc__msr_open(const sc_platform *p, unsigned cpu, int flags, char *why, size_t whylen)
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
static int sc__msr_io(int fd, uint32_t reg, uint64_t *value, bool write)
{
    ssize_t n;

    do {
        n = write ? pwrite(fd, value, sizeof(*value), (off_t)reg)
                  : pread(fd, value, sizeof(*value), (off_t)reg);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    return n == (ssize_t)sizeof(*value) ? 0 : -EIO;
}

int sc_platform_msr_read(const sc_platform *p, unsigned cpu, uint32_t reg, uint64_t *value,
                         char *why, size_t whylen)
{
    int rc = sc__check_reg(p, cpu, reg, why, whylen);

    if (rc < 0)
        return rc;
    int fd = sc__msr_open(p, cpu, O_RDONLY, why, whylen);
    if (fd < 0)
        return fd;
    rc = sc__msr_io(fd, reg, value, false);
    if (rc < 0)
        sc__why(why, whylen, "streamcard: cannot read MSR 0x%x of cpu %u: %s", (unsigned)reg, cpu,
                strerror(-rc));
    close(fd);
    return rc;
}

int sc_platform_msr_write(const sc_platform *p, const sc_msr_request *req, uint64_t *old,
                          uint64_t *readback, char *why, size_t whylen)
{
    uint64_t before = 0, after = 0, want;
    int fd, rc = sc_platform_check(p, req, why, whylen);

    if (rc < 0)
        return rc;
    fd = sc__msr_open(p, req->cpu, O_RDWR, why, whylen);
    if (fd < 0)
        return fd;
    rc = sc__msr_io(fd, req->reg, &before, false);
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cannot read MSR 0x%x of cpu %u: %s", (unsigned)req->reg,
                req->cpu, strerror(-rc));
        goto out_close;
    }
    after = before;
    want = (before & ~req->mask) | (req->value & req->mask);
    if (want != before) { /* nothing to write when the bits already hold the value */
        rc = sc__msr_io(fd, req->reg, &want, true);
        if (rc < 0) {
            sc__why(why, whylen, "streamcard: cannot write MSR 0x%x of cpu %u: %s",
                    (unsigned)req->reg, req->cpu, strerror(-rc));
            goto out_close;
        }
        rc = sc__msr_io(fd, req->reg, &after, false);
        if (rc < 0) {
            sc__why(why, whylen, "streamcard: cannot read back MSR 0x%x of cpu %u: %s",
                    (unsigned)req->reg, req->cpu, strerror(-rc));
            goto out_close;
        }
    }
    if ((after & req->mask) != (req->value & req->mask)) {
        sc__why(why, whylen,
                "streamcard: MSR readback mismatch: cpu %u reg 0x%x: expected 0x%llx under mask "
                "0x%llx, got 0x%llx",
                req->cpu, (unsigned)req->reg, (unsigned long long)(req->value & req->mask),
                (unsigned long long)req->mask, (unsigned long long)after);
        rc = -EIO;
    }
out_close:
    close(fd);
    if (old)
        *old = before;
    if (readback)
        *readback = after;
    return rc;
}

/* A governor name is 1..15 characters of [A-Za-z0-9_-]: nothing that could form a path. */
static int sc__check_governor_name(const char *governor, char *why, size_t whylen)
{
    size_t n = governor ? strlen(governor) : 0;

    if (n == 0 || n >= SC_GOVERNOR_MAX ||
        strspn(governor, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n) {
        sc__why(why, whylen,
                "streamcard: governor name refused: it must be 1-%d letters, digits, '_' or '-'",
                SC_GOVERNOR_MAX - 1);
        return -EINVAL;
    }
    return 0;
}

int sc_platform_governor_read(const sc_platform *p, unsigned cpu, char *buf, size_t buflen,
                              char *why, size_t whylen)
{
    int rc = sc__check_cpu(p, cpu, why, whylen);

    if (rc < 0)
        return rc;
    rc = sc_fsroot_read_linef(&p->root, buf, buflen,
                              "sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
    if (rc < 0)
        sc__why(why, whylen, "streamcard: cannot read the governor of cpu %u under %s: %s", cpu,
                p->root.path, strerror(-rc));
    return rc;
}

int sc_platform_governor_offered(const sc_platform *p, unsigned cpu, const char *governor,
                                 char *why, size_t whylen)
{
    char list[1024];
    int rc = sc__check_governor_name(governor, why, whylen);

    if (rc == 0)
        rc = sc__check_cpu(p, cpu, why, whylen);
    if (rc < 0)
        return rc;
    rc = sc_fsroot_read_linef(&p->root, list, sizeof(list),
                              "sys/devices/system/cpu/cpu%u/cpufreq/scaling_available_governors",
                              cpu);
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cpu %u has no cpufreq governors under %s: %s", cpu,
                p->root.path, strerror(-rc));
        return rc;
    }
    char words[sizeof(list)]; /* strtok_r cuts its input; list stays whole for the message */
    memcpy(words, list, sizeof(words));
    for (char *save = NULL, *word = strtok_r(words, " \t", &save); word;
         word = strtok_r(NULL, " \t", &save))
        if (strcmp(word, governor) == 0)
            return 0;
    sc__why(why, whylen, "streamcard: governor %s is not offered by cpu %u (valid: %s)", governor,
            cpu, list);
    return -ENOTSUP;
}

int sc_platform_governor_write(const sc_platform *p, unsigned cpu, const char *governor,
                               char *readback, size_t rblen, char *why, size_t whylen)
{
    char rel[128], now[SC_GOVERNOR_MAX * 2];
    int fd, rc = sc_platform_governor_offered(p, cpu, governor, why, whylen);

    if (rc < 0)
        return rc;
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
    fd = sc_fsroot_openat(&p->root, rel, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        sc__why(why, whylen, "streamcard: cannot open %s under %s: %s", rel, p->root.path,
                strerror(-fd));
        return fd;
    }
    rc = sc_file_write_all(fd, governor, strlen(governor));
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cannot set the governor of cpu %u to %s: %s", cpu,
                governor, strerror(-rc));
        return rc;
    }
    rc = sc_platform_governor_read(p, cpu, now, sizeof(now), why, whylen);
    if (rc == 0 && strcmp(now, governor) != 0) {
        sc__why(why, whylen, "streamcard: governor readback mismatch: cpu %u: expected %s, got %s",
                cpu, governor, now);
        rc = -EIO;
    }
    if (readback && rblen)
        snprintf(readback, rblen, "%s", rc == 0 || rc == -EIO ? now : "");
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
