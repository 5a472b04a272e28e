/*
 * fuzz_card_lines.c: root's reading of a card's cpu_list, prefetch and governor from its
 * lines, without a YAML parser (core/card/sc_card_lines.h). The property that makes it safe: it
 * never reads a value YAML does not give. For any input that libyaml reads as a card, each
 * key the scan finds is given by YAML with the same value (through the card schema's
 * conversion); whatever the input, the scan ends, and the card check it feeds accepts the
 * card read from the same bytes or says why in one printable line.
 */
#include "support.h"

#include "card_lines_util.h"
#include "sc_card.h"
#include "sc_card_lines.h"
#include "sc_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = sc_fuzz_text(data, size);
    sc_card *card = sc_card_new();
    sc_diag d;

    sc_fuzz_require(text && card, "out of memory");
    sc_diag_init(&d);
    int rc = sc_card_parse(card, text, size, "fuzz.yaml", &d);
    if (rc == 0)
        sc_fuzz_require(sc_test_lines_disagree("fuzz", text, size) == 0,
                        "the scan reads a value YAML does not give");
    if (rc == 0) {
        sc_diag_free(&d);
        if (sc_card_lines_check(text, size, card, "fuzz.yaml", &d) < 0)
            sc_fuzz_require(d.count == 1 && sc_text_is_printable(d.lines[0], strlen(d.lines[0])),
                            "a refusal without one printable line");
    }
    sc_card_free(card);
    sc_diag_free(&d);
    free(text);
    return 0;
}
