/*
 * execute.h: the local executor: the runs of a series here, one after the other: the
 * workload under the observer, its gates, its sealed evidence bundle (execute.c, with the
 * bundle's records in record.c).
 */
#ifndef SC_EXECUTE_H
#define SC_EXECUTE_H

#include "run_series.h"

#include <json-c/json.h>

#include <stdbool.h>
#include <stddef.h>

struct sc_execution;

/* The executor's state: a bundle per run of the series, open from its first run to its
   last; a stop request from the caller (Ctrl-C, scancel) ends every series early. */
typedef struct sc_local {
    struct sc_execution *x;
    bool *open;
    size_t n;
    int stop_signal;
    /* The sides of a paired run (pair_run.c): a bundle's runs end only when one fails or
       a stop request comes; the pair closes them with sc_local_close(). Set before
       sc_local_executor(), which keeps it. */
    bool paired;
} sc_local;

/* Makes ex carry out every run on this machine, keeping its state in state. */
void sc_local_executor(sc_executor *ex, sc_local *state);

/* The workload's own results of bundle k's runs so far (an array of objects with their
   "metrics"; an empty object for a run that wrote none), for a pair's stopping rule. NULL on
   ENOMEM. */
json_object *sc_local_runs(sc_local *st, size_t k);

/* Seals bundle k now, its runs ended for why (kept when the bundle said why itself): a
   side of a pair whose pairs are complete. *bundle (malloc'd) is its path. Returns the exit
   status for it; 0 when it was closed already (*bundle NULL). */
int sc_local_close(sc_local *st, size_t k, const char *why, char **bundle);

#endif
