/*
 * sc_verify_reps.h: internal to verify: its check of results.json's per-repetition times.
 *
 * rep_seconds (STREAM: per function; ipsearch: "search") lists every repetition's seconds,
 * the warm-up first. The log does not print them one by one, but it prints what they must
 * give: the fastest, the average and the slowest counted repetition (STREAM's table;
 * ipsearch's wall_seconds, avg_wall_seconds, max_wall_seconds). A list that does not give
 * those, or has another length than the card's iterations, claims more than the raw files
 * show.
 */
#ifndef SC_VERIFY_REPS_H
#define SC_VERIFY_REPS_H

#include "sc_card.h"
#include "sc_diag.h"
#include "sc_tracelog.h"

#include <json-c/json.h>

/* Adds one problem per list that the log contradicts. metrics: results.json's "metrics". */
void sc_verify_reps(json_object *metrics, const sc_tracelog *t, const sc_card *card,
                    sc_diag *problems);

#endif
