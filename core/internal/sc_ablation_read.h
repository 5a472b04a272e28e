/*
 * sc_ablation_read.h: the card reader's side of an ablation study (ablation.c), called by
 * card.c for the top-level keys ablation: and metric:, and by its copy and free.
 */
#ifndef SC_ABLATION_READ_H
#define SC_ABLATION_READ_H

#include "sc_card.h"
#include "sc_card_reader.h"
#include "sc_diag.h"

#include <yaml.h>

/*
 * Reads the top-level key k (ablation or metric) and its value v into r's card. Every
 * problem is one line in r's problems ("<name>:<line>: ..."), counted in r->errors.
 */
void sc__ablation_read(sc__card_reader *r, yaml_node_t *k, yaml_node_t *v);

/* Frees card's steps, its study metric and its unset list. */
void sc__ablation_free(sc_card *card);

/* Removes name from card's env and records it in env_unset (once). 0 or -ENOMEM. */
int sc__ablation_unset_env(sc_card *card, const char *name);

#endif
