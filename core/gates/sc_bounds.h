/*
 * sc_bounds.h: what one run of a card can have printed (doc/contracts/limits.md,
 * "Bounded work"): the most lines of its log, STREAM table rows, IMB table rows and
 * interference records. The log and interference parsers stop at the first record beyond
 * these and say where (sc_tracelog.over_line, sc_interference.over_line), so a log padded
 * with a million rows or lines is refused after a few thousand, not parsed in full; the
 * evidence and interference gates fail on it, in `streamcard run` and in verify alike.
 */
#ifndef SC_BOUNDS_H
#define SC_BOUNDS_H

#include "sc_card.h"
#include "sc_interference.h"
#include "sc_tracelog.h"

/* Lines any run may print besides those counted per thread, rank and size (the workload's
   header, its environment (ipsearch's env: lines), warnings of the runtimes). */
#define SC_BOUNDS_BASE_LINES 16384
/* Lines per thread of the card (bindings, pool threads), per MPI rank (its bindings,
   threads, memory, transport and library lines, its interference records) and per message
   size (the IMB table and the link matrix's). */
#define SC_BOUNDS_LINES_PER_THREAD 256
#define SC_BOUNDS_LINES_PER_RANK 2048
#define SC_BOUNDS_LINES_PER_SIZE 64
/* Interference records per sampler (a source): CPU records for an MPI rank (the CPUs it may
   run on: not known to the card), the job's tasks. */
#define SC_BOUNDS_RANK_CPUS 1024
#define SC_BOUNDS_TASKS 4096
/* The sampler names at most this many intruders per CPU (common/sc_sampler.h: top 3). */
#define SC_BOUNDS_INTRUDERS_PER_CPU 3

/* The bounds of a run of card (NULL: none but the file's cap). */
void sc_bounds_of(const sc_card *card, sc_tracelog_limits *log, sc_interference_limits *intf);

#endif
