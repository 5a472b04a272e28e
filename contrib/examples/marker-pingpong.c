/*
 * marker-pingpong.c: an MPI program of the kind streamcard did not write, instrumented with
 * the marker library (streamcard/marker.h; doc/markers.md): two ranks send a message back
 * and forth, first small (latency: half a round trip of 8 bytes) then large (bandwidth: 1 MiB
 * each way). Every rank bounds the main loop with sc_marker_begin and sc_marker_end (each
 * rank's interference window follows its own; the log gets rank 0's lines, one main loop per
 * run) and rank 0 reports both figures with sc_marker_figure; every message received is
 * checked, and rank 0 prints "Solution Validates" or "Failed Validation"
 * (contrib/cards/exec-mpi-marker.yaml runs it under `workload: exec`, ranks: 2).
 *
 * Usage: mpirun -np 2 streamcard-marker-pingpong [iterations]   (default 2000)
 * Without streamcard around it, the markers do nothing and it runs as any MPI program.
 */
#include <streamcard/marker.h>

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_BYTES 8
#define LARGE_BYTES (1 << 20)

/* The byte at offset i of message number seq: every message differs from the one before. */
static unsigned char pattern(long seq, size_t i)
{
    return (unsigned char)((size_t)seq * 131u + i * 7u + 1u);
}

static void fill(unsigned char *buf, size_t bytes, long seq)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = pattern(seq, i);
}

/* The bytes of buf that are not message seq's. */
static long wrong_bytes(const unsigned char *buf, size_t bytes, long seq)
{
    long wrong = 0;

    for (size_t i = 0; i < bytes; i++)
        wrong += buf[i] != pattern(seq, i);
    return wrong;
}

/*
 * iterations round trips of bytes between ranks 0 and 1: rank 0 sends, rank 1 checks and
 * sends the same message back, rank 0 checks it. The seconds of the round trips on rank 0;
 * *wrong counts the bytes that arrived wrong on this rank.
 */
static double round_trips(int rank, unsigned char *buf, size_t bytes, long iterations,
                          long *wrong)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iterations; it++) {
        if (rank == 0) {
            fill(buf, bytes, it);
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        *wrong += wrong_bytes(buf, bytes, it);
        if (rank == 1)
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

/* A positive count from text, or -1 with a line on stderr. */
static long count_arg(const char *text)
{
    char *end = NULL;

    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < 1 || v > 1L << 24) {
        fprintf(stderr, "marker-pingpong: iterations \"%s\" is not a count (valid: 1 to 2^24)\n",
                text);
        return -1;
    }
    return v;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 0, rc;
    long iterations = argc > 1 ? count_arg(argv[1]) : 2000, wrong = 0, all_wrong = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || iterations < 0) {
        if (rank == 0 && size != 2)
            fprintf(stderr, "marker-pingpong: %d ranks (valid: exactly 2: mpirun -np 2)\n", size);
        MPI_Finalize();
        return 2;
    }
    unsigned char *buf = malloc(LARGE_BYTES);
    if (!buf) {
        fprintf(stderr, "marker-pingpong: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1; /* MPI_Abort does not return; the compiler is not told so */
    }
    if (rank == 0) {
        printf("marker-pingpong: 2 ranks, %ld iterations of %d and %d bytes, markers %s\n",
               iterations, SMALL_BYTES, LARGE_BYTES,
               sc_marker_active() ? "on" : "off (no streamcard observer)");
        fflush(stdout);
    }
    round_trips(rank, buf, SMALL_BYTES, 10, &wrong); /* warm-up: the connections exist */
    if ((rc = sc_marker_begin(SC_MARKER_MAIN_LOOP)) < 0)
        fprintf(stderr, "marker-pingpong: sc_marker_begin: %s\n", strerror(-rc));
    double small_s = round_trips(rank, buf, SMALL_BYTES, iterations, &wrong);
    long large_its = iterations / 20 > 0 ? iterations / 20 : 1; /* fewer for big messages */
    double large_s = round_trips(rank, buf, LARGE_BYTES, large_its, &wrong);
    if ((rc = sc_marker_end(SC_MARKER_MAIN_LOOP)) < 0)
        fprintf(stderr, "marker-pingpong: sc_marker_end: %s\n", strerror(-rc));

    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        /* One-way latency is half a round trip; bandwidth counts both directions' bytes. */
        double latency_us = small_s / (double)iterations / 2 * 1e6;
        double bw_MBps = 2.0 * LARGE_BYTES * (double)large_its / large_s / 1e6;
        printf("Latency: %.3f us (%d bytes)\nBandwidth: %.1f MB/s (%d bytes)\n", latency_us,
               SMALL_BYTES, bw_MBps, LARGE_BYTES);
        if ((rc = sc_marker_figure("latency_8B", latency_us, "us")) < 0 ||
            (rc = sc_marker_figure("bw_1MiB", bw_MBps, "MB/s")) < 0)
            fprintf(stderr, "marker-pingpong: sc_marker_figure: %s\n", strerror(-rc));
        if (all_wrong)
            printf("Failed Validation: %ld bytes arrived wrong\n", all_wrong);
        else
            printf("Solution Validates: every message arrived as sent\n");
        fflush(stdout);
    }
    free(buf);
    MPI_Bcast(&all_wrong, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_wrong ? 1 : 0;
}
