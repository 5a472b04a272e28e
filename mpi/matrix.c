/*
 * matrix.c: every pair of ranks in rounds of disjoint pairs (see matrix.h).
 */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_pairs.h"
#include "sc_pairs_csv.h"

#define SCM_PROGRESS_S 5.0 /* seconds between progress lines of a long check */

/* This rank's figures with its higher partners, per pass:
   [((pass * size + j) * nsizes + s) * 2 + {0: t, 1: MB/s}]. */
static double *scm__row(int size, int nsizes, int passes)
{
    size_t count = (size_t)size * (size_t)(nsizes ? nsizes : 1) * 2 * (size_t)passes;
    double *row = malloc(count * sizeof(*row));

    for (size_t i = 0; row && i < count; i++)
        row[i] = NAN;
    return row;
}

/* One pair's counts into this rank's sums (the first failure is kept). */
static void scm__account(const struct scm_bench *b, struct scm_bench *acc)
{
    acc->messages += b->messages;
    acc->payload_sent += b->payload_sent;
    acc->failed += b->failed;
    if (b->first.found && !acc->first.found)
        acc->first = b->first;
}

/* One round: this rank's pair (none on a bye) on its own communicator. Returns 0 or -ENOMEM. */
static int scm__round(const struct scm_opts *o, MPI_Comm comm, int rank, int size, size_t r,
                      double *row, struct scm_bench *acc)
{
    long partner = sc_pairs_partner((size_t)size, r, (size_t)rank);
    MPI_Comm pair = MPI_COMM_NULL;
    int rc = 0;

    MPI_Comm_split(comm, partner < 0 ? MPI_UNDEFINED : (rank < partner ? rank : (int)partner), rank,
                   &pair);
    if (pair != MPI_COMM_NULL) {
        struct scm_bench b = {.o = o, .comm = pair, .rank = rank > partner, .peer = rank < partner};

        rc = scm_bench_run(&b);
        scm__account(&b, acc);
        acc->nsizes = b.nsizes;
        for (int s = 0; row && rc == 0 && rank < partner && s < b.nsizes; s++) {
            row[((size_t)partner * (size_t)b.nsizes + (size_t)s) * 2] = b.sizes[s].t_usec;
            row[((size_t)partner * (size_t)b.nsizes + (size_t)s) * 2 + 1] = b.sizes[s].MBps;
        }
        MPI_Comm_free(&pair);
    }
    return rc;
}

