/*
 * card_util.h: a card from YAML text, for the unit tests of what reads a card (gates,
 * interference, pairs): checked (NULL, with the card's problems on stderr, when it does not
 * parse or check), or parsed only.
 */
#ifndef SC_TEST_CARD_UTIL_H
#define SC_TEST_CARD_UTIL_H

#include "sc_card.h"

#include <stdio.h>
#include <string.h>

static inline sc_card *sc_test_card(const char *yaml)
{
    sc_diag d;
    sc_card *card = sc_card_new();

    sc_diag_init(&d);
    if (!card || sc_card_parse(card, yaml, strlen(yaml), "c", &d) < 0 ||
        sc_card_check(card, &d) < 0) {
        sc_diag_print(&d, "card: ", stderr);
        sc_card_free(card);
        card = NULL;
    }
    sc_diag_free(&d);
    return card;
}

/* A card of head (its "experiment:" keys, indented) and extra keys appended to it. */
static inline sc_card *sc_test_card_with(const char *head, const char *extra)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml), "version: 1\nexperiment:\n%s%s", head, extra);
    return sc_test_card(yaml);
}

/* A card parsed from YAML text, not checked (a series or a pair checks its runs); NULL
   when it does not parse, its problems in d. */
static inline sc_card *sc_test_card_parsed(const char *yaml, sc_diag *d)
{
    sc_card *card = sc_card_new();

    if (card && sc_card_parse(card, yaml, strlen(yaml), "card.yaml", d) != 0) {
        sc_card_free(card);
        return NULL;
    }
    return card;
}

#endif
