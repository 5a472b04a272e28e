/*
 * fuzz_card_lines.c: root's reading of a card's cpu_list, prefetch and governor from its
 * lines, without a YAML parser (core/sc_card_lines.h). The property that makes it safe: it
 * never reads a value YAML does not give. For any input that libyaml reads as a card, each
 * key the scan finds is given by YAML with the same value (through the card schema's
 * conversion); whatever the input, the scan ends, and the card check it feeds accepts the
 * card read from the same bytes or says why in one printable line.
 */
#include "support.h"

#include "sc_card.h"
#include "sc_card_lines.h"
#include "sc_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sc__keys[SC_CARD_LINES_KEYS] = {"cpu_list", "prefetch", "governor"};

/* What YAML makes of "key: value" alone, through the card schema; NULL when refused. */
static sc_card *sc__one_key(const char *key, const char *value, size_t len)
{
    char yaml[SC_CARD_MAX_SCALAR + 128];
    sc_card *card = sc_card_new();
    sc_diag d;

    sc_diag_init(&d);
    snprintf(yaml, sizeof(yaml), "version: 1\nexperiment:\n  %s: \"%.*s\"\n", key, (int)len, value);
    if (card && sc_card_parse(card, yaml, strlen(yaml), "one", &d) < 0) {
        sc_card_free(card);
        card = NULL;
    }
    sc_diag_free(&d);
    return card;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = sc_fuzz_text(data, size);
    sc_card *card = sc_card_new();
    sc_card_lines l;
    sc_diag d;

    sc_fuzz_require(text && card, "out of memory");
    sc_diag_init(&d);
    sc_card_lines_scan(text, size, &l);
    int rc = sc_card_parse(card, text, size, "fuzz.yaml", &d);
    for (int k = 0; rc == 0 && !l.unclear_line && k < SC_CARD_LINES_KEYS; k++) {
        const sc_card_line *c = &l.key[k];
        sc_card_field f = sc_card_lines_fields[k];
        if (c->state != SC_CARD_LINE_FOUND)
            continue;
        sc_fuzz_require(c->off + c->len <= size, "a value outside the text");
        sc_card *t = sc__one_key(sc__keys[k], text + c->off, c->len);
        bool same = t && card->present[f] &&
                    (k == 0   ? hwloc_bitmap_isequal(t->cpus, card->cpus)
                     : k == 1 ? t->prefetch == card->prefetch
                              : !strcmp(t->governor, card->governor));
        if (!same)
            fprintf(stderr, "key %s: the scan reads \"%.*s\" (line %d), YAML %s\n", sc__keys[k],
                    (int)c->len, text + c->off, c->line,
                    card->present[f] ? "gives another value" : "does not give it");
        sc_fuzz_require(same, "the scan reads a value YAML does not give");
        sc_card_free(t);
    }
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
