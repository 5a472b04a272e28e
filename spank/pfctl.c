/*
 * pfctl.c: sc_pfctl_apply() and its evidence (see pfctl.h). The order is the contract:
 * check everything that can be checked without side effects (policy, CPU class, CPUs,
 * governors), lock, refuse when another job holds a change, journal the originals, write,
 * read back; roll back on any failure after the journal.
 */
#include "pfctl_call.h"
#include "scope.h"
#include "sc_why.h"
#include "sc_cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sc__apply {
    sc__pfctl_call r;
    uint32_t job_id;
    pid_t holder;
    const sc_pfctl_request *req;
    const char *governor; /* "unchanged" or the requested name */
    bool want_pf, want_gov;
    uint32_t reg;         /* the prefetch register of this CPU class */
    uint64_t mask, value; /* its prefetch bits, and their requested value */
    sc_journal j;         /* this job's journal (the originals) */
    bool journaled;       /* j holds the originals of this change */
    bool fresh;           /* this call journaled a new change (sc__apply_fresh) */
    bool can_read;        /* the platform is open and the CPUs valid: readback possible */
    sc_kv after;          /* msr_readback_after.txt */
    char obs_pf[16];      /* "on", "off", "mixed", "unknown", "unchanged" */
    char obs_gov[SC_GOVERNOR_MAX * 2];
} sc__apply;

/*
 * Without the whole node, a write may reach only the job's CPUs: for each CPU of the request,
 * the CPUs sharing its prefetch register (the scope of the class) and its cpufreq policy.
 */
static int sc__check_reach(sc__apply *a, unsigned cpu, char *why, size_t whylen)
{
    hwloc_bitmap_t reach = hwloc_bitmap_alloc(), outside = hwloc_bitmap_alloc();
    sc_scope scope = sc_scope_of_prefetch(a->r.plat.arch.kind);
    char *text = NULL, *others = NULL;
    int rc = reach && outside ? 0 : -ENOMEM;

    for (int pass = 0; rc == 0 && pass < 2; pass++) {
        if (!(pass == 0 ? a->want_pf : a->want_gov))
            continue;
        rc = pass == 0 ? sc_scope_cpus(&a->r.plat.root, cpu, scope, reach, why, whylen)
                       : sc_scope_governor_cpus(&a->r.plat.root, cpu, reach, why, whylen);
        if (rc < 0) {
            rc = -EACCES; /* what a write reaches is unknown: it may reach another job */
            break;
        }
        hwloc_bitmap_andnot(outside, reach, a->req->job_cpus);
        if (hwloc_bitmap_iszero(outside))
            continue;
        text = sc_cpulist_format(reach);
        others = sc_cpulist_format(outside);
        if (pass == 0)
            sc__why(why, whylen,
                    "streamcard: prefetch=%s refused: MSR 0x%x is one per %s on %s, and cpu %u "
                    "shares it with cpus %s, of which %s are not this job's (valid: a cpu_list "
                    "of whole %ss that the job holds, or submit with --exclusive)",
                    sc_prefetch_name(a->req->prefetch), (unsigned)a->reg, sc_scope_name(scope),
                    sc_arch_name(a->r.plat.arch.kind), cpu, text ? text : "?",
                    others ? others : "?", sc_scope_name(scope));
        else
            sc__why(why, whylen,
                    "streamcard: governor=%s refused: cpu %u's cpufreq policy covers cpus %s, of "
                    "which %s are not this job's (valid: submit with --exclusive)",
                    a->governor, cpu, text ? text : "?", others ? others : "?");
        rc = -EACCES;
    }
    free(text);
    free(others);
    hwloc_bitmap_free(reach);
    hwloc_bitmap_free(outside);
    return rc;
}

