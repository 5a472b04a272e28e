/*
 * pingpong_plain.c: the plainest MPI ping-pong, the anchor the ping-pong benches
 * (tests/bench/pingpong_vs_hpcc.sh, tests/bench/pingpong_vs_imb.sh) hold streamcard-pingpong
 * to. Not a test: a bench helper, built with the tests so that it stays warning and
 * static-analysis clean.
 *
 * usage: mpirun -np 2 pingpong_plain written|unwritten ITERATIONS BYTES...
 *
 * The same repetitions, warm-up and batches as streamcard-pingpong (mpi/bench.h; the rule
 * is results.json's `repetitions`, doc/contracts/results.md): per size min(ITERATIONS, max(10, 40 MiB / BYTES)) round trips after
 * max(2, repetitions / 10) untimed ones, timed in the largest number of equal batches up to
 * 10, MPI_Wtime around each batch; page-aligned send and receive buffers. Nothing else: no
 * payload stamps or checks.
 *   written     the send buffer is written first (streamcard's case: real payloads);
 *   unwritten   malloc'ed and never written, as HPCC's PingPong does: its pages are the
 *               kernel's zero page, one cache-hot page for a single-copy transport to read.
 * Rank 0 prints one line a size:
 *   PLAIN <bytes> <mean t_usec> <mean MB/s> <best batch t_usec> <best batch MB/s>
 * t is half a round trip; MB = 1e6 bytes. Exit 2 with a one-line message on a bad argument.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAIN_VOLUME (40L * 1048576L) /* bytes a size may move, IMB's rule */
#define PLAIN_MAX_BATCHES 10

/* A whole number in [min, max] from text, or -1. */
static long plain_count(const char *text, long min, long max)
{
    char *end = NULL;

    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max)
        return -1;
    return v;
}

/* One timed loop of n round trips between ranks 0 and 1; its seconds. */
static double plain_loop(int rank, void *s, void *r, int bytes, long n)
{
    double t0 = MPI_Wtime();

    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(s, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

/* The buffers of one size; the send buffer written unless `written` is 0. 0 or -ENOMEM. */
static int plain_buffers(int written, size_t len, void **s, void **r)
{
    *s = NULL;
    *r = NULL;
    if (written) {
        if (posix_memalign(s, 4096, len) || posix_memalign(r, 4096, len))
            return -ENOMEM;
        memset(*s, 1, len);
    } else if (!(*s = malloc(len)) || !(*r = malloc(len))) {
        return -ENOMEM;
    }
    memset(*r, 0, len);
    return 0;
}

/* One size: warm-up, then the batches; rank 0 prints its line. 0 or -ENOMEM. */
static int plain_size(int rank, int written, long iterations, int bytes)
{
    long by_volume = bytes ? PLAIN_VOLUME / bytes : iterations;
    long reps = by_volume < 10 ? 10 : by_volume;
    void *s, *r;

    reps = iterations < reps ? iterations : reps;
    int batches = PLAIN_MAX_BATCHES;
    while (reps % batches)
        batches--;
    if (plain_buffers(written, bytes ? (size_t)bytes : 1, &s, &r)) {
        free(s);
        free(r);
        return -ENOMEM;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    plain_loop(rank, s, r, bytes, reps / 10 > 2 ? reps / 10 : 2);
    long per_batch = reps / batches;
    double sum = 0, best = 0, per = (double)per_batch;
    for (int b = 0; b < batches; b++) {
        double t = plain_loop(rank, s, r, bytes, per_batch);
        sum += t;
        best = b == 0 || t < best ? t : best;
    }
    double mean = sum / batches;
    if (rank == 0)
        printf("PLAIN %d %.4f %.2f %.4f %.2f\n", bytes, mean * 1e6 / (2 * per),
               2.0 * bytes * per / mean / 1e6, best * 1e6 / (2 * per),
               2.0 * bytes * per / best / 1e6);
    free(s);
    free(r);
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = argc > 2 ? plain_count(argv[2], 1, 1000000000L) : -1;
    if (argc < 4 || size != 2 || iterations < 0 ||
        (strcmp(argv[1], "written") && strcmp(argv[1], "unwritten"))) {
        if (rank == 0)
            fprintf(stderr, "pingpong_plain: bad arguments or %d ranks (valid: mpirun -np 2 "
                            "pingpong_plain written|unwritten ITERATIONS BYTES...)\n",
                    size);
        MPI_Finalize();
        return 2;
    }
    int written = !strcmp(argv[1], "written");
    for (int a = 3; a < argc; a++) {
        long bytes = plain_count(argv[a], 0, 1073741824L);
        if (bytes < 0) {
            if (rank == 0)
                fprintf(stderr, "pingpong_plain: %s: not a message size (valid: 0..1073741824)\n",
                        argv[a]);
            MPI_Finalize();
            return 2;
        }
        if (plain_size(rank, written, iterations, (int)bytes))
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
