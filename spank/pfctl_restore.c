/*
 * pfctl_restore.c: putting the platform back (see pfctl.h): release, restore_job,
 * restore_stale, and the per-call state shared with pfctl.c (see pfctl_call.h).
 */
#include "pfctl_call.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sc__pfctl_call_init(sc__pfctl_call *r, const sc_pfctl_config *cfg)
{
    memset(r, 0, sizeof(*r));
    r->cfg = cfg;
    sc_kv_init(&r->log);
    sc_kv_init(&r->notes);
    r->plat.root.fd = -1;
    r->plat_rc = 1;
    r->dir.fd = r->dir.lock_fd = -1;
}

void sc__pfctl_call_end(sc__pfctl_call *r, char **log)
{
    sc_statedir_close(&r->dir);
    sc_platform_close(&r->plat);
    if (log)
        *log = r->log.text ? r->log.text : strdup("");
    else
        sc_kv_free(&r->log);
    sc_kv_init(&r->log);
    sc_kv_free(&r->notes);
}

/* Appends one timestamped line to the control log, and to the notes when note is set. */
static void sc__logv(sc__pfctl_call *r, bool note, const char *fmt, va_list ap)
{
    char stamp[48], line[1024];
    struct timespec now;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + n, sizeof(stamp) - n, ".%03ldZ ", now.tv_nsec / 1000000);
    vsnprintf(line, sizeof(line), fmt, ap);
    for (int i = 0; i < 1 + note; i++) {
        sc_kv *kv = i == 0 ? &r->log : &r->notes;
        sc_kv_append(kv, stamp);
        sc_kv_append(kv, line);
        sc_kv_append(kv, "\n");
    }
}

void sc__pfctl_call_logf(sc__pfctl_call *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sc__logv(r, false, fmt, ap);
    va_end(ap);
}

void sc__pfctl_call_notef(sc__pfctl_call *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sc__logv(r, true, fmt, ap);
    va_end(ap);
}

int sc__pfctl_call_platform(sc__pfctl_call *r, char *why, size_t whylen)
{
    const sc_arch *arch = &r->plat.arch;

    if (r->plat_rc <= 0)
        return r->plat_rc;
    r->plat_rc = sc_platform_open(&r->plat, r->cfg->sysroot, why, whylen);
    if (r->plat_rc < 0)
        sc__pfctl_call_logf(r, "ERROR: %s", why);
    else if (arch->kind == SC_ARCH_UNSUPPORTED)
        sc__pfctl_call_logf(r, "identify: no known prefetch control: %s", arch->reason);
    else
        sc__pfctl_call_logf(r, "identify: %s (%s) is %s under sysroot %s", arch->cpu, arch->uarch,
                            sc_arch_name(arch->kind), r->plat.root.path);
    return r->plat_rc;
}

int sc__pfctl_call_lock(sc__pfctl_call *r, char *why, size_t whylen)
{
    int rc = sc_statedir_open(&r->dir, r->cfg->state_dir, why, whylen);

    if (rc == 0)
        rc = sc_statedir_lock(&r->dir, why, whylen);
    if (rc < 0)
        sc__pfctl_call_logf(r, "ERROR: %s", why);
    return rc;
}

/* Writes back what j journaled; returns 0 or the first failure. */
static int sc__restore_values(sc__pfctl_call *r, const sc_journal *j)
{
    char why[512], now[SC_GOVERNOR_MAX * 2];
    uint64_t old, after;
    int first = sc__pfctl_call_platform(r, why, sizeof(why));

    if (first < 0)
        return first;
    for (size_t i = 0; i < j->n_msr; i++) {
        const sc_journal_msr *m = &j->msr[i];
        sc_msr_request req = {m->cpu, m->reg, m->mask, m->orig & m->mask};
        int rc = sc_platform_msr_write(&r->plat, &req, &old, &after, why, sizeof(why));
        if (rc < 0) {
            sc__pfctl_call_logf(r, "ERROR: restore of job %u: %s", (unsigned)j->job_id, why);
            first = first ? first : rc;
            continue;
        }
        sc__pfctl_call_logf(r,
                            "restore: job %u cpu %u reg 0x%x mask 0x%llx: 0x%016llx -> 0x%016llx, "
                            "read back 0x%016llx",
                            (unsigned)j->job_id, m->cpu, (unsigned)m->reg,
                            (unsigned long long)m->mask, (unsigned long long)old,
                            (unsigned long long)((old & ~m->mask) | (m->orig & m->mask)),
                            (unsigned long long)after);
    }
    for (size_t i = 0; i < j->n_gov; i++) {
        const sc_journal_gov *g = &j->gov[i];
        int rc = sc_platform_governor_write(&r->plat, g->cpu, g->orig, now, sizeof(now), why,
                                            sizeof(why));
        if (rc < 0) {
            sc__pfctl_call_logf(r, "ERROR: restore of job %u: %s", (unsigned)j->job_id, why);
            first = first ? first : rc;
            continue;
        }
        sc__pfctl_call_logf(r, "restore: job %u cpu %u governor %s, read back %s",
                            (unsigned)j->job_id, g->cpu, g->orig, now);
    }
    return first;
}