/* Policy, CPU class, CPUs and governors: everything checked before any lock or write. */
static int sc__apply_check(sc__apply *a, char *why, size_t whylen)
{
    const sc_pfctl_request *req = a->req;
    const char *pf = sc_prefetch_name(req->prefetch);
    char reason[512];
    unsigned cpu;
    int rc = 0;

    if (a->want_pf && !req->allow_prefetch) {
        sc__why(why, whylen,
                "streamcard: prefetch=%s refused: the node's policy does not let "
                "users change prefetch (valid: prefetch: unchanged)",
                pf);
        return -EPERM;
    }
    if (a->want_gov && !req->allow_governor) {
        sc__why(why, whylen,
                "streamcard: governor=%s refused: the node's policy does not let "
                "users change the governor (valid: governor: unchanged)",
                a->governor);
        return -EPERM;
    }
    if (!req->cpus || hwloc_bitmap_iszero(req->cpus) || hwloc_bitmap_weight(req->cpus) < 0) {
        sc__why(why, whylen,
                "streamcard: platform change refused: the cpu list is empty or "
                "unbounded (valid: the OS cpu numbers of the card's cpu_list)");
        return -EINVAL;
    }
    rc = sc__pfctl_call_platform(&a->r, why, whylen);
    if (rc < 0)
        return rc;
    if (a->want_pf) {
        if (sc_platform_prefetch_reg(&a->r.plat, &a->reg, &a->mask, reason, sizeof(reason))) {
            sc__why(why, whylen, "streamcard: prefetch=%s refused: %s (valid: prefetch: unchanged)",
                    pf, reason);
            return -ENOTSUP;
        }
        a->value = req->prefetch == SC_PREFETCH_OFF ? a->mask : 0;
    }
    hwloc_bitmap_foreach_begin(cpu, req->cpus)
    {
        if (!hwloc_bitmap_isset(a->r.plat.online, cpu)) {
            char *online = sc_cpulist_format(a->r.plat.online);
            sc__why(why, whylen, "streamcard: cpu %u refused: it is not online (valid: %s)", cpu,
                    online ? online : "?");
            free(online);
            rc = -EINVAL;
            break;
        }
        if (a->want_gov && (rc = sc_platform_governor_offered(&a->r.plat, cpu, a->governor, reason,
                                                              sizeof(reason))) < 0) {
            sc__why(why, whylen, "streamcard: governor=%s refused: %s", a->governor, reason);
            rc = rc == -EINVAL ? -EINVAL : -ENOTSUP;
            break;
        }
        if (req->job_cpus && (rc = sc__check_reach(a, cpu, reason, sizeof(reason))) < 0) {
            if (strncmp(reason, "streamcard: ", 12) == 0)
                sc__why(why, whylen, "%s", reason);
            else
                sc__why(why, whylen,
                        "streamcard: platform change refused: %s (valid: submit with "
                        "--exclusive)",
                        reason);
            break;
        }
    }
    hwloc_bitmap_foreach_end();
    a->can_read = rc == 0;
    return rc;
}

/* Reads every value back: the "after" text and the observed states. */
static void sc__observe(sc__apply *a)
{
    char why[512], gov[SC_GOVERNOR_MAX * 2];
    bool pf_first = true, pf_unknown = false, gov_first = true, gov_unknown = false;
    sc_pfstate acc = SC_PFSTATE_MIXED;
    uint64_t v;
    unsigned cpu;

    sc_kv_free(&a->after);
    snprintf(a->obs_pf, sizeof(a->obs_pf), "%s", a->want_pf ? "unknown" : "unchanged");
    snprintf(a->obs_gov, sizeof(a->obs_gov), "%s", a->want_gov ? "unknown" : "unchanged");
    if (!a->can_read)
        return;
    hwloc_bitmap_foreach_begin(cpu, a->req->cpus)
    {
        if (a->want_pf && sc_platform_msr_read(&a->r.plat, cpu, a->reg, &v, why, sizeof(why))) {
            sc__pfctl_call_logf(&a->r, "readback: %s", why);
            pf_unknown = true;
        } else if (a->want_pf) {
            sc_pfstate s = sc_pfstate_of(v, a->mask);
            acc = pf_first ? s : sc_pfstate_merge(acc, s);
            pf_first = false;
            char line[128];
            snprintf(line, sizeof(line), "cpu=%u reg=0x%x value=0x%016llx state=%s\n", cpu,
                     (unsigned)a->reg, (unsigned long long)v, sc_pfstate_name(s));
            sc_kv_append(&a->after, line);
        }
        if (a->want_gov &&
            sc_platform_governor_read(&a->r.plat, cpu, gov, sizeof(gov), why, sizeof(why))) {
            sc__pfctl_call_logf(&a->r, "readback: %s", why);
            gov_unknown = true;
        } else if (a->want_gov) {
            if (gov_first || strcmp(gov, a->obs_gov) == 0)
                snprintf(a->obs_gov, sizeof(a->obs_gov), "%s", gov);
            else
                snprintf(a->obs_gov, sizeof(a->obs_gov), "mixed");
            gov_first = false;
        }
    }
    hwloc_bitmap_foreach_end();
    if (gov_unknown)
        snprintf(a->obs_gov, sizeof(a->obs_gov), "unknown");
    if (a->want_pf && !pf_unknown && !pf_first)
        snprintf(a->obs_pf, sizeof(a->obs_pf), "%s", sc_pfstate_name(acc));
    sc__pfctl_call_logf(&a->r, "readback: prefetch %s, governor %s over cpus of the request",
                        a->obs_pf, a->obs_gov);
}

