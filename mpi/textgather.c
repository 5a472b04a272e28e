/* textgather.c: every rank's text gathered to rank 0 (textgather.h). */
#include "textgather.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

char *scm_text_gather(MPI_Comm comm, int rank, const char *text)
{
    int size = 0, *lens = NULL, *offs = NULL, total = 0;
    size_t n = text ? strlen(text) : 0;
    int len = n < INT_MAX ? (int)n : 0; /* MPI counts are ints: a larger text is left out */
    char *all = NULL;

    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof(int));
        offs = calloc((size_t)size, sizeof(int));
    }
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    for (int r = 0; rank == 0 && lens && offs && r < size; r++) {
        offs[r] = total;
        total += lens[r];
    }
    if (rank == 0 && lens && offs)
        all = calloc((size_t)total + 1, 1);
    /* every rank takes part even without memory: rank 0 then receives nothing */
    MPI_Gatherv(len ? text : "", len, MPI_CHAR, all, all ? lens : NULL, all ? offs : NULL, MPI_CHAR,
                0, comm);
    free(lens);
    free(offs);
    return all;
}
