/*
 * execute.h: the local executor: each run of a series here, one after the other: the
 * workload under the observer, its gates, its sealed evidence bundle (execute.c).
 */
#ifndef SC_EXECUTE_H
#define SC_EXECUTE_H

#include "run_series.h"

/* Makes ex carry out every run on this machine (it keeps no state). */
void sc_local_executor(sc_executor *ex);

#endif
