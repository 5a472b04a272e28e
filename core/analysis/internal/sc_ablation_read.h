/*
 * sc_ablation_read.h: an ablation study's steps applied to a card and its series made
 * (ablation.c); the card reader's side is sc_card_study.h.
 */
#ifndef SC_ABLATION_READ_H
#define SC_ABLATION_READ_H

#include "sc_card.h"
#include "sc_card_study.h"
#include "sc_diag.h"
#include "sc_series.h"

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


#endif
