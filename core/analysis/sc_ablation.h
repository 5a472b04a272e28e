/*
 * sc_ablation.h: an ablation study (doc/contracts/card.md, "Ablation studies"): a baseline card
 * and named steps, each a set of card changes (set: keys and env entries; unset: inherited
 * or card-set environment variables), run as
 *   the baseline, every step alone on top of the baseline, and the steps in sequence
 *   (cumulative: steps 1..k for k = 2..n; steps 1..1 is step 1 alone),
 * 2n rows in all, one series (sc_series.h): run 0 the baseline, run i (1..n) step i alone,
 * run n + k - 1 (k = 2..n) steps 1..k. Each row's card is the baseline's copy with its
 * steps applied and checked like any card; its name gets _baseline, _alone-<i>, _seq-<k>.
 */
#ifndef SC_ABLATION_H
#define SC_ABLATION_H

#include "sc_card.h"
#include "sc_diag.h"
#include "sc_series.h"

#include <stdbool.h>
#include <stddef.h>

/* SC_ABLATION_MAX_STEPS and SC_ABLATION_METRIC_INVALID: sc_card.h (the card reads them). */

typedef enum sc_ablation_kind {
    SC_ABLATION_BASELINE = 0,
    SC_ABLATION_ALONE,
    SC_ABLATION_SEQUENCE,
} sc_ablation_kind;

/* The series index of a row: the baseline (step 0), step alone, or steps 1..step. */
size_t sc_ablation_run(size_t n_steps, sc_ablation_kind kind, size_t step);

/* What series run i of a study of n_steps is: its kind and last step (0 for the baseline). */
sc_ablation_kind sc_ablation_kind_of(size_t n_steps, size_t i, size_t *step);

/* The label of series run i of card's study ("baseline", "alone 2: passive wait",
   "seq 1-3: + serial BLAS"): malloc'd, NULL on ENOMEM. */
char *sc_ablation_label(const sc_card *card, size_t i);

/*
 * The series of card's study (card->n_steps > 0), its runs' cards checked; each problem
 * once in diag (a step's refused value names the step). Returns 0, -EINVAL or -ENOMEM;
 * free out in any case. Called by sc_series_from_card().
 */
int sc_ablation_series(const sc_card *card, sc_series *out, sc_diag *diag);

/* Whether a step of card sets or unsets anything of the environment. */
bool sc_ablation_step_env(const sc_card_step *step);

#endif
