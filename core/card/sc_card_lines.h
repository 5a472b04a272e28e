/*
 * sc_card_lines.h: a card's platform keys as its bytes write them, read without a YAML
 * parser (doc/contracts/spank.md, "The card on the node").
 *
 * Root acts on three keys of a card: cpu_list (the CPUs whose prefetch registers and
 * governors it changes, and those it signs), prefetch and governor. It never parses the
 * card's YAML: the card check does, in a process root cannot trust. So root also reads
 * these three keys from the exact bytes it holds, with this scan, and refuses a card whose
 * record says anything else (sc_card_lines_check). The scan is one bounded pass over the
 * lines, keeps nothing but a few offsets, and allocates nothing. It reads one form only:
 *
 *   experiment:                 a line of its own at the start of a line (once)
 *     cpu_list: 0-3             each key on one line, at the indentation of experiment's
 *     prefetch: "off"           first key, with a plain or quoted value of
 *     governor: performance     [A-Za-z0-9._,-] and nothing after it but a comment
 *
 * and must never read a value YAML does not give: so it stops at what it cannot follow and
 * says where ("unclear"), and the card is then refused on the node. What it follows:
 * comments, block scalars (question: |) whose lines it skips exactly as YAML ends them, and
 * lines that are whole on their own. What makes it stop: a quoted text or a [ ] { }
 * collection that does not end on its line (YAML lets those run over the next lines,
 * whatever their indentation), a line break other than LF or CR LF, a tab in an
 * indentation, anchors, aliases, tags and directives, a second document, a line under
 * experiment: that is not a plain key, a key twice, and a more indented line after a key's
 * line (its value may go on).
 */
#ifndef SC_CARD_LINES_H
#define SC_CARD_LINES_H

#include "sc_card.h"
#include "sc_diag.h"

#include <stddef.h>

#define SC_CARD_LINES_KEYS 3 /* cpu_list, prefetch, governor */

typedef enum sc_card_line_state {
    SC_CARD_LINE_ABSENT = 0, /* no line gives the key */
    SC_CARD_LINE_FOUND,      /* one line gives it, with the value at off, len */
    SC_CARD_LINE_UNCLEAR,    /* a line gives it in a form the scan does not read */
} sc_card_line_state;

typedef struct sc_card_line {
    sc_card_line_state state;
    int line;        /* 1-based line of the key (FOUND, UNCLEAR) */
    size_t off, len; /* the value in the bytes, without its quotes (FOUND) */
    const char *why; /* UNCLEAR: what could not be read (static text) */
} sc_card_line;

typedef struct sc_card_lines {
    sc_card_line key[SC_CARD_LINES_KEYS]; /* in the order of sc_card_lines_fields */
    int unclear_line;                     /* the first line the scan could not follow; 0: none */
    const char *unclear_why;              /* what it could not follow (static text) */
} sc_card_lines;

/* The fields of key[], in order: SC_CF_CPU_LIST, SC_CF_PREFETCH, SC_CF_GOVERNOR. */
extern const sc_card_field sc_card_lines_fields[SC_CARD_LINES_KEYS];

/* Scans text (len bytes, a card's bytes). Never fails: what it cannot read is unclear. */
void sc_card_lines_scan(const char *text, size_t len, sc_card_lines *out);

/*
 * Holds card (read from text by the YAML reader, or from the card check's record) to the
 * lines of text: for each of the three keys, a card that gives it must have exactly one line
 * giving the same value (through the card schema's conversion: the same CPU set, prefetch
 * setting, governor name), and a card that does not give it must have no such line; and
 * the scan must have followed the whole card. Returns 0, or -EBADMSG with one line in diag
 * naming the line and the form that would be valid, or -ENOMEM.
 */
int sc_card_lines_check(const char *text, size_t len, const sc_card *card, const char *name,
                        sc_diag *diag);

#endif
