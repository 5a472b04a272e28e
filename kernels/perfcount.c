/*
 * perfcount.c: per-thread cycles and instructions through perf_event_open (see perfcount.h).
 */
#include "perfcount.h"

#include <errno.h>
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
};

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

int sct_perf_open(struct sct_perf *p)
{
    memset(p, 0, sizeof(*p));
    for (int e = 0; e < SCT_PERF_NEVENTS; e++)
        p->fd[e] = -1;
    for (int e = 0; e < SCT_PERF_NEVENTS; e++) {
        struct perf_event_attr attr = {
            .type = PERF_TYPE_HARDWARE,
            .size = sizeof(attr),
            .config = sct__perf_events[e].config,
            .disabled = 1,
            .exclude_kernel = 1,
            .exclude_hv = 1,
            .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
        };
        /* pid 0, cpu -1: this thread, wherever it runs. */
        long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            snprintf(p->reason, sizeof(p->reason), "perf_event_open %s: %s (%s)",
                     sct__perf_events[e].name, strerror(err), sct__perf_hint(err));
            sct__perf_close(p);
            return -err;
        }
        p->fd[e] = (int)fd;
    }
    p->available = 1;
    return 0;
}

void sct_perf_start(struct sct_perf *p)
{
    if (!p->available)
        return;
    for (int e = 0; e < SCT_PERF_NEVENTS; e++) {
        ioctl(p->fd[e], PERF_EVENT_IOC_RESET, 0);
        ioctl(p->fd[e], PERF_EVENT_IOC_ENABLE, 0);
    }
}

void sct_perf_stop(struct sct_perf *p)
{
    if (!p->available)
        return;
    for (int e = 0; e < SCT_PERF_NEVENTS; e++)
        ioctl(p->fd[e], PERF_EVENT_IOC_DISABLE, 0);
}

void sct_perf_counts_init(struct sct_perf_counts *total)
{
    memset(total, 0, sizeof(*total));
}

void sct_perf_add(struct sct_perf *p, struct sct_perf_counts *total)
{
    uint64_t v[SCT_PERF_NEVENTS] = {0};
    int scaled = 0, ok = p->available;
    char reason[sizeof(p->reason)];

    memcpy(reason, p->reason, sizeof(reason));
    for (int e = 0; ok && e < SCT_PERF_NEVENTS; e++) {
        uint64_t buf[3]; /* value, time enabled, time running */
        if (read(p->fd[e], buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
            snprintf(reason, sizeof(reason), "reading %s: %s", sct__perf_events[e].name,
                     strerror(errno));
            ok = 0;
            break;
        }
        /* Multiplexed with other events: scale to the enabled time, as perf stat does. */
        if (buf[2] > 0 && buf[2] < buf[1]) {
            buf[0] = (uint64_t)((double)buf[0] * (double)buf[1] / (double)buf[2]);
            scaled = 1;
        }
        v[e] = buf[0];
    }
    sct__perf_close(p);

    pthread_mutex_lock(&sct__perf_lock);
    if (ok) {
        for (int e = 0; e < SCT_PERF_NEVENTS; e++)
            total->value[e] += v[e];
        total->threads++;
        total->scaled |= scaled;
    } else if (!total->reason[0]) {
        memcpy(total->reason, reason, sizeof(total->reason));
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

int sct_perf_json(FILE *out, const struct sct_perf_counts *t)
{
    int rc;

    if (!sct__perf_usable(t)) {
        /* The reason is our own text (strerror and fixed words): no JSON escaping needed. */
        rc = fprintf(out, "{\"status\": \"unavailable: %s\"}", sct__perf_reason(t));
    } else {
        double c = (double)t->value[SCT_PERF_CYCLES];
        rc = fprintf(out,
                     "{\"status\": \"ok\", \"cycles\": %llu, \"instructions\": %llu, "
                     "\"ipc\": %.4f, \"threads\": %d, \"scaled\": %s}",
                     (unsigned long long)t->value[SCT_PERF_CYCLES],
                     (unsigned long long)t->value[SCT_PERF_INSTRUCTIONS],
                     c > 0 ? (double)t->value[SCT_PERF_INSTRUCTIONS] / c : 0.0, t->threads,
                     t->scaled ? "true" : "false");
    }
    return rc < 0 ? -EIO : 0;
}
