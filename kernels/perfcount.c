/*
 * perfcount.c: per-thread cycles and instructions through perf_event_open (see perfcount.h).
 */
#include "perfcount.h"
#include "results_json.h"
#include "simdevents.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
    const char *name;
    uint64_t config;
} sct__perf_events[SCT_PERF_NEVENTS] = {
    [SCT_PERF_CYCLES] = {"cycles", PERF_COUNT_HW_CPU_CYCLES},
    [SCT_PERF_INSTRUCTIONS] = {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
    [SCT_PERF_FP_PACKED] = {"fp_packed", 0}, /* raw: sct__simd, per CPU model */
    [SCT_PERF_FP_SCALAR] = {"fp_scalar", 0},
};

/* This CPU's raw FP events, chosen once from /proc/cpuinfo. */
static struct sct_simd_events sct__simd;
static pthread_once_t sct__simd_once = PTHREAD_ONCE_INIT;

static void sct__simd_choose(void)
{
    char buf[8192] = "";
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);

    if (fd >= 0) { /* the first CPU's lines are enough */
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        buf[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    sct_simd_events_for(buf, &sct__simd);
}

/* Serialises sct_perf_add's updates of a shared total (a few per thread per run). */
static pthread_mutex_t sct__perf_lock = PTHREAD_MUTEX_INITIALIZER;

/* The likely cause of a perf_event_open error, for the "unavailable" reason. */
static const char *sct__perf_hint(int err)
{
    switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
        return "no hardware PMU: a VM without a virtual PMU?";
    case EACCES:
    case EPERM:
        return "not permitted: kernel.perf_event_paranoid or a seccomp filter";
    case ENOSYS:
        return "no perf_event_open in this kernel";
    default:
        return "see perf_event_open(2)";
    }
}

static void sct__perf_close(struct sct_perf *p)
{
    for (int e = 0; e < SCT_PERF_NEVENTS; e++) {
        if (p->fd[e] >= 0)
            close(p->fd[e]);
        p->fd[e] = -1;
    }
}

void sct_perf_init(struct sct_perf *p)
{
    memset(p, 0, sizeof(*p));
    for (int e = 0; e < SCT_PERF_NEVENTS; e++)
        p->fd[e] = -1;
}

/* Opens event e of this thread, disabled: the fd, or -errno with reason written. */
static long sct__perf_open_one(int e, uint32_t type, uint64_t config, char *reason, size_t len)
{
    struct perf_event_attr attr = {
        .type = type,
        .size = sizeof(attr),
        .config = config,
        .disabled = 1,
        .exclude_kernel = 1,
        .exclude_hv = 1,
        .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
    };
    /* pid 0, cpu -1: this thread, wherever it runs. */
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        snprintf(reason, len, "perf_event_open %s: %s (%s)", sct__perf_events[e].name,
                 strerror(err), sct__perf_hint(err));
        return -err;
    }
    return fd;
}

int sct_perf_open(struct sct_perf *p)
{
    sct_perf_init(p);
    for (int e = 0; e < SCT_PERF_NREQUIRED; e++) {
        long fd = sct__perf_open_one(e, PERF_TYPE_HARDWARE, sct__perf_events[e].config,
                                     p->reason, sizeof(p->reason));
        if (fd < 0) {
            sct__perf_close(p);
            snprintf(p->simd_reason, sizeof(p->simd_reason), "no counters: %s", p->reason);
            return (int)fd;
        }
        p->fd[e] = (int)fd;
    }
    p->available = 1;
    /* The SIMD share's raw events: optional, never a reason to lose cycles and IPC. */
    pthread_once(&sct__simd_once, sct__simd_choose);
    if (!sct__simd.known) {
        snprintf(p->simd_reason, sizeof(p->simd_reason), "%s", sct__simd.why);
        return 0;
    }
    const uint64_t raw[] = {sct__simd.packed, sct__simd.scalar};
    for (int e = SCT_PERF_FP_PACKED; e <= SCT_PERF_FP_SCALAR; e++) {
        long fd = sct__perf_open_one(e, PERF_TYPE_RAW, raw[e - SCT_PERF_FP_PACKED],
                                     p->simd_reason, sizeof(p->simd_reason));
        if (fd < 0) {
            for (int f = SCT_PERF_FP_PACKED; f < e; f++) {
                close(p->fd[f]);
                p->fd[f] = -1;
            }
            return 0;
        }
        p->fd[e] = (int)fd;
    }
    p->simd_available = 1;
    return 0;
}