/* Observed == requested, for each setting the request changes. */
static bool sc__valid_pf(const sc__apply *a)
{
    return !a->want_pf || strcmp(a->obs_pf, sc_prefetch_name(a->req->prefetch)) == 0;
}

static bool sc__valid_gov(const sc__apply *a)
{
    return !a->want_gov || strcmp(a->obs_gov, a->governor) == 0;
}

/* Records the kernel's MSR taint and write filter (Linux >= 5.9 taints on unlisted MSRs). */
static void sc__log_msr_filter(sc__apply *a, const char *when)
{
    char tainted[64] = "unavailable", filter[64] = "unavailable";

    if (!a->want_pf)
        return;
    sc_fsroot_read_linef(&a->r.plat.root, tainted, sizeof(tainted), "proc/sys/kernel/tainted");
    sc_fsroot_read_linef(&a->r.plat.root, filter, sizeof(filter),
                         "sys/module/msr/parameters/allow_writes");
    sc__pfctl_call_logf(&a->r, "kernel %s the change: tainted=%s msr.allow_writes=%s", when,
                        tainted, filter);
}

/* Writes the request to every CPU the journal covers, each write read back. */
static int sc__write_all(sc__apply *a, char *why, size_t whylen)
{
    char now[SC_GOVERNOR_MAX * 2];
    uint64_t old, after;
    int rc;

    for (size_t i = 0; i < a->j.n_msr; i++) {
        sc_msr_request req = {a->j.msr[i].cpu, a->reg, a->mask, a->value};
        rc = sc_platform_msr_write(&a->r.plat, &req, &old, &after, why, whylen);
        if (rc < 0)
            return rc;
        sc__pfctl_call_logf(
            &a->r,
            "write: cpu %u reg 0x%x mask 0x%llx: old 0x%016llx new 0x%016llx "
            "readback 0x%016llx%s",
            req.cpu, (unsigned)req.reg, (unsigned long long)req.mask, (unsigned long long)old,
            (unsigned long long)((old & ~req.mask) | req.value), (unsigned long long)after,
            (old & req.mask) == req.value ? " (already set)" : "");
    }
    for (size_t i = 0; i < a->j.n_gov; i++) {
        rc = sc_platform_governor_write(&a->r.plat, a->j.gov[i].cpu, a->governor, now, sizeof(now),
                                        why, whylen);
        if (rc < 0)
            return rc;
        sc__pfctl_call_logf(&a->r, "write: cpu %u governor %s -> %s, readback %s", a->j.gov[i].cpu,
                            a->j.gov[i].orig, a->governor, now);
    }
    return 0;
}

/* Writes, then verifies by reading everything back. */
static int sc__write_verified(sc__apply *a, char *why, size_t whylen)
{
    int rc;

    sc__log_msr_filter(a, "before");
    rc = sc__write_all(a, why, whylen);
    sc__log_msr_filter(a, "after");
    if (rc < 0)
        return rc;
    sc__observe(a);
    if (!sc__valid_pf(a) || !sc__valid_gov(a)) {
        sc__why(why, whylen,
                "streamcard: readback after the change: prefetch %s, governor %s "
                "(expected prefetch %s, governor %s)",
                a->obs_pf, a->obs_gov, sc_prefetch_name(a->req->prefetch), a->governor);
        return -EIO;
    }
    return 0;
}