/* A damaged journal, restored as far as it could be read: set aside, in one line. */
static int sc__set_aside(sc__pfctl_call *r, const sc_journal *j, const char *damaged, int rc)
{
    char why[512], aside[128];
    const char *reason = strncmp(damaged, "streamcard: ", 12) == 0 ? damaged + 12 : damaged;
    int moved = sc_journal_set_aside(&r->dir, j->job_id, aside, sizeof(aside), why, sizeof(why));

    if (moved < 0) {
        sc__pfctl_call_logf(r, "ERROR: %s", why);
        return moved;
    }
    sc__pfctl_call_notef(r,
                         "restore: job %u: %s; restored what could be read (%zu register(s), %zu "
                         "governor(s)%s), the file kept as %s/%s for an admin",
                         (unsigned)j->job_id, reason, j->n_msr, j->n_gov,
                         rc < 0 ? ", not all of them read back" : "", r->dir.path, aside);
    return rc;
}

int sc__pfctl_call_restore(sc__pfctl_call *r, const sc_journal *j, const char *damaged)
{
    char why[512];
    int rc = sc__restore_values(r, j);

    if (damaged)
        return sc__set_aside(r, j, damaged, rc);
    if (rc == 0) {
        rc = sc_journal_remove(&r->dir, j->job_id, why, sizeof(why));
        if (rc < 0)
            sc__pfctl_call_logf(r, "ERROR: %s", why);
        else
            sc__pfctl_call_logf(
                r, "restore: job %u: originals read back as journaled; journal removed",
                (unsigned)j->job_id);
    } else {
        sc__pfctl_call_logf(r,
                            "restore: job %u: journal kept in %s for another try (the "
                            "restore failed)",
                            (unsigned)j->job_id, r->dir.path);
    }
    return rc;
}

/* Drops holder from the loaded journal j; the last live holder restores. */
static int sc__release_loaded(sc__pfctl_call *r, sc_journal *j, pid_t holder)
{
    char why[512];
    bool was = sc_journal_remove_holder(j, holder);
    size_t live = sc_journal_prune_holders(j);
    int rc;

    sc__pfctl_call_logf(r, "release: job %u holder %ld %s; %zu live holder(s) remain",
                        (unsigned)j->job_id, (long)holder, was ? "dropped" : "was not a holder",
                        live);
    if (live == 0)
        return sc__pfctl_call_restore(r, j, NULL);
    rc = sc_journal_store(&r->dir, j, why, sizeof(why));
    if (rc < 0)
        sc__pfctl_call_logf(r, "ERROR: %s", why);
    else
        sc__pfctl_call_logf(r, "release: job %u: the change stays for the other steps",
                            (unsigned)j->job_id);
    return rc;
}

/* The job's journal is damaged: restored and set aside once no other step holds it; while
   one does, it is left for the job's end (the damaged file cannot be rewritten faithfully). */
static int sc__release_damaged(sc__pfctl_call *r, sc_journal *j, pid_t holder, const char *why)
{
    sc_journal_remove_holder(j, holder);
    if (sc_journal_prune_holders(j) == 0)
        return sc__pfctl_call_restore(r, j, why);
    sc__pfctl_call_logf(r,
                        "release: job %u holder %ld: %s; other steps still hold it: left for "
                        "the job's end",
                        (unsigned)j->job_id, (long)holder,
                        strncmp(why, "streamcard: ", 12) == 0 ? why + 12 : why);
    return 0;
}