void sct_perf_start(struct sct_perf *p)
{
    if (!p->available)
        return;
    for (int e = 0; e < SCT_PERF_NEVENTS; e++) {
        if (p->fd[e] < 0)
            continue;
        ioctl(p->fd[e], PERF_EVENT_IOC_RESET, 0);
        ioctl(p->fd[e], PERF_EVENT_IOC_ENABLE, 0);
    }
}

void sct_perf_stop(struct sct_perf *p)
{
    if (!p->available)
        return;
    for (int e = 0; e < SCT_PERF_NEVENTS; e++)
        if (p->fd[e] >= 0)
            ioctl(p->fd[e], PERF_EVENT_IOC_DISABLE, 0);
}

void sct_perf_counts_init(struct sct_perf_counts *total)
{
    memset(total, 0, sizeof(*total));
}

/* Reads event e into *v, scaled to its enabled time when it was multiplexed (as perf stat
   does; *scaled set). 0, or -1 with reason written. */
static int sct__perf_read(const struct sct_perf *p, int e, uint64_t *v, int *scaled,
                          char *reason, size_t len)
{
    uint64_t buf[3]; /* value, time enabled, time running */

    if (read(p->fd[e], buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
        snprintf(reason, len, "reading %s: %s", sct__perf_events[e].name, strerror(errno));
        return -1;
    }
    if (buf[2] > 0 && buf[2] < buf[1]) {
        buf[0] = (uint64_t)((double)buf[0] * (double)buf[1] / (double)buf[2]);
        *scaled = 1;
    }
    *v = buf[0];
    return 0;
}

void sct_perf_add(struct sct_perf *p, struct sct_perf_counts *total)
{
    uint64_t v[SCT_PERF_NEVENTS] = {0};
    int scaled = 0, ok = p->available, simd = p->simd_available;
    char reason[sizeof(p->reason)], simd_reason[sizeof(p->simd_reason)];

    memcpy(reason, p->reason, sizeof(reason));
    memcpy(simd_reason, p->simd_reason, sizeof(simd_reason));
    for (int e = 0; ok && e < SCT_PERF_NREQUIRED; e++)
        ok = sct__perf_read(p, e, &v[e], &scaled, reason, sizeof(reason)) == 0;
    for (int e = SCT_PERF_NREQUIRED; ok && simd && e < SCT_PERF_NEVENTS; e++)
        simd = sct__perf_read(p, e, &v[e], &scaled, simd_reason, sizeof(simd_reason)) == 0;
    sct__perf_close(p);

    pthread_mutex_lock(&sct__perf_lock);
    if (ok) {
        for (int e = 0; e < SCT_PERF_NREQUIRED; e++)
            total->value[e] += v[e];
        total->threads++;
        total->scaled |= scaled;
    } else if (!total->reason[0]) {
        memcpy(total->reason, reason, sizeof(total->reason));
    }
    if (ok && simd) {
        for (int e = SCT_PERF_NREQUIRED; e < SCT_PERF_NEVENTS; e++)
            total->value[e] += v[e];
        total->simd_threads++;
    } else if (!total->simd_reason[0]) {
        memcpy(total->simd_reason, ok ? simd_reason : p->simd_reason, sizeof(total->simd_reason));
    }
    pthread_mutex_unlock(&sct__perf_lock);
}

/* Counts are usable when no thread lacked counters and at least one had them. */
static int sct__perf_usable(const struct sct_perf_counts *t)
{
    return !t->reason[0] && t->threads > 0;
}

static const char *sct__perf_reason(const struct sct_perf_counts *t)
{
    return t->reason[0] ? t->reason : "no thread was counted";
}

int sct_perf_print(FILE *out, const char *prefix, const struct sct_perf_counts *t)
{
    int rc;

    if (!sct__perf_usable(t)) {
        rc = fprintf(out, "%sunavailable: %s\n", prefix, sct__perf_reason(t));
    } else {
        double c = (double)t->value[SCT_PERF_CYCLES];
        double ipc = c > 0 ? (double)t->value[SCT_PERF_INSTRUCTIONS] / c : 0;
        rc = fprintf(out, "%scycles=%llu instructions=%llu ipc=%.2f threads=%d%s\n", prefix,
                     (unsigned long long)t->value[SCT_PERF_CYCLES],
                     (unsigned long long)t->value[SCT_PERF_INSTRUCTIONS], ipc, t->threads,
                     t->scaled ? " (scaled: counters were multiplexed)" : "");
    }
    return rc < 0 ? -EIO : 0;
}

/* {"status": "unavailable: <reason>"}, or {"status": "ok"} to add the figures to. */
static json_object *sct__json_status(bool usable, const char *reason)
{
    char text[512]; /* "unavailable: " and a reason: at most 280 bytes */
    json_object *o = json_object_new_object();

    snprintf(text, sizeof(text), "unavailable: %s", reason);
    if (o && json_object_object_add(o, "status", json_object_new_string(usable ? "ok" : text))) {
        json_object_put(o);
        o = NULL;
    }
    return o;
}

json_object *sct_perf_json(const struct sct_perf_counts *t)
{
    bool usable = sct__perf_usable(t);
    json_object *o = sct__json_status(usable, usable ? "" : sct__perf_reason(t));
    double c = (double)t->value[SCT_PERF_CYCLES];

    if (!o || !usable)
        return o;
    json_object_object_add(o, "cycles", json_object_new_uint64(t->value[SCT_PERF_CYCLES]));
    json_object_object_add(o, "instructions",
                           json_object_new_uint64(t->value[SCT_PERF_INSTRUCTIONS]));
    json_object_object_add(
        o, "ipc", sct_json_fixed(c > 0 ? (double)t->value[SCT_PERF_INSTRUCTIONS] / c : 0.0, 4));
    json_object_object_add(o, "threads", json_object_new_int(t->threads));
    json_object_object_add(o, "scaled", json_object_new_boolean(t->scaled));
    return o;
}

/* The share is usable when every counted thread also counted its FP instructions. */
static int sct__simd_usable(const struct sct_perf_counts *t)
{
    return sct__perf_usable(t) && !t->simd_reason[0] && t->simd_threads == t->threads;
}

static const char *sct__simd_reason(const struct sct_perf_counts *t)
{
    if (!sct__perf_usable(t))
        return sct__perf_reason(t);
    return t->simd_reason[0] ? t->simd_reason : "no thread counted its FP instructions";
}

static double sct__simd_share(const struct sct_perf_counts *t)
{
    double packed = (double)t->value[SCT_PERF_FP_PACKED];
    double all = packed + (double)t->value[SCT_PERF_FP_SCALAR];

    return all > 0 ? packed / all : 0;
}

int sct_perf_print_simd(FILE *out, const char *prefix, const struct sct_perf_counts *t)
{
    int rc;

    if (!sct__simd_usable(t))
        rc = fprintf(out, "%sunavailable: %s\n", prefix, sct__simd_reason(t));
    else
        rc = fprintf(out, "%s%.3f fp_packed=%llu fp_scalar=%llu threads=%d\n", prefix,
                     sct__simd_share(t), (unsigned long long)t->value[SCT_PERF_FP_PACKED],
                     (unsigned long long)t->value[SCT_PERF_FP_SCALAR], t->simd_threads);
    return rc < 0 ? -EIO : 0;
}

json_object *sct_perf_json_simd(const struct sct_perf_counts *t)
{
    bool usable = sct__simd_usable(t);
    json_object *o = sct__json_status(usable, usable ? "" : sct__simd_reason(t));

    if (!o || !usable)
        return o;
    json_object_object_add(o, "share", sct_json_fixed(sct__simd_share(t), 4));
    json_object_object_add(o, "fp_packed", json_object_new_uint64(t->value[SCT_PERF_FP_PACKED]));
    json_object_object_add(o, "fp_scalar", json_object_new_uint64(t->value[SCT_PERF_FP_SCALAR]));
    json_object_object_add(o, "threads", json_object_new_int(t->simd_threads));
    return o;
}
