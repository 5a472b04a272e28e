/*
 * platform.c: the privileged writes of streamcard (see platform.h). Keep this file small
 * and free of parsing: it is the one an auditor has to read. What it may write is the
 * allowlist of core/host/platform_read.c (sc_platform_prefetch_reg()), the one table of it.
 */
#include "platform.h"
#include "sc_why.h"
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

int sc_platform_check(const sc_platform *p, const sc_msr_request *req, char *why, size_t whylen)
{
    uint32_t reg;
    uint64_t allowed;
    int rc = sc_platform_check_reg(p, req->cpu, req->reg, why, whylen);

    if (rc < 0)
        return rc;
    if (sc_platform_prefetch_reg(p, &reg, &allowed, why, whylen) < 0) /* held by check_reg */
        return -EPERM;
    if (req->mask == 0 || (req->mask & ~allowed) != 0) {
        sc__why(why, whylen,
                "streamcard: MSR 0x%x write refused: mask 0x%llx is not within the writable bits "
                "of %s (valid: a non-empty subset of 0x%llx)",
                (unsigned)req->reg, (unsigned long long)req->mask, sc_arch_name(p->arch.kind),
                (unsigned long long)allowed);
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

/* Writes the 8 bytes at offset reg, as the msr driver defines them. */
static int sc__msr_pwrite(int fd, uint32_t reg, const uint64_t *value)
{
    ssize_t n;

    do {
        n = pwrite(fd, value, sizeof(*value), (off_t)reg);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    return n == (ssize_t)sizeof(*value) ? 0 : -EIO;
}

int sc_platform_msr_write(const sc_platform *p, const sc_msr_request *req, uint64_t *old,
                          uint64_t *readback, char *why, size_t whylen)
{
    uint64_t before = 0, after = 0, want;
    int fd, rc = sc_platform_check(p, req, why, whylen);

    if (rc < 0)
        return rc;
    fd = sc_platform_msr_open(p, req->cpu, O_RDWR, why, whylen);
    if (fd < 0)
        return fd;
    rc = sc_platform_msr_pread(fd, req->reg, &before);
    if (rc < 0) {
        sc__why(why, whylen, "streamcard: cannot read MSR 0x%x of cpu %u: %s", (unsigned)req->reg,
                req->cpu, strerror(-rc));
        goto out_close;
    }
    after = before;
    want = (before & ~req->mask) | (req->value & req->mask);
    if (want != before) { /* nothing to write when the bits already hold the value */
        rc = sc__msr_pwrite(fd, req->reg, &want);
        if (rc < 0) {
            sc__why(why, whylen, "streamcard: cannot write MSR 0x%x of cpu %u: %s",
                    (unsigned)req->reg, req->cpu, strerror(-rc));
            goto out_close;
        }
        rc = sc_platform_msr_pread(fd, req->reg, &after);
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

int sc_platform_governor_offered(const sc_platform *p, unsigned cpu, const char *governor,
                                 char *why, size_t whylen)
{
    char list[1024];
    int rc = sc__check_governor_name(governor, why, whylen);

    if (rc == 0)
        rc = sc_platform_check_cpu(p, cpu, why, whylen);
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
