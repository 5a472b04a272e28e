/*
 * card_scan.c: the first look at a card's YAML, before anything is built from it. One pass
 * over libyaml's events (nothing is kept but a counter per open mapping or list) refuses
 * what a card never needs and what would make reading it cost more than its size: a card
 * larger than SC_CARD_MAX_BYTES, anchors and aliases (an alias repeats a value without
 * repeating its bytes), nesting deeper than SC_CARD_MAX_DEPTH, a key or value longer than
 * SC_CARD_MAX_SCALAR, a mapping or list of more than SC_CARD_MAX_ITEMS entries, a second
 * document. sbatch, the node and `streamcard run` read a card the same way, so these
 * limits hold on every side (doc/contracts/card.md, "The experiment card", "Limits").
 */
#include "sc_card_schema.h"

#include <errno.h>
#include <stdbool.h>
#include <yaml.h>

typedef struct sc__scan {
    const char *name;
    sc_diag *diag;
    size_t depth;                        /* open mappings and lists */
    size_t items[SC_CARD_MAX_DEPTH + 1]; /* entries of each, keys and values alike */
    bool mapping[SC_CARD_MAX_DEPTH + 1];
    int documents;
} sc__scan;

/* The node an event starts counts as one entry of the collection it is in. */
static int sc__scan_entry(sc__scan *s, size_t line)
{
    if (s->depth == 0)
        return 0;
    size_t max = s->mapping[s->depth] ? 2 * SC_CARD_MAX_ITEMS : SC_CARD_MAX_ITEMS;
    if (++s->items[s->depth] <= max)
        return 0;
    sc_diag_addf(s->diag, "%s:%zu: more than %d entries in one %s (valid: at most %d)", s->name,
                 line, SC_CARD_MAX_ITEMS, s->mapping[s->depth] ? "mapping" : "list",
                 SC_CARD_MAX_ITEMS);
    return -EBADMSG;
}

/* One event; -EBADMSG with one line in diag when the card goes beyond a limit. */
static int sc__scan_event(sc__scan *s, const yaml_event_t *ev)
{
    size_t line = ev->start_mark.line + 1;
    const yaml_char_t *anchor = NULL;

    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++s->documents == 1)
            return 0;
        sc_diag_addf(s->diag, "%s:%zu: a second YAML document (valid: one document per card)",
                     s->name, line);
        return -EBADMSG;
    case YAML_ALIAS_EVENT:
        anchor = ev->data.alias.anchor;
        break;
    case YAML_SCALAR_EVENT:
        anchor = ev->data.scalar.anchor;
        if (!anchor && ev->data.scalar.length > SC_CARD_MAX_SCALAR) {
            sc_diag_addf(s->diag,
                         "%s:%zu: a key or value of %zu bytes is longer than a card allows "
                         "(valid: at most %d bytes)",
                         s->name, line, ev->data.scalar.length, SC_CARD_MAX_SCALAR);
            return -EBADMSG;
        }
        break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        anchor = ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
                                                       : ev->data.mapping_start.anchor;
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (s->depth > 0)
            s->depth--;
        return 0;
    default:
        return 0;
    }
    if (anchor || ev->type == YAML_ALIAS_EVENT) {
        sc_diag_addf(s->diag,
                     "%s:%zu: anchors (&) and aliases (*) are not allowed in a card (valid: "
                     "write each value out in full)",
                     s->name, line);
        return -EBADMSG;
    }
    if (sc__scan_entry(s, line) < 0)
        return -EBADMSG;
    if (ev->type == YAML_SCALAR_EVENT)
        return 0;
    if (s->depth == SC_CARD_MAX_DEPTH) {
        sc_diag_addf(s->diag,
                     "%s:%zu: mappings and lists nested deeper than %d levels (valid: at most "
                     "%d)",
                     s->name, line, SC_CARD_MAX_DEPTH, SC_CARD_MAX_DEPTH);
        return -EBADMSG;
    }
    s->depth++;
    s->items[s->depth] = 0;
    s->mapping[s->depth] = ev->type == YAML_MAPPING_START_EVENT;
    return 0;
}

int sc__card_scan(const char *text, size_t len, const char *name, sc_diag *diag)
{
    sc__scan s = {.name = name, .diag = diag};
    yaml_parser_t parser;
    yaml_event_t ev;
    int rc = 0;

    if (len > SC_CARD_MAX_BYTES) {
        sc_diag_addf(diag, "%s: %zu bytes is more than a card may hold (valid: at most %d bytes)",
                     name, len, SC_CARD_MAX_BYTES);
        return -EBADMSG;
    }
    if (!yaml_parser_initialize(&parser))
        return -ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    /* A syntax error ends the scan quietly: the document loader reports it with its line. */
    while (rc == 0 && yaml_parser_parse(&parser, &ev)) {
        bool end = ev.type == YAML_STREAM_END_EVENT;
        rc = sc__scan_event(&s, &ev);
        yaml_event_delete(&ev);
        if (end)
            break;
    }
    yaml_parser_delete(&parser);
    return rc;
}