/* The refusal for a live change of another job o (its live holders pruned), or of another
   `streamcard run --platform apply` (SC_PFCTL_CLI_JOB), named as such. */
static void sc__busy(const sc_journal *o, char *why, size_t whylen)
{
    char who[64], *cpus = sc_cpulist_format(o->cpus);

    if (o->job_id == SC_PFCTL_CLI_JOB)
        snprintf(who, sizeof(who), "streamcard run --platform apply as root");
    else
        snprintf(who, sizeof(who), "job %u", (unsigned)o->job_id);
    sc__why(why, whylen,
            "streamcard: node busy: %s holds prefetch=%s governor=%s on cpus %s (holder pid %ld "
            "alive) (valid: wait for %s to end, or leave prefetch and governor unchanged)",
            who, sc_prefetch_name(o->prefetch), o->governor, cpus ? cpus : "?",
            (long)o->holders[0].pid, who);
    free(cpus);
}

/* Refuses when another job holds a live change; restores the journals of dead jobs. */
static int sc__check_others(sc__apply *a, char *why, size_t whylen)
{
    uint32_t *jobs = NULL;
    size_t count = 0;
    int rc = sc_journal_list(&a->r.dir, &jobs, &count);

    for (size_t i = 0; rc == 0 && i < count; i++) {
        sc_journal o;
        char reason[512] = "";

        if (jobs[i] == a->job_id)
            continue;
        rc = sc_journal_init(&o, jobs[i]);
        if (rc == 0)
            rc = sc_journal_load(&a->r.dir, jobs[i], &o, reason, sizeof(reason));
        if (rc == -EBADMSG && sc_journal_prune_holders(&o) == 0) {
            /* Damaged and no step of it lives: restore what can be read, set it aside. A
               restore that fails leaves the platform as that job set it, so this job is not
               given it as its originals: refused, once (the file is set aside either way). */
            rc = 0;
            if (sc__pfctl_call_restore(&a->r, &o, reason) < 0) {
                sc__why(why, whylen,
                        "streamcard: node busy: the damaged journal of job %u could not be "
                        "restored (see the control log; valid: an admin checks the node)",
                        (unsigned)o.job_id);
                rc = -EBUSY;
            }
        } else if ((rc == 0 || rc == -EBADMSG) && sc_journal_prune_holders(&o) > 0) {
            sc__busy(&o, why, whylen);
            rc = -EBUSY;
        } else if (rc == 0) {
            sc__pfctl_call_logf(&a->r,
                                "job %u left a journal without a live holder: restoring it first",
                                (unsigned)o.job_id);
            if (sc__pfctl_call_restore(&a->r, &o, NULL) < 0) {
                sc__why(why, whylen,
                        "streamcard: node busy: the stale journal of job %u could "
                        "not be restored (see the control log)",
                        (unsigned)o.job_id);
                rc = -EBUSY;
            }
        } else if (rc != -ENOENT) {
            sc__why(why, whylen, "streamcard: cannot read the journal of job %u: %s",
                    (unsigned)jobs[i], strerror(-rc));
        } else {
            rc = 0;
        }
        sc_journal_free(&o);
    }
    free(jobs);
    return rc;
}

