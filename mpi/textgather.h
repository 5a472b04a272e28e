/*
 * textgather.h: every rank's text gathered to rank 0, for the per-rank records whose size
 * each rank knows only itself (the interference records, the libraries mapped).
 */
#ifndef SCM_TEXTGATHER_H
#define SCM_TEXTGATHER_H

#include <mpi.h>

/*
 * Collective over comm. Rank 0 returns every rank's text (NULL: an empty one) in rank order,
 * concatenated, malloc'd; the other ranks, and rank 0 out of memory, NULL.
 */
char *scm_text_gather(MPI_Comm comm, int rank, const char *text);

#endif
