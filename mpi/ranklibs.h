/*
 * ranklibs.h: the shared objects each rank of an MPI program we did not write has mapped
 * (dl_iterate_phdr, at MPI_Init: the MPI library and what it loaded by then). Rank 0 gathers
 * them and prints one TRACE_RANK_LIBRARY line per host and path (sc_trace_protocol.h), so
 * build.json names the libraries the ranks ran with, not the launcher's.
 */
#ifndef SCM_RANKLIBS_H
#define SCM_RANKLIBS_H

#include <mpi.h>
#include <stdio.h>

/* Collective over comm: every rank lists its own; rank 0 prints all of them to out. */
void scm_ranklibs_report(MPI_Comm comm, int rank, FILE *out);

#endif
