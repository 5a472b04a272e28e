/*
 * sc_verify_ranklibs.h: internal to verify: build.json's "libraries" of an MPI program we did
 * not write are the ones its ranks mapped, as the first run's log lists them
 * (TRACE_RANK_LIBRARY, sc_ranklibs.h), not the launcher's.
 */
#ifndef SC_VERIFY_RANKLIBS_H
#define SC_VERIFY_RANKLIBS_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_diag.h"

/* Adds a problem when build.json (its text; NULL: missing, said elsewhere) lists a library
   the ranks' log does not, or leaves out one it does (below SC_RANKLIBS_MAX), or lists none
   while the log does. Nothing for a card that is not an MPI program under exec, nor for a
   log that lists no library (a run that ended before MPI_Init, an older probe). */
void sc_verify_rank_libraries(const sc_bundle *b, const sc_card *card, const char *build,
                              sc_diag *problems);

#endif
