/*
 * sc_card_reader.h: the state of one parse of a card's YAML and its one error line, shared
 * by the card's reader (card.c) and the study's (ablation_read.c), which both call
 * card_metrics.c for the error line and never each other back.
 */
#ifndef SC_CARD_READER_H
#define SC_CARD_READER_H

#include "sc_card.h"
#include "sc_diag.h"

#include <yaml.h>

typedef struct sc__card_reader {
    yaml_document_t *doc;
    sc_card *card;
    sc_diag *diag;
    const char *name; /* the card's name in messages */
    int errors;
} sc__card_reader;

/* Appends "<card>:<line of node>: <message>" to r's problems and counts it: every problem
   the card's readers find in its YAML. */
void sc__reader_error(sc__card_reader *r, const yaml_node_t *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* metrics: a list of mappings into r's card (card_metrics.c); every problem said. */
void sc__card_read_metrics(sc__card_reader *r, yaml_node_t *seq);

#endif
