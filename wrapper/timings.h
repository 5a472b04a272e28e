/*
 * timings.h: the phase trace of `streamcard run` (doc/contracts/run.md, "Phase trace"):
 * with STREAMCARD_TIMINGS=FILE, one line per phase boundary appended to FILE,
 *
 *   <CLOCK_MONOTONIC seconds, 9 decimals> <phase> <CPU seconds of this process, or ->
 *
 * the moment the phase named ended and the CPU time (user + system) streamcard's process
 * had used by then (CLOCK_PROCESS_CPUTIME_ID; "-" for the observer's moments), so that a benchmark (tests/bench/run_overhead.sh)
 * says where each millisecond of a run goes without strace. Off (no file, no cost but a
 * NULL test) when the variable is unset or empty. The observer's own moments (the marker
 * read, the workload released and reaped) come from its result, stamped on the same clock.
 */
#ifndef SC_TIMINGS_H
#define SC_TIMINGS_H

#include <time.h>

#define SC_TIMINGS_ENV "STREAMCARD_TIMINGS"

typedef struct sc_timings sc_timings;

/* The trace STREAMCARD_TIMINGS names, opened for appending; NULL when it is unset or cannot
   be opened (said once on stderr then: the run goes on untraced). */
sc_timings *sc_timings_open(void);
/* The phase that ends now, with the CPU time used so far; t may be NULL (no trace). */
void sc_timings_mark(sc_timings *t, const char *phase);
/* The phase that ended at the CLOCK_MONOTONIC moment at (not taken when at is zero), CPU
   "-". */
void sc_timings_at(sc_timings *t, const char *phase, const struct timespec *at);
void sc_timings_close(sc_timings *t);

#endif