/* First step of the job: journal the originals, then write, then verify; roll back. */
static int sc__apply_fresh(sc__apply *a, unsigned long long start, char *why, size_t whylen)
{
    char gov[SC_GOVERNOR_MAX * 2];
    uint64_t v;
    unsigned cpu;
    int rc = hwloc_bitmap_copy(a->j.cpus, a->req->cpus) < 0 ? -ENOMEM : 0;

    a->j.prefetch = a->req->prefetch;
    snprintf(a->j.governor, sizeof(a->j.governor), "%s", a->governor);
    snprintf(a->j.arch, sizeof(a->j.arch), "%s", sc_arch_name(a->r.plat.arch.kind));
    hwloc_bitmap_foreach_begin(cpu, a->req->cpus)
    {
        if (rc == 0 && a->want_pf &&
            (rc = sc_platform_msr_read(&a->r.plat, cpu, a->reg, &v, why, whylen)) == 0) {
            sc_journal_msr m = {cpu, a->reg, a->mask, v};
            rc = sc_journal_add_msr(&a->j, &m);
        }
        if (rc == 0 && a->want_gov &&
            (rc = sc_platform_governor_read(&a->r.plat, cpu, gov, sizeof(gov), why, whylen)) == 0)
            rc = sc_journal_add_gov(&a->j, cpu, gov);
    }
    hwloc_bitmap_foreach_end();
    if (rc == 0)
        rc = sc_journal_add_holder(&a->j, a->holder, start);
    if (rc == 0)
        rc = sc_journal_store(&a->r.dir, &a->j, why, whylen);
    if (rc < 0)
        return rc; /* nothing written yet */
    a->journaled = true;
    a->fresh = true;
    sc__pfctl_call_logf(&a->r,
                        "journal: %s/job_%u.journal synced before any change: %zu register(s), "
                        "%zu governor(s), holder %ld",
                        a->r.dir.path, (unsigned)a->job_id, a->j.n_msr, a->j.n_gov,
                        (long)a->holder);
    for (size_t i = 0; i < a->j.n_gov; i++)
        sc__pfctl_call_logf(&a->r, "original: cpu %u governor %s", a->j.gov[i].cpu,
                            a->j.gov[i].orig);
    rc = sc__write_verified(a, why, whylen);
    if (rc < 0) {
        sc__pfctl_call_logf(&a->r, "ERROR: %s; restoring the originals", why);
        sc__pfctl_call_restore(&a->r, &a->j, NULL);
    }
    return rc;
}

/* A later step of the same job with the same request: add a reference, verify. */
static int sc__apply_join(sc__apply *a, unsigned long long start, char *why, size_t whylen)
{
    int rc = sc_journal_add_holder(&a->j, a->holder, start);

    if (rc == 0)
        rc = sc_journal_store(&a->r.dir, &a->j, why, whylen);
    if (rc < 0)
        return rc;
    a->journaled = true;
    sc__pfctl_call_logf(&a->r,
                        "journal: job %u already holds this change: holder %ld added (%zu "
                        "holders); the originals journaled by its first step are kept",
                        (unsigned)a->job_id, (long)a->holder, a->j.n_holders);
    sc__observe(a);
    if (sc__valid_pf(a) && sc__valid_gov(a))
        return 0;
    sc__pfctl_call_logf(&a->r, "readback differs from the request: writing it again");
    rc = sc__write_verified(a, why, whylen);
    if (rc < 0) { /* drop only our reference: the other steps keep theirs */
        sc_journal_remove_holder(&a->j, a->holder);
        sc_journal_store(&a->r.dir, &a->j, NULL, 0);
    }
    return rc;
}

/* This job's own journal is damaged: while another of its steps holds it, refused; else
   restored as far as it can be read, set aside, and the change made afresh. */
static int sc__apply_over_damaged(sc__apply *a, unsigned long long start, char *why, size_t whylen)
{
    char damaged[512];

    snprintf(damaged, sizeof(damaged), "%s", why);
    if (sc_journal_prune_holders(&a->j) > 0) {
        sc__why(why, whylen,
                "streamcard: node busy: the journal of job %u is damaged while its step (pid "
                "%ld) holds it (valid: wait for that step to end)",
                (unsigned)a->job_id, (long)a->j.holders[0].pid);
        return -EBUSY;
    }
    *why = '\0';
    int rc = sc__pfctl_call_restore(&a->r, &a->j, damaged);
    sc_journal_free(&a->j);
    if (rc == 0)
        rc = sc_journal_init(&a->j, a->job_id);
    return rc < 0 ? rc : sc__apply_fresh(a, start, why, whylen);
}

