/*
 * matrix.h: `--pairs all`: every pair of the job's ranks (one per node) measured with the
 * same bench as the single pair (bench.h), in the rounds of disjoint pairs of sc_pairs.h.
 * In a round every pair runs at once on a communicator of its own (MPI_Comm_split); a
 * barrier over all ranks ends each round, so no pair of one round overlaps another's.
 * The lower rank of a pair keeps its figures; rank 0 gathers them into N x N matrices
 * (symmetric, NaN on the diagonal) and per size the median time over the pairs with the
 * rate that time gives (bytes / t[usec], IMB's relation, which verify recomputes from the
 * table): what results.json's metrics.sizes holds for such a run (doc/contracts/analysis.md, "Link
 * matrix").
 */
#ifndef SCM_MATRIX_H
#define SCM_MATRIX_H

#include <mpi.h>
#include <stddef.h>

#include "bench.h"

struct scm_matrix {
    int n;      /* ranks (nodes) */
    int nsizes; /* message sizes, as scm_bench_sizes() gives them */
    size_t bytes[SCM_MAX_SIZES];
    int passes;            /* the whole schedule this many times (--passes) */
    double *t_usec, *MBps; /* rank 0: [((pass * nsizes + s) * n + i) * n + j], NaN when not
                              measured */
    size_t rounds;         /* of the schedule, one pass */
    double *round_seconds; /* rank 0: the wall time of each round of each pass (pass-major),
                              its barrier included */
    double total_seconds;  /* rank 0: every round */
    /* rank 0, per size, over the pairs with both figures (as the files hold them): */
    size_t pairs[SCM_MAX_SIZES];      /* how many */
    double med_t_usec[SCM_MAX_SIZES]; /* the median time */
    double med_MBps[SCM_MAX_SIZES];   /* the median rate */
};

/*
 * Every round (collective over comm). acc gathers this rank's counts over its pairs
 * (messages, payload_sent, failed, first failure) and, on rank 0, the per-size medians
 * over every pair (acc->sizes, acc->nsizes). Returns 0, or -ENOMEM on every rank when one
 * could not allocate (rank 0 said so).
 */
int scm_matrix_run(const struct scm_opts *o, MPI_Comm comm, int rank, int size,
                   struct scm_matrix *m, struct scm_bench *acc);

/*
 * Rank 0: the raw figures, one file per size (sc_pairs_csv.h), each "<json>.<name>" with
 * name the file's name in the bundle, "/" made "-" ("run-1.json.matrix-8B.csv"): the
 * wrapper moves them into the bundle. Returns 0 or -errno (said on stderr).
 */
int scm_matrix_write_files(const struct scm_matrix *m, const char *json);

/* Frees what run allocated (takes a zeroed matrix). */
void scm_matrix_free(struct scm_matrix *m);

#endif
