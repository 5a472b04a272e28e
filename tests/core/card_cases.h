/* card_cases.h: a table of cards with the exact messages each must give, and its runner,
   shared by the card tests (test_card.c, test_card_exec.c). */
#ifndef SC_TEST_CARD_CASES_H
#define SC_TEST_CARD_CASES_H

#include "sc_card.h"

#include <stdbool.h>
#include <stddef.h>

enum { SC_MAX_LINES = 4 };

typedef struct card_case {
    const char *name;
    const char *yaml;
    /* The exact messages, in order; no other line may be printed. None: the card is valid. */
    const char *expect[SC_MAX_LINES];
} card_case;

#define HEAD "version: 1\nexperiment:\n"

/* True when the messages are exactly the expected ones: as many lines, each containing its
   expectation, in order. An extra line (a second message for one mistake) fails the case. */
bool lines_match(const sc_diag *d, const char *const expect[SC_MAX_LINES]);

/* Prints what a failed case got, so the table can be compared with the real messages. */
void report_case(const char *name, const char *const expect[SC_MAX_LINES], int rc,
                 const sc_diag *d);

/* Parses and checks the card as `streamcard run` does: the card rules run after a parse
   that found bad keys or values (-EINVAL), so that every problem is reported at once. */
int parse_and_check(sc_card *card, const char *yaml, sc_diag *d);

/* Runs every case (a valid card passes, a bad one gives exactly its messages); returns how
   many failed, each reported on stderr. */
int card_cases_run(const card_case *cases, size_t n);

#endif
