/*
 * execute.h: the local executor: the runs of a series here, one after the other: the
 * workload under the observer, its gates, its sealed evidence bundle (execute.c, with the
 * bundle's records in record.c).
 */
#ifndef SC_EXECUTE_H
#define SC_EXECUTE_H

#include "run_series.h"

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
} sc_local;

/* Makes ex carry out every run on this machine, keeping its state in state. */
void sc_local_executor(sc_executor *ex, sc_local *state);

#endif
