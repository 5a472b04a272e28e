/*
 * fuzz_statement.c: the signed statement's readers (core/trust/sc_attest.h), which verify runs on
 * files the bundle's user wrote: an envelope is opened or refused (never accepted without a
 * trusted key), and a statement is read into bounded, printable fields or refused; one that
 * reads, made again, reads back to the same fields.
 */
#include "support.h"

#include "sc_attest.h"
#include "sc_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool sc__printable(const char *s)
{
    return sc_text_is_printable(s, strlen(s)) && !strchr(s, '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_attest_keyring ring = {.n = 0};
    sc_attest_claims c, again;
    char fpr[SC_ATTEST_FPR_LEN + 1], why[512] = "", *payload = NULL, *json = NULL;

    int rc = sc_attest_open(&ring, (const char *)data, size, &payload, fpr, why, sizeof(why));
    sc_fuzz_require(rc == -ENOKEY || rc == -EBADMSG || rc == -EFBIG || rc == -ENOMEM,
                    "an envelope accepted without a trusted key");
    sc_fuzz_require(payload == NULL, "a payload after a refusal");
    rc = sc_attest_statement_parse((const char *)data, size, &c, why, sizeof(why));
    sc_fuzz_require(rc == 0 || rc == -EBADMSG || rc == -ENOMEM, "an unexpected result");
    if (rc == -EBADMSG)
        sc_fuzz_require(*why && sc__printable(why), "a refusal without a one-line reason");
    if (rc != 0)
        return 0;
    sc_fuzz_require(c.n_subjects >= 1 && c.n_subjects <= SC_ATTEST_MAX_SUBJECTS &&
                        c.n_state <= SC_ATTEST_MAX_STATE,
                    "more entries than the bounds");
    sc_fuzz_require(sc__printable(c.user) && sc__printable(c.node) && sc__printable(c.phase),
                    "a field that is not printable");
    sc_fuzz_require(sc_attest_statement_make(&c, &json) == 0, "cannot make it again");
    sc_fuzz_require(sc_attest_statement_parse(json, strlen(json), &again, why, sizeof(why)) == 0,
                    "made again, it does not read back");
    sc_fuzz_require(again.job_id == c.job_id && !strcmp(again.node, c.node) &&
                        again.n_subjects == c.n_subjects && again.n_state == c.n_state,
                    "made again, it reads back to other fields");
    free(json);
    return 0;
}
