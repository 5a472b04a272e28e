/*
 * sc_ranklibs.h: the shared objects the ranks of an MPI program we did not write mapped, as
 * the transport probe printed them (TRACE_RANK_LIBRARY, sc_trace_protocol.h): build.json's
 * "libraries" of such a run, and what verify holds them to.
 */
#ifndef SC_RANKLIBS_H
#define SC_RANKLIBS_H

#include "sc_strv.h"

/* The most libraries build.json lists of an MPI program's ranks. */
#define SC_RANKLIBS_MAX 256

/*
 * Appends to paths each distinct absolute path of log's TRACE_RANK_LIBRARY lines (whole
 * lines, any host), in the order first seen, at most SC_RANKLIBS_MAX. A failed allocation
 * is paths->failed.
 */
void sc_ranklibs_paths(const char *log, sc_strv *paths);

#endif