static int scm__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median of the finite values among x[0..k) (sorted in place); NaN when none. */
static double scm__median(double *x, size_t k)
{
    size_t n = 0;

    for (size_t i = 0; i < k; i++)
        if (isfinite(x[i]))
            x[n++] = x[i];
    if (n == 0)
        return NAN;
    qsort(x, n, sizeof(*x), scm__cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Rank 0: the gathered rows into symmetric matrices, one per pass and size, and the
   per-size medians over every pass. */
static int scm__assemble(const double *rows, int size, struct scm_matrix *m, struct scm_bench *acc)
{
    size_t n = (size_t)size, ns = (size_t)m->nsizes, np = (size_t)m->passes;
    size_t cells = np * ns * n * n, half = np * n * n / 2 + 1;
    double *scratch = malloc(2 * half * sizeof(*scratch));

    m->t_usec = malloc((cells ? cells : 1) * sizeof(double));
    m->MBps = malloc((cells ? cells : 1) * sizeof(double));
    if (!scratch || !m->t_usec || !m->MBps) {
        free(scratch);
        return -ENOMEM;
    }
    for (size_t c = 0; c < cells; c++)
        m->t_usec[c] = m->MBps[c] = NAN;
    for (size_t p = 0; p < np; p++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                for (size_t s = 0; s < ns; s++) {
                    const double *v = &rows[((i * np + p) * n + j) * ns * 2 + s * 2];
                    size_t g = (p * ns + s) * n * n;

                    /* as the file holds them: the summaries are then what verify gets */
                    double t = sc_pairs_csv_round(v[0]), bw = sc_pairs_csv_round(v[1]);
                    m->t_usec[g + i * n + j] = m->t_usec[g + j * n + i] = t;
                    m->MBps[g + i * n + j] = m->MBps[g + j * n + i] = bw;
                }
    for (size_t s = 0; s < ns; s++) {
        struct scm_size_result *r = &acc->sizes[s];
        size_t k = 0, kt = 0, kb = 0;

        r->bytes = m->bytes[s];
        r->reps = scm_bench_repetitions(m->bytes[s], acc->o->iterations);
        r->batches = scm_bench_batches(r->reps);
        for (size_t p = 0; p < np; p++)
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                    scratch[k++] = m->t_usec[(p * ns + s) * n * n + i * n + j];
        /* The row keeps IMB's relation (Mbytes/sec = bytes / t[usec]), which verify
           recomputes: the median time over every pair and pass, and the rate it gives. */
        r->t_usec = r->t_min_usec = scm__median(scratch, k);
        r->MBps = r->MBps_max = r->t_usec > 0 ? (double)m->bytes[s] / r->t_usec : 0;
        /* the summaries of results.json's matrix: over the lines a file lists */
        for (size_t p = 0; p < np; p++)
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++) {
                    size_t c = (p * ns + s) * n * n + i * n + j;
                    if (isfinite(m->t_usec[c]) && isfinite(m->MBps[c])) {
                        scratch[kt++] = m->t_usec[c];
                        scratch[half + kb++] = m->MBps[c];
                    }
                }
        m->pairs[s] = kt;
        m->med_t_usec[s] = scm__median(scratch, kt);
        m->med_MBps[s] = scm__median(scratch + half, kb);
    }
    acc->nsizes = m->nsizes;
    free(scratch);
    return 0;
}

int scm_matrix_run(const struct scm_opts *o, MPI_Comm comm, int rank, int size,
                   struct scm_matrix *m, struct scm_bench *acc)
{
    int nsizes = scm_bench_sizes(o->min_bytes, o->max_bytes, m->bytes);
    int passes = o->passes > 0 ? o->passes : 1, count = size * nsizes * 2 * passes;
    double *row = scm__row(size, nsizes, passes), *rows = NULL;
    int ok = row != NULL, all_ok = 0, rc = 0;

    m->n = size;
    m->nsizes = nsizes;
    m->passes = passes;
    m->rounds = sc_pairs_rounds((size_t)size);
    size_t steps = m->rounds * (size_t)passes; /* every round of every pass */
    if (rank == 0) {
        m->round_seconds = calloc(steps ? steps : 1, sizeof(double));
        rows = malloc((size_t)size * (size_t)count * sizeof(double) + 1);
        ok = ok && m->round_seconds && rows;
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    double start = MPI_Wtime(), said = start;
    size_t per_round = (size_t)size / 2, all_pairs = (size_t)size * (size_t)(size - 1) / 2;
    for (size_t k = 0; all_ok && k < steps; k++) {
        size_t p = k / m->rounds, r = k % m->rounds; /* pass p, round r: passes one after
                                                          the other, each a whole schedule */
        double t0 = MPI_Wtime();

        ok = scm__round(o, comm, rank, size, r, row + p * (size_t)size * (size_t)nsizes * 2, acc) ==
             0;
        MPI_Barrier(comm); /* the round ends for every pair before the next begins */
        if (rank == 0 && m->round_seconds)
            m->round_seconds[k] = MPI_Wtime() - t0;
        /* progress for a long check, on stderr: every SCM_PROGRESS_S seconds and the end */
        if (rank == 0 && (MPI_Wtime() - said >= SCM_PROGRESS_S || k + 1 == steps) &&
            MPI_Wtime() - start >= SCM_PROGRESS_S) {
            size_t done = (r + 1) * per_round < all_pairs ? (r + 1) * per_round : all_pairs;
            fprintf(stderr,
                    SCM_PROG ": link matrix: pass %zu of %d, round %zu of %zu, %zu of %zu "
                             "pairs, %.0f s\n",
                    p + 1, passes, r + 1, m->rounds, done, all_pairs, MPI_Wtime() - start);
            said = MPI_Wtime();
        }
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    }
    if (!all_ok) {
        if (rank == 0 && !row)
            fprintf(stderr, SCM_PROG ": the link matrix: %s (fewer ranks or sizes)\n",
                    strerror(ENOMEM));
        rc = -ENOMEM;
        goto out_free;
    }
    MPI_Gather(row, count, MPI_DOUBLE, rows, count, MPI_DOUBLE, 0, comm);
    if (rank == 0) {
        for (size_t k = 0; m->round_seconds && k < steps; k++)
            m->total_seconds += m->round_seconds[k];
        rc = scm__assemble(rows, size, m, acc);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
out_free:
    free(row);
    free(rows);
    return rc;
}

int scm_matrix_write_files(const struct scm_matrix *m, const char *json)
{
    for (int s = 0; s < m->nsizes; s++) {
        size_t cells = (size_t)m->n * (size_t)m->n;
        char name[64], *path = NULL;
        FILE *f;
        int rc;

        if (sc_pairs_csv_name(m->bytes[s], name, sizeof(name)) < 0)
            return -ENAMETOOLONG;
        *strchr(name, '/') = '-';
        if (asprintf(&path, "%s.%s", json, name) < 0)
            return -ENOMEM;
        f = fopen(path, "w");
        rc = f ? sc_pairs_csv_write(f, (size_t)m->n, (size_t)m->passes, (size_t)m->nsizes * cells,
                                    m->bytes[s], m->t_usec + (size_t)s * cells,
                                    m->MBps + (size_t)s * cells)
               : -errno;
        if (f && fclose(f) != 0 && rc == 0)
            rc = -EIO;
        if (rc < 0)
            fprintf(stderr, SCM_PROG ": %s: %s (a writable directory with space)\n", path,
                    strerror(-rc));
        free(path);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void scm_matrix_free(struct scm_matrix *m)
{
    if (!m)
        return;
    free(m->t_usec);
    free(m->MBps);
    free(m->round_seconds);
    m->t_usec = m->MBps = m->round_seconds = NULL;
}