/* Under the lock: conflicts, then join, replace a stale journal of this job, or start. */
static int sc__apply_locked(sc__apply *a, char *why, size_t whylen)
{
    unsigned long long start;
    int rc = sc_proc_start_time(a->holder, &start);

    if (rc < 0) {
        sc__why(why, whylen,
                "streamcard: holder pid %ld refused: %s (valid: the pid of the "
                "calling slurmstepd)",
                (long)a->holder, strerror(-rc));
        return rc;
    }
    rc = sc__pfctl_call_lock(&a->r, why, whylen);
    if (rc == 0)
        rc = sc__check_others(a, why, whylen);
    if (rc == 0)
        rc = sc_journal_load(&a->r.dir, a->job_id, &a->j, why, whylen);
    if (rc == -ENOENT)
        return sc__apply_fresh(a, start, why, whylen);
    if (rc == -EBADMSG)
        return sc__apply_over_damaged(a, start, why, whylen);
    if (rc < 0)
        return rc;
    if (sc_journal_same_request(&a->j, a->req->prefetch, a->governor, a->req->cpus))
        return sc__apply_join(a, start, why, whylen);
    if (sc_journal_prune_holders(&a->j) > 0 && a->job_id == SC_PFCTL_CLI_JOB) {
        sc__busy(&a->j, why, whylen); /* another root command's change, not a step's */
        return -EBUSY;
    }
    if (sc_journal_prune_holders(&a->j) > 0) {
        sc__why(why, whylen,
                "streamcard: node busy: job %u already holds prefetch=%s "
                "governor=%s for its other steps (valid: the same settings in "
                "every step of a job)",
                (unsigned)a->job_id, sc_prefetch_name(a->j.prefetch), a->j.governor);
        return -EBUSY;
    }
    sc__pfctl_call_logf(&a->r, "job %u: its earlier change has no live holder: restoring it first",
                        (unsigned)a->job_id);
    rc = sc__pfctl_call_restore(&a->r, &a->j, NULL);
    sc_journal_free(&a->j);
    if (rc == 0)
        rc = sc_journal_init(&a->j, a->job_id);
    return rc < 0 ? rc : sc__apply_fresh(a, start, why, whylen);
}

/* The four evidence texts; the control log is handed over as it is. */
static void sc__evidence(sc__apply *a, int rc, sc_pfctl_evidence *ev)
{
    char *cpus = a->req->cpus ? sc_cpulist_format(a->req->cpus) : NULL;
    sc_kv before, env;

    sc_kv_init(&before);
    sc_kv_init(&env);
    if (!a->want_pf)
        sc_kv_append(&before, "# prefetch unchanged: no register was read\n");
    else if (!a->journaled)
        sc_kv_append(&before, "# no originals recorded: the change was refused or failed\n");
    for (size_t i = 0; a->journaled && i < a->j.n_msr; i++) {
        char line[128];
        const sc_journal_msr *m = &a->j.msr[i];
        snprintf(line, sizeof(line), "cpu=%u reg=0x%x value=0x%016llx state=%s\n", m->cpu,
                 (unsigned)m->reg, (unsigned long long)m->orig,
                 sc_pfstate_name(sc_pfstate_of(m->orig, m->mask)));
        sc_kv_append(&before, line);
    }
    if (!a->want_pf)
        sc_kv_append(&a->after, "# prefetch unchanged: no register was read\n");
    else if (!a->after.text)
        sc_kv_append(&a->after, "# nothing could be read back\n");
    sc_kv_addf(&env, "REQUESTED_PREFETCH", "%s", sc_prefetch_name(a->req->prefetch));
    sc_kv_addf(&env, "OBSERVED_STATE", "%s", a->obs_pf);
    /* Valid: nothing asked, or the change was made and reads back as asked. */
    sc_kv_addf(&env, "STATE_VALID", "%d", !a->want_pf || (rc == 0 && sc__valid_pf(a)));
    sc_kv_addf(&env, "REQUESTED_GOVERNOR", "%s", a->governor);
    sc_kv_addf(&env, "OBSERVED_GOVERNOR", "%s", a->obs_gov);
    sc_kv_addf(&env, "GOVERNOR_VALID", "%d", !a->want_gov || (rc == 0 && sc__valid_gov(a)));
    sc_kv_addf(&env, "ARCH", "%s",
               a->r.plat_rc == 0 ? sc_arch_name(a->r.plat.arch.kind) : "unknown");
    if (a->want_pf && a->reg) {
        sc_kv_addf(&env, "REGISTER", "0x%x", (unsigned)a->reg);
        sc_kv_addf(&env, "MASK", "0x%llx", (unsigned long long)a->mask);
    } else {
        sc_kv_addf(&env, "REGISTER", "none");
        sc_kv_addf(&env, "MASK", "none");
    }
    sc_kv_addf(&env, "CPUS", "%s", cpus ? cpus : "");
    free(cpus);
    ev->control_log = a->r.log.text;
    ev->msr_readback_before = before.text;
    ev->msr_readback_after = a->after.text;
    ev->state_env = env.text;
    ev->node_log = a->r.notes.text;
    ev->started = a->fresh && rc == 0;
    sc_kv_init(&a->r.notes);
    sc_kv_init(&a->r.log);
    sc_kv_init(&a->after);
}

