/*
 * fuzz_record.c: the card check's record (core/card/sc_card_record.h), which root reads on the
 * compute node from a child running as the user: whatever the child writes, the reader
 * returns a card, a refusal with printable problems, or refuses the record. A card it
 * returns passes the card rules, has no sweep, and its record, written again, reads back
 * to the same fields.
 */
#include "support.h"

#include "sc_card.h"
#include "sc_card_record.h"
#include "sc_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SHA-256 and uid of the seeds (corpus/record/). */
#define SC__SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define SC__UID 1001

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_card *card = NULL, *again = NULL;
    char why[600] = "";
    sc_diag d, d2;

    sc_diag_init(&d);
    sc_diag_init(&d2);
    int rc = sc_card_record_read((const char *)data, size, SC__SHA, SC__UID, "fuzz.yaml", &card, &d,
                                 why, sizeof(why));
    sc_fuzz_require(rc == 0 || rc == -EINVAL || rc == -EBADMSG, "an unexpected result");
    sc_fuzz_require((rc == 0) == (card != NULL), "a card without success, or the reverse");
    sc_fuzz_require(rc != -EBADMSG ||
                        (*why && sc_text_is_printable(why, strlen(why)) && !strchr(why, '\n')),
                    "a refused record without a one-line reason");
    for (size_t i = 0; rc == -EINVAL && i < d.count; i++)
        sc_fuzz_require(sc_text_is_printable(d.lines[i], strlen(d.lines[i])),
                        "a problem that is not printable");
    if (rc == 0) {
        sc_fuzz_require(card->sweep_field == SC_CF_COUNT, "a card with a sweep");
        sc_fuzz_require(sc_card_check(card, &d2) == 0, "a card that fails the card rules");
        char *text = sc_card_record_format(card, 0, NULL, SC__SHA, SC__UID);
        sc_fuzz_require(text != NULL, "out of memory");
        rc = sc_card_record_read(text, strlen(text), SC__SHA, SC__UID, "fuzz.yaml", &again, &d2,
                                 why, sizeof(why));
        if (rc != 0)
            fprintf(stderr, "--- written again:\n%s--- refused: %s\n", text, why);
        sc_fuzz_require(rc == 0, "a card's record, written again, does not read back");
        char *text2 = sc_card_record_format(again, 0, NULL, SC__SHA, SC__UID);
        sc_fuzz_require(text2 && strcmp(text, text2) == 0, "the record changed in a round trip");
        free(text);
        free(text2);
    }
    sc_card_free(card);
    sc_card_free(again);
    sc_diag_free(&d);
    sc_diag_free(&d2);
    return 0;
}
