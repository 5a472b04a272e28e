/*
 * sc_ablation_read.h: the card reader's side of an ablation study (ablation.c), called by
 * card.c for the top-level keys ablation: and metric:, and by its copy and free.
 */
#ifndef SC_ABLATION_READ_H
#define SC_ABLATION_READ_H

#include "sc_card.h"
#include "sc_card_reader.h"
#include "sc_diag.h"
#include "sc_series.h"

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

/*
 * Applies step's changes to card (ablation.c): each set: value through its key's own
 * conversion (sc__card_assign()), each unset: removed; messages name the step, or
 * "(against)" for a step without a name. 0, -EINVAL with lines in diag, or -ENOMEM.
 */
int sc__step_apply(sc_card *card, const sc_card_step *step, sc_diag *diag);

/*
 * Series run i of out (a study's row, a pair's side): its variant i and label (taken over;
 * NULL is out of memory), its card from make(card, i, &card, diag), counted in out->n when
 * made. Returns 0, -EINVAL (the run's card was refused: lines in diag) or -ENOMEM.
 */
int sc__series_add(sc_series *out, size_t i, char *label, const sc_card *card,
                   int (*make)(const sc_card *card, size_t i, sc_card **run, sc_diag *diag),
                   sc_diag *diag);

/* Removes name from card's env and records it in env_unset (once). 0 or -ENOMEM. */
int sc__ablation_unset_env(sc_card *card, const char *name);

#endif
