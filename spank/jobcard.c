/*
 * jobcard.c: the card from the submitting user to slurmstepd through the job's environment
 * (see jobcard.h).
 */
#include "jobcard.h"
#include "card_child.h"
#include "sc_card_lines.h"
#include "sc_codec.h"
#include "sc_file.h"
#include "spank_log.h"

#include <errno.h>
#include <fcntl.h>
#include <slurm/slurm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One problem with the card: logged now and, when keep is not NULL, kept. */
static void sc__problem(sc_diag *keep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sc__problem(sc_diag *keep, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    sc_spank_error("%s", line);
    if (keep)
        sc_diag_addf(keep, "%s", line);
}

void sc_jobcard_report(const sc_diag *d, sc_diag *keep)
{
    for (size_t i = 0; i < d->count; i++)
        sc__problem(keep, "streamcard: %s", d->lines[i]);
    if (d->more)
        sc__problem(keep, "streamcard: ... and %zu more problem%s", d->more,
                    d->more == 1 ? "" : "s");
}

/* Parses and checks card text (the rules of `streamcard run --dry-run`, minus the
   machine), as the submitting user. Returns the card, or NULL with every problem reported. */
static sc_card *sc__load(const char *text, size_t len, const char *name)
{
    sc_card *card = sc_card_new();
    sc_diag d;
    int rc;

    sc_diag_init(&d);
    rc = card ? sc_card_parse(card, text, len, name, &d) : -ENOMEM;
    /* Key and value errors are reported together with the card's other problems. */
    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(card, &d);
        rc = rc < 0 ? rc : crc;
    }
    if (rc == 0 && card->n_sweep) {
        sc_diag_addf(&d,
                     "%s: --stream-card takes the card of one run, and this one sweeps %s "
                     "(valid: streamcard run %s --submit, one job per value)",
                     name, sc_card_field_name(card->sweep_field), name);
        rc = -EINVAL;
    }
    /* The node reads cpu_list, prefetch and governor from the card's lines as well, as root:
       a card written so that it cannot is refused here, with the node's reason. */
    if (rc == 0)
        rc = sc_card_lines_check(text, len, card, name, &d);
    if (rc < 0 && !d.count)
        sc__problem(NULL, "streamcard: %s: %s", name, strerror(-rc));
    sc_jobcard_report(&d, NULL);
    sc_diag_free(&d);
    if (rc < 0) {
        sc_card_free(card);
        return NULL;
    }
    return card;
}

int sc_jobcard_send(const char *path)
{
    char *text = NULL, *b64 = NULL, sha[SC_HASH_HEX_LEN + 1];
    size_t len = 0;
    sc_card *card;
    int rc;

    /* srun inside a --stream-card job inherits the option: the card already travelled. */
    if (getenv("SLURM_JOB_ID") && getenv(SC_JOBCARD_ENV_B64))
        return 0;
    rc = sc_file_read_at(AT_FDCWD, path, 0, SC_CARD_MAX_BYTES + 1, &text, &len);
    if (rc < 0) {
        sc_spank_error("streamcard: %s: cannot read the card: %s", path,
                       rc == -EFBIG ? "larger than 64 KiB (valid: at most 65536 bytes)"
                                    : strerror(-rc));
        return -1;
    }
    if (!(card = sc__load(text, len, path))) {
        free(text);
        return -1;
    }
    sc_card_free(card);
    b64 = sc_base64_encode(text, len);
    rc = b64 ? sc_hash_buf(text, len, sha) : -ENOMEM;
    const char *base = strrchr(path, '/');
    if (rc == 0 &&
        (setenv(SC_JOBCARD_ENV_B64, b64, 1) < 0 || setenv(SC_JOBCARD_ENV_SHA, sha, 1) < 0 ||
         setenv(SC_JOBCARD_ENV_NAME, base ? base + 1 : path, 1) < 0))
        rc = -errno;
    if (rc < 0)
        sc_spank_error("streamcard: cannot pass the card to the job: %s", strerror(-rc));
    free(b64);
    free(text);
    return rc < 0 ? -1 : 0;
}

/*
 * The card's bytes from the job's environment, decoded: *text (malloc'd), its SHA-256 as
 * announced in *sha and computed in jc->sha, its name. Returns 1 when the job has no card,
 * 0, or -1 with the problem logged and kept. The base64 text is bounded before it is
 * decoded: a longer variable is refused, not read.
 */
