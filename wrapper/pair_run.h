/*
 * pair_run.h: a paired run carried out here (pair_run.c; sc_pair.h, doc/contracts/run.md "Paired
 * runs"): the two sides of a pair card take turns into one directory, in an order drawn
 * from a recorded seed, and pair.json says what the pairs show.
 */
#ifndef SC_PAIR_RUN_H
#define SC_PAIR_RUN_H

#include "run_series.h"
#include "sc_card.h"

#include <stdint.h>

/* What `streamcard run` decided for the pair besides its plans. */
typedef struct sc_pair_run {
    uint64_t seed;        /* --seed, else drawn from getrandom() */
    const char *variable; /* the against key, SC_PAIR_BUILD or SC_PAIR_NONE */
} sc_pair_run;

/* A seed nobody chose: getrandom(), else the time and the process id. */
uint64_t sc_pair_new_seed(void);

/*
 * Runs the pair of rs (a paired series: plans[0] side A, plans[1] side B; card the pair card
 * as given) here, or with opts->dry_run prints the plans and the first pairs' order.
 * Prints PAIR=<dir> and BUNDLE=<dir> last. Returns the exit status of `streamcard run`: 0
 * every gate of every run held and pair.json was written; 1 a side failed; 3 it could not
 * run at all.
 */
int sc_pair_execute(const sc_run_series *rs, const sc_card *card, const sc_pair_run *pr);

#endif
