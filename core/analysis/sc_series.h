/*
 * sc_series.h: the runs a card makes, as a series of card instances.
 *
 * A card without a sweep is a series of one run; a sweep ("threads: [1, 2]", "sweep:
 * {prefetch: [on, off]}") is one run per value, in the card's order. Every instance is a
 * card of its own, copied from the card as parsed (the YAML is read once, whatever the
 * number of values) with its value set, and checked with the machine-independent rules.
 * Whoever carries the runs out (`streamcard run` here, one after the other, or one sbatch
 * job each) takes the series in order. An instance also says which distinct card it runs
 * (variant) and which repetition of it (repeat), so that repeated runs, interleaved orders
 * (A B A B) and other studies made of several cards are series too.
 */
#ifndef SC_SERIES_H
#define SC_SERIES_H

#include "sc_card.h"
#include "sc_diag.h"

#include <stdbool.h>
#include <stddef.h>

/* One run of a series. */
typedef struct sc_instance {
    sc_card *card;  /* this run's card, checked (owned by the series) */
    char *label;    /* its value in the series' table as written ("2"); NULL for a lone run */
    size_t variant; /* which distinct card it runs (0-based); runs of one variant repeat it */
    size_t repeat;  /* which repetition of its variant (0-based) */
} sc_instance;

typedef struct sc_series {
    char *variable; /* what varies from run to run ("threads"); NULL for a lone run; a pair:
                       the key side B changes, or "none" (A/A) */
    bool paired;    /* a pair (against:, sc_pair.h): run 0 is side A, run 1 side B, their
                       runs taken in turns in one process, never a table of values */
    sc_instance *runs;
    size_t n;
} sc_series;

/*
 * Makes the series of card (parsed, flags applied; not checked, not changed) and checks
 * every run's card: each problem goes to diag once (a problem every value shares is one
 * line), and a value that gives the same run as an earlier one (the same after conversion:
 * cpu_list 0-1 and 0,1) is refused. The series holds a card for every run even when some
 * failed their checks (their machine checks can still be reported); free it in any case.
 * Returns 0, -EINVAL with lines in diag, or -ENOMEM.
 */
int sc_series_from_card(const sc_card *card, sc_series *out, sc_diag *diag);

/* Frees every run of the series and empties it; an empty (zeroed) series is accepted. */
void sc_series_free(sc_series *series);

#endif
