/*
 * exec_mpi_window.c: an MPI program for wrapper.exec_mpi, of any number of ranks. Each rank
 * waits 300 ms after MPI_Init, runs a main loop of 300 ms (sleeping) and waits 300 ms before
 * MPI_Finalize, so a window from MPI_Init to MPI_Finalize and one of the main loop differ by
 * far more than the scheduler's noise. With "markers" every rank bounds the main loop with
 * sc_marker_begin and sc_marker_end, and rank 0 prints the CLOCK_MONOTONIC times just before
 * its begin and just after its end ("loop_outer_ns=<before> <after>"), which the rank's
 * interference window must lie inside. With "patterns" rank 0 prints "main loop begins" just
 * before the loop and "main loop ends" just after it, for a card's begin_pattern and
 * end_pattern. Rank 0 ends with "Solution Validates".
 *
 * Usage: exec_mpi_window markers|patterns|none
 */
#include <streamcard/marker.h>

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    int rank = 0;
    int markers = argc > 1 && !strcmp(argv[1], "markers");
    int patterns = argc > 1 && !strcmp(argv[1], "patterns");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sleep_ms(300);
    long long before = now_ns();
    if (markers && sc_marker_begin(SC_MARKER_MAIN_LOOP) < 0)
        fprintf(stderr, "exec_mpi_window: sc_marker_begin failed\n");
    if (patterns && rank == 0) {
        printf("main loop begins\n");
        fflush(stdout);
    }
    sleep_ms(300);
    if (patterns && rank == 0) {
        printf("main loop ends\n");
        fflush(stdout);
    }
    if (markers && sc_marker_end(SC_MARKER_MAIN_LOOP) < 0)
        fprintf(stderr, "exec_mpi_window: sc_marker_end failed\n");
    long long after = now_ns();
    if (rank == 0) {
        printf("loop_outer_ns=%lld %lld\nSolution Validates\n", before, after);
        fflush(stdout);
    }
    sleep_ms(300);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