int sc_pfctl_release(const sc_pfctl_config *cfg, uint32_t job_id, pid_t holder, char **log)
{
    char why[512];
    sc_journal j;
    sc__pfctl_call r;

    sc__pfctl_call_init(&r, cfg);
    int rc = sc_journal_init(&j, job_id);
    if (rc == 0)
        rc = sc__pfctl_call_lock(&r, why, sizeof(why));
    if (rc == 0) {
        rc = sc_journal_load(&r.dir, job_id, &j, why, sizeof(why));
        if (rc == 0) {
            rc = sc__release_loaded(&r, &j, holder);
        } else if (rc == -ENOENT) {
            sc__pfctl_call_logf(&r, "release: job %u holder %ld: no journal, nothing to restore",
                                (unsigned)job_id, (long)holder);
            rc = 0;
        } else if (rc == -EBADMSG) {
            rc = sc__release_damaged(&r, &j, holder, why);
        } else {
            /* The job's end restores what it can: the extern step (PrologFlags=Contain)
               or the job epilog of spank_streamcard_epilog.so; else the next slurmd start. */
            sc__pfctl_call_logf(&r, "ERROR: %s", why);
        }
    }
    sc_journal_free(&j);
    sc__pfctl_call_end(&r, log);
    return rc;
}

int sc_pfctl_restore_job(const sc_pfctl_config *cfg, uint32_t job_id, char **log)
{
    char why[512];
    sc_journal j;
    sc__pfctl_call r;

    sc__pfctl_call_init(&r, cfg);
    int rc = sc_journal_init(&j, job_id);
    if (rc == 0)
        rc = sc__pfctl_call_lock(&r, why, sizeof(why));
    if (rc == 0) {
        rc = sc_journal_load(&r.dir, job_id, &j, why, sizeof(why));
        if (rc == 0 || rc == -EBADMSG) {
            sc__pfctl_call_logf(&r,
                                "restore: job %u is over: restoring its journal (%zu holder(s))",
                                (unsigned)job_id, j.n_holders);
            rc = sc__pfctl_call_restore(&r, &j, rc == -EBADMSG ? why : NULL);
        } else if (rc == -ENOENT) {
            sc__pfctl_call_logf(&r, "restore: job %u: no journal, nothing to restore",
                                (unsigned)job_id);
            rc = 0;
        } else {
            sc__pfctl_call_logf(&r, "ERROR: %s", why);
        }
    }
    sc_journal_free(&j);
    sc__pfctl_call_end(&r, log);
    return rc;
}

/* Restores one journal of restore_stale unless a holder lives. Returns 0 or -errno. */
static int sc__restore_if_stale(sc__pfctl_call *r, uint32_t job_id)
{
    char why[512];
    sc_journal j;
    int rc = sc_journal_init(&j, job_id);

    if (rc == 0)
        rc = sc_journal_load(&r->dir, job_id, &j, why, sizeof(why));
    if (rc == 0 || rc == -EBADMSG) {
        const char *damaged = rc == -EBADMSG ? why : NULL;
        size_t listed = j.n_holders, live = sc_journal_prune_holders(&j);
        if (live > 0) {
            sc__pfctl_call_logf(r, "restore: job %u: %zu of %zu holder(s) alive, left alone%s",
                                (unsigned)job_id, live, listed,
                                damaged ? " (its journal is damaged)" : "");
            rc = 0;
        } else {
            sc__pfctl_call_logf(r, "restore: job %u: none of its %zu holder(s) is alive: restoring",
                                (unsigned)job_id, listed);
            rc = sc__pfctl_call_restore(r, &j, damaged);
        }
    }
    sc_journal_free(&j);
    return rc == -ENOENT ? 0 : rc;
}

int sc_pfctl_restore_stale(const sc_pfctl_config *cfg, char **log)
{
    char why[512];
    uint32_t *jobs = NULL;
    size_t count = 0;
    sc__pfctl_call r;

    sc__pfctl_call_init(&r, cfg);
    int rc = sc__pfctl_call_lock(&r, why, sizeof(why));
    if (rc == 0)
        rc = sc_journal_list(&r.dir, &jobs, &count);
    if (rc == 0)
        sc__pfctl_call_logf(&r, "restore: %zu journal(s) in %s", count, r.dir.path);
    for (size_t i = 0; i < count; i++) {
        int one = sc__restore_if_stale(&r, jobs[i]);
        rc = rc ? rc : one; /* keep going: one bad journal must not block the others */
    }
    free(jobs);
    sc__pfctl_call_end(&r, log);
    return rc;
}