static int sc__receive_bytes(spank_t sp, sc_jobcard *jc, char name[SC_JOBCARD_NAME_MAX + 1],
                             char **text, size_t *len, sc_diag *problems)
{
    char sha[SC_HASH_HEX_LEN + 2] = "", full_name[256] = "card";
    char *b64 = malloc(SC_JOBCARD_MAX_B64 + 2);
    int rc = -1;

    if (!b64)
        return -1;
    spank_err_t err = spank_getenv(sp, SC_JOBCARD_ENV_B64, b64, SC_JOBCARD_MAX_B64 + 2);
    if (err == ESPANK_ENV_NOEXIST) {
        rc = 1;
        goto out;
    }
    if (spank_getenv(sp, SC_JOBCARD_ENV_NAME, full_name, sizeof(full_name)) != ESPANK_SUCCESS)
        snprintf(full_name, sizeof(full_name), "card");
    snprintf(name, SC_JOBCARD_NAME_MAX + 1, "%s", full_name);
    if (err == ESPANK_NOSPACE) {
        sc__problem(problems,
                    "streamcard: the card in %s is larger than a card may hold (valid: at most "
                    "%d bytes; submit with sbatch --stream-card=CARD)",
                    SC_JOBCARD_ENV_B64, SC_CARD_MAX_BYTES);
        goto out;
    }
    if (err != ESPANK_SUCCESS ||
        spank_getenv(sp, SC_JOBCARD_ENV_SHA, sha, sizeof(sha)) != ESPANK_SUCCESS ||
        sc_base64_decode(b64, text, len) < 0 || *len > SC_CARD_MAX_BYTES ||
        sc_hash_buf(*text, *len, jc->sha) < 0 || strcmp(jc->sha, sha) != 0) {
        sc__problem(problems,
                    "streamcard: the card in %s does not match its SHA-256 %.64s (resubmit "
                    "the job)",
                    SC_JOBCARD_ENV_B64, sha);
        goto out;
    }
    rc = 0;
out:
    free(b64);
    return rc;
}

/* The card's record as the card check wrote it, run under its own account (check_user:
   *uid receives that account's uid, which the record must name). -1 when no record could be
   had (the reason logged and kept). */
static int sc__check_apart(spank_t sp, const sc_jobcard *jc, const char *check_user,
                           const char *name, const char *text, size_t len, char **record,
                           size_t *rlen, uid_t *uid, sc_diag *problems)
{
    char helper[4096], why[512] = "";
    uid_t job_uid = 0;
    gid_t gid = 0;
    int rc = sc_card_child_helper(helper, sizeof(helper));

    if (rc < 0)
        snprintf(why, sizeof(why), "cannot find %s next to the plugin: %s", SC_CARD_CHILD_NAME,
                 strerror(-rc));
    else if (spank_get_item(sp, S_JOB_UID, &job_uid) != ESPANK_SUCCESS) {
        snprintf(why, sizeof(why), "the job's user is unknown");
        rc = -ESRCH;
    } else if ((rc = sc_card_child_account(check_user, uid, &gid, why, sizeof(why))) == 0 &&
               *uid == job_uid) {
        /* The job's user could reach a check of its own uid (ptrace, signals). */
        snprintf(why, sizeof(why),
                 "the job runs as %s, the card check's own account (valid: submit as another "
                 "user)",
                 check_user);
        rc = -EPERM;
    }
    if (rc == 0) {
        sc_card_child_in in = {.helper = helper,
                               .text = text,
                               .len = len,
                               .sha = jc->sha,
                               .name = name,
                               .uid = *uid,
                               .gid = gid,
                               .deadline_ms = SC_CARD_CHILD_DEADLINE_MS};
        rc = sc_card_child_run(&in, record, rlen, why, sizeof(why));
    }
    if (rc < 0)
        sc__problem(problems,
                    "streamcard: %s: the card was not checked: %s (an admin must look "
                    "at the node)",
                    name, why);
    return rc < 0 ? -1 : 0;
}

int sc_jobcard_receive(spank_t sp, sc_jobcard *jc, const char *check_user, sc_diag *problems)
{
    char name[SC_JOBCARD_NAME_MAX + 1] = "card", why[600] = "", *text = NULL, *record = NULL;
    size_t len = 0, rlen = 0;
    uid_t uid = 0;
    sc_diag found;

    memset(jc, 0, sizeof(*jc));
    sc_diag_init(&found);
    int rc = sc__receive_bytes(sp, jc, name, &text, &len, problems);
    if (rc == 0)
        rc = sc__check_apart(sp, jc, check_user, name, text, len, &record, &rlen, &uid, problems);
    if (rc == 0) {
        rc = sc_card_record_read(record, rlen, jc->sha, (unsigned)uid, name, &jc->card, &found, why,
                                 sizeof(why));
        if (rc == -EINVAL) {
            sc_jobcard_report(&found, problems); /* the card's own problems */
        } else if (rc < 0) {
            sc__problem(problems, "streamcard: %s: the card check's record is refused: %s", name,
                        rc == -EBADMSG ? why : strerror(-rc));
        } else if (sc_card_lines_check(text, len, jc->card, name, &found) < 0) {
            /* The record must describe these very bytes: the CPUs and settings root acts on,
               as root reads them from the card's lines itself. */
            sc__problem(problems, "streamcard: the card check's record is refused: %s",
                        found.count ? found.lines[found.count - 1] : "out of memory");
            sc_card_free(jc->card);
            jc->card = NULL;
            rc = -EBADMSG;
        } else { /* who checked it: the audit trail of the one step that parses the card */
            sc_spank_info("streamcard: card %s (SHA-256 %.12s...) checked as %s (uid %u)", name,
                          jc->sha, check_user, (unsigned)uid);
        }
        rc = rc < 0 ? -1 : 0;
    }
    if (rc == 0) {
        jc->text = text;
        text = NULL;
    }
    free(text);
    free(record);
    sc_diag_free(&found);
    return rc;
}

void sc_jobcard_free(sc_jobcard *jc)
{
    sc_card_free(jc->card);
    free(jc->text);
    memset(jc, 0, sizeof(*jc));
}
