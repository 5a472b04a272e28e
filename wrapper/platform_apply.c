/*
 * platform_apply.c: `streamcard run --platform apply` (see platform_apply.h): the refusals
 * said before anything runs, then the plugin's facade (spank/pfctl.h) for the change and its
 * restore. Nothing here writes to the machine: every write is spank/platform.c's, under the
 * sysroot.
 */
#include "platform_apply.h"
#include "policy.h"
#include "sc_file.h"
#include "sc_fsroot.h"
#include "sc_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The policy file may be at most this long (a handful of key=value words). */
#define SC__POLICY_MAX_BYTES 4096

/*
 * The node's policy from SC_POLICY_FILE under sysroot: a regular file owned by root that
 * no one else may write (it decides what root's command may change). A missing file is the
 * plugin's default: nothing may be changed (*found false). 0, or -errno with why.
 */
static int sc__policy_load(const char *sysroot, sc_policy *p, bool *found, char *why, size_t whylen)
{
    sc_fsroot root;
    struct stat st;
    char *text = NULL;
    int rc = sc_fsroot_open(&root, sysroot), fd = -1;

    *found = false;
    sc_policy_parse(p, 0, NULL, NULL, 0); /* the defaults */
    if (rc == 0)
        fd = rc = sc_fsroot_openat(&root, SC_POLICY_FILE, O_RDONLY | O_NOFOLLOW);
    if (rc == -ENOENT) {
        rc = 0;
    } else if (rc < 0) {
        snprintf(why, whylen, "cannot open it: %s", strerror(-rc));
    } else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
               (st.st_mode & (S_IWGRP | S_IWOTH))) {
        snprintf(why, whylen, "not a regular file owned by root that only root may write");
        rc = -EPERM;
    } else if ((rc = sc_file_read_fd(fd, SC__POLICY_MAX_BYTES, &text, NULL)) < 0) {
        snprintf(why, whylen, "cannot read it (at most %d bytes): %s", SC__POLICY_MAX_BYTES,
                 strerror(-rc));
    } else {
        *found = true;
        rc = sc_policy_parse_text(p, text, why, whylen);
    }
    if (fd >= 0)
        close(fd);
    free(text);
    sc_fsroot_close(&root);
    return rc;
}

/* The policy file's path as the admin sees it: under the sysroot. */
static void sc__policy_path(const char *sysroot, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", strcmp(sysroot, "/") ? sysroot : "", SC_POLICY_FILE);
}

/* What runs inside a job or through sbatch: the plugin owns the platform there. */
static bool sc__refuse_context(const sc_run_opts *opts, const sc_series *series, sc_diag *diag)
{
    const char *job = getenv("SLURM_JOB_ID");

    if (geteuid() != 0)
        sc_diag_addf(diag, "--platform apply: needs root: it writes the prefetch registers and "
                           "governors of the card's CPUs (valid: run it as root outside Slurm; "
                           "as a user, submit the card with streamcard run CARD --submit, and "
                           "the SPANK plugin sets the platform)");
    else if (opts->adopt_bundle || (job && *job))
        sc_diag_addf(diag,
                     "--platform apply: inside Slurm job %s the SPANK plugin owns this node's "
                     "platform (valid: the card's prefetch and governor through sbatch "
                     "--stream-card=CARD, or streamcard run CARD --submit; --platform apply "
                     "only as root outside Slurm)",
                     job && *job ? job : "(the plugin's bundle)");
    else if (opts->submit)
        sc_diag_addf(diag, "--platform apply: with --submit every job's platform is the SPANK "
                           "plugin's (valid: --submit, or --platform apply as root here)");
    else if (series->paired)
        sc_diag_addf(diag, "--platform apply: a paired run's sides take turns in one process, "
                           "and a change is restored when its side's bundle ends (valid: one "
                           "card without --against or against:)");
    else
        return false;
    return true;
}

