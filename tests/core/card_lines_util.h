/*
 * card_lines_util.h: the property that makes root's reading of a card's lines safe
 * (core/card/sc_card_lines.h), shared by its unit test and its fuzz target: for a text libyaml
 * reads as a card, each key the scan finds is one YAML gives, with the value the scan read
 * (through the card schema's conversion: the value root would act on).
 */
#ifndef SC_TEST_CARD_LINES_UTIL_H
#define SC_TEST_CARD_LINES_UTIL_H

#include "sc_card.h"
#include "sc_card_lines.h"

#include <stdio.h>
#include <string.h>

/* What YAML makes of "key: value" alone, as a card; NULL when the schema refuses it. */
static inline sc_card *sc_test_one_key(const char *key, const char *value, size_t len)
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

/* The disagreements between the scan and libyaml on text (each printed, named by name). */
static inline int sc_test_lines_disagree(const char *name, const char *text, size_t len)
{
    static const char *const keys[SC_CARD_LINES_KEYS] = {"cpu_list", "prefetch", "governor"};
    sc_card_lines l;
    sc_card *card = sc_card_new();
    sc_diag d;
    int bad = 0;

    sc_diag_init(&d);
    sc_card_lines_scan(text, len, &l);
    int rc = card ? sc_card_parse(card, text, len, "card.yaml", &d) : -1;
    for (int k = 0; rc == 0 && !l.unclear_line && k < SC_CARD_LINES_KEYS; k++) {
        const sc_card_line *c = &l.key[k];
        sc_card_field f = sc_card_lines_fields[k];
        if (c->state != SC_CARD_LINE_FOUND)
            continue;
        sc_card *t =
            c->off + c->len <= len ? sc_test_one_key(keys[k], text + c->off, c->len) : NULL;
        bool same = t && card->present[f] &&
                    (k == 0   ? hwloc_bitmap_isequal(t->cpus, card->cpus)
                     : k == 1 ? t->prefetch == card->prefetch
                              : !strcmp(t->governor, card->governor));
        if (!same) {
            fprintf(stderr, "%s: the scan reads %s \"%.*s\" (line %d), YAML %s\n", name, keys[k],
                    (int)c->len, text + c->off, c->line,
                    card->present[f] ? "gives another value" : "does not give it");
            bad++;
        }
        sc_card_free(t);
    }
    sc_card_free(card);
    sc_diag_free(&d);
    return bad;
}

#endif
