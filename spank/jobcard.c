/*
 * jobcard.c: the card from the submitting user to slurmstepd through the job's environment
 * (see jobcard.h).
 */
#include "jobcard.h"
#include "sc_codec.h"
#include "sc_file.h"

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
    slurm_error("%s", line);
    if (keep)
        sc_diag_addf(keep, "%s", line);
}

void sc_jobcard_report(const sc_diag *d, sc_diag *keep)
{
    for (size_t i = 0; i < d->count; i++)
        sc__problem(keep, "streamcard: %s", d->lines[i]);
}

/* Parses and checks card text (the rules of `streamcard run --dry-run`, minus the
   machine). Returns the card, or NULL with every problem reported. */
static sc_card *sc__load(const char *text, size_t len, const char *name, sc_diag *keep)
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
    if (rc < 0 && !d.count)
        sc__problem(keep, "streamcard: %s: %s", name, strerror(-rc));
    sc_jobcard_report(&d, keep);
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
    rc = sc_file_read_at(AT_FDCWD, path, 0, SC_JOBCARD_MAX_BYTES, &text, &len);
    if (rc < 0) {
        slurm_error("streamcard: %s: cannot read the card: %s", path,
                    rc == -EFBIG ? "larger than 64 KiB" : strerror(-rc));
        return -1;
    }
    if (!(card = sc__load(text, len, path, NULL))) {
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
        slurm_error("streamcard: cannot pass the card to the job: %s", strerror(-rc));
    free(b64);
    free(text);
    return rc < 0 ? -1 : 0;
}

int sc_jobcard_receive(spank_t sp, sc_jobcard *jc, sc_diag *problems)
{
    char *b64 = malloc(SC_JOBCARD_MAX_BYTES * 2), sha[SC_HASH_HEX_LEN + 1] = "";
    char name[256] = "card", *text = NULL;
    size_t len = 0;
    int rc = 1;

    memset(jc, 0, sizeof(*jc));
    if (!b64)
        return -1;
    if (spank_getenv(sp, SC_JOBCARD_ENV_B64, b64, SC_JOBCARD_MAX_BYTES * 2) != ESPANK_SUCCESS)
        goto out;
    spank_getenv(sp, SC_JOBCARD_ENV_SHA, sha, sizeof(sha));
    spank_getenv(sp, SC_JOBCARD_ENV_NAME, name, sizeof(name));
    rc = -1;
    if (sc_base64_decode(b64, &text, &len) < 0 || sc_hash_buf(text, len, jc->sha) < 0 ||
        strcmp(jc->sha, sha) != 0) {
        sc__problem(problems,
                    "streamcard: the card in %s does not match its SHA-256 %s (resubmit "
                    "the job)",
                    SC_JOBCARD_ENV_B64, sha);
        goto out;
    }
    if (!(jc->card = sc__load(text, len, name, problems)))
        goto out;
    jc->text = text;
    text = NULL;
    rc = 0;
out:
    free(text);
    free(b64);
    return rc;
}

void sc_jobcard_free(sc_jobcard *jc)
{
    sc_card_free(jc->card);
    free(jc->text);
    memset(jc, 0, sizeof(*jc));
}
