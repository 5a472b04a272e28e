/*
 * sc_card_study.h: the card reader's side of an ablation study and of a pair (ablation_read.c):
 * the top-level keys ablation:, metric: and against:, called by card.c, and their free.
 */
#ifndef SC_CARD_STUDY_H
#define SC_CARD_STUDY_H

#include "sc_card.h"
#include "sc_card_reader.h"

#include <yaml.h>

/*
 * Reads the top-level key k (ablation or metric) and its value v into r's card. Every
 * problem is one line in r's problems ("<name>:<line>: ..."), counted in r->errors.
 */
void sc__ablation_read(sc__card_reader *r, yaml_node_t *k, yaml_node_t *v);

/*
 * Reads the top-level key against (a mapping of card keys, expect: {...} and env: {NAME:
 * value}, as a step's set: reads them) into r's card (sc_card.against). Its rules (one
 * key at most, no platform key) are sc_pair_series()'s.
 */
void sc__against_read(sc__card_reader *r, yaml_node_t *k, yaml_node_t *v);

/* Frees card's steps, its study metric, its against and its unset list. */
void sc__ablation_free(sc_card *card);

/* Removes name from card's env and records it in env_unset (once). 0 or -ENOMEM. */
int sc__ablation_unset_env(sc_card *card, const char *name);

#endif