/* The node's policy must let the series change what it asks (want_pf, want_gov). */
static int sc__check_policy(const char *sysroot, bool want_pf, bool want_gov, sc_diag *diag)
{
    char why[512] = "", path[600];
    bool found;
    sc_policy policy;

    sc__policy_path(sysroot, path, sizeof(path));
    int rc = sc__policy_load(sysroot, &policy, &found, why, sizeof(why));
    if (rc < 0) {
        sc_diag_addf(diag, "--platform apply: the node's policy %s: %s (valid: %s)", path, why,
                     "root's file of the plugin's arguments, e.g. allow=prefetch,governor");
        return rc == -ENOMEM ? rc : -EINVAL;
    }
    const char *what = want_pf && !policy.allow_prefetch    ? "prefetch"
                       : want_gov && !policy.allow_governor ? "governor"
                                                            : NULL;
    if (!what)
        return 0;
    sc_diag_addf(diag,
                 "--platform apply: the node's policy %s does not let the card change %s%s "
                 "(valid: %s: unchanged; or root adds allow=%s to %s)",
                 path, what, found ? "" : " (no policy file: nothing may be changed)", what,
                 want_pf && want_gov ? "prefetch,governor" : what, path);
    return -EINVAL;
}

int sc_apply_check(const sc_run_opts *opts, const sc_series *series, sc_diag *diag)
{
    bool want_pf = false, want_gov = false;

    if (sc__refuse_context(opts, series, diag))
        return -EINVAL;
    for (size_t i = 0; i < series->n; i++) {
        const sc_card *c = series->runs[i].card;
        if (!c)
            continue;
        want_pf |= c->prefetch != SC_PREFETCH_UNCHANGED;
        want_gov |= strcmp(c->governor, "unchanged") != 0;
    }
    /* A value's change stays set from its bundle's first run to its last: the values of a
       sweep of several runs each take turns run by run, so their changes would overlap. */
    for (size_t i = 0; series->n > 1 && i < series->n; i++)
        if (series->runs[i].card && !sc_runs_flat(series->runs[i].card)) {
            sc_diag_addf(diag, "--platform apply: the values of a series with runs: other than 1 "
                               "take turns run by run, and each value's platform stays set from "
                               "its first run to its last (valid: runs: 1 in a sweep or study, or "
                               "one value per streamcard run)");
            return -EINVAL;
        }
    if (!want_pf && !want_gov) {
        sc_diag_addf(diag, "--platform apply: the card leaves prefetch and governor unchanged: "
                           "nothing to apply (valid: prefetch: on or off, or a governor, in the "
                           "card; or no --platform apply)");
        return -EINVAL;
    }
    return sc__check_policy(opts->sysroot, want_pf, want_gov, diag);
}

int sc_apply_start(sc_apply *a, const sc_run_opts *opts, const sc_card *card, char *why,
                   size_t whylen)
{
    char reason[512] = "";
    bool found;
    sc_policy policy;

    memset(a, 0, sizeof(*a));
    a->holder = getpid();
    int rc = sc__policy_load(opts->sysroot, &policy, &found, reason, sizeof(reason));
    if (rc < 0) {
        snprintf(why, whylen, "streamcard: --platform apply: the node's policy: %s", reason);
        return rc;
    }
    snprintf(a->state_dir, sizeof(a->state_dir), "%s", policy.state_dir);
    a->cfg = (sc_pfctl_config){.sysroot = opts->sysroot, .state_dir = a->state_dir};
    /* Root outside Slurm holds the whole node: no job's CPUs to keep a write inside. */
    sc_pfctl_request req = {.prefetch = card->prefetch,
                            .governor = card->governor,
                            .cpus = card->cpus,
                            .allow_prefetch = policy.allow_prefetch,
                            .allow_governor = policy.allow_governor,
                            .job_cpus = NULL};
    rc = sc_pfctl_apply(&a->cfg, SC_APPLY_JOB, a->holder, &req, &a->ev, why, whylen);
    /* Held (a fresh change, or joined: another run of this kind holds the same one): the
       bundle's end drops this holder, and the last holder restores. */
    a->applied = rc == 0 && (card->prefetch != SC_PREFETCH_UNCHANGED ||
                             strcmp(card->governor, "unchanged") != 0);
    return rc;
}

int sc_apply_restore(sc_apply *a)
{
    if (!a->applied)
        return a->restore_rc;
    a->applied = false;
    a->restore_rc = sc_pfctl_release(&a->cfg, SC_APPLY_JOB, a->holder, &a->restore_log);
    return a->restore_rc;
}

void sc_apply_free(sc_apply *a)
{
    if (!a)
        return;
    sc_pfctl_evidence_free(&a->ev);
    free(a->restore_log);
    a->restore_log = NULL;
}