int sc_pfctl_apply(const sc_pfctl_config *cfg, uint32_t job_id, pid_t holder,
                   const sc_pfctl_request *req, sc_pfctl_evidence *ev, char *why, size_t whylen)
{
    char reason[1024] = "", *cpus = req->cpus ? sc_cpulist_format(req->cpus) : NULL;
    sc__apply a;
    int rc;

    memset(&a, 0, sizeof(a));
    memset(ev, 0, sizeof(*ev));
    sc__pfctl_call_init(&a.r, cfg);
    sc_kv_init(&a.after);
    a.job_id = job_id;
    a.holder = holder;
    a.req = req;
    a.governor = req->governor && *req->governor ? req->governor : "unchanged";
    a.want_pf = req->prefetch != SC_PREFETCH_UNCHANGED;
    a.want_gov = strcmp(a.governor, "unchanged") != 0;
    snprintf(a.obs_pf, sizeof(a.obs_pf), "%s", a.want_pf ? "unknown" : "unchanged");
    snprintf(a.obs_gov, sizeof(a.obs_gov), "%s", a.want_gov ? "unknown" : "unchanged");
    sc__pfctl_call_logf(&a.r, "apply: job %u holder %ld: prefetch=%s governor=%s cpus=%s",
                        (unsigned)job_id, (long)holder, sc_prefetch_name(req->prefetch), a.governor,
                        cpus ? cpus : "?");
    rc = sc_journal_init(&a.j, job_id);
    if (rc == 0 && !a.want_pf && !a.want_gov)
        sc__pfctl_call_logf(&a.r, "nothing to do: prefetch and governor are unchanged");
    else if (rc == 0)
        rc = sc__apply_check(&a, reason, sizeof(reason));
    if (rc == 0 && (a.want_pf || a.want_gov))
        rc = sc__apply_locked(&a, reason, sizeof(reason));
    if (rc == 0 && (a.want_pf || a.want_gov))
        sc__pfctl_call_logf(&a.r, "apply: done: prefetch %s, governor %s", a.obs_pf, a.obs_gov);
    else if (rc < 0)
        sc__pfctl_call_logf(&a.r, "%s: %s", rc == -EIO || rc == -ENOMEM ? "ERROR" : "REFUSED",
                            *reason ? reason : strerror(-rc));
    sc__observe(&a); /* the final state, also after a refusal or a rollback */
    sc__evidence(&a, rc, ev);
    if (why && whylen)
        snprintf(why, whylen, "%s", rc < 0 ? (*reason ? reason : strerror(-rc)) : "");
    free(cpus);
    sc_kv_free(&a.after);
    sc_journal_free(&a.j);
    sc__pfctl_call_end(&a.r, NULL);
    return rc;
}

void sc_pfctl_evidence_free(sc_pfctl_evidence *ev)
{
    if (!ev)
        return;
    free(ev->control_log);
    free(ev->msr_readback_before);
    free(ev->msr_readback_after);
    free(ev->state_env);
    free(ev->node_log);
    memset(ev, 0, sizeof(*ev));
}
