/*
 * bench.h: the measurement: ping-pong and windowed unidirectional bandwidth between two
 * ranks, over message sizes doubling from min to max, every payload checked.
 *
 * Method (IMB's, with OSU's warm-up): per size, a barrier, an untimed warm-up, then the
 * timed repetitions, run through the kernels' harness (harness.h: its first repetition is
 * the warm-up and is not counted) as up to 10 equal batches. Ping-pong: rank 0 sends, rank
 * 1 answers, t = time / (2 x repetitions), i.e. half a round trip; Mbytes/sec = bytes /
 * t[usec] (MB = 10^6 bytes, as IMB). Uniband: rank 0 keeps `window` sends in flight into
 * distinct receive slots, rank 1 acknowledges each window with an empty message; t = time per
 * message and Mbytes/sec = bytes x window x repetitions / time. The table has IMB's mean over
 * all timed repetitions; the fastest batch is kept too (HPCC, for one, reports minima).
 *
 * Repetitions: min(iterations, max(10, 41943040 / bytes)) (IMB's 40 MiB per size, at least
 * 10); warm-up: max(2, repetitions / 10); batches: the largest divisor of the repetitions
 * up to 10. Payloads: pattern.h; the stamps of every message are checked in the loop, every
 * byte of the last message of each size after it.
 */
#ifndef SCM_BENCH_H
#define SCM_BENCH_H

#include <mpi.h>
#include <stddef.h>

#include "options.h"
#include "pattern.h"

#define SCM_MAX_SIZES 64
/* IMB's volume limit: at most this many bytes per size, so big messages get fewer
   repetitions than the card's iterations, and never fewer than SCM_MIN_REPS. */
#define SCM_VOLUME 41943040L
#define SCM_MIN_REPS 10

/* One row of the table: IMB's figures (means over every timed repetition), and the best batch. */
struct scm_size_result {
    size_t bytes;
    long reps;         /* timed repetitions */
    int batches;       /* they were timed in this many equal batches */
    double t_usec;     /* mean; ping-pong: half a round trip; uniband: per message */
    double MBps;       /* IMB's Mbytes/sec (10^6 bytes per second) from the mean */
    double t_min_usec; /* the same from the fastest batch */
    double MBps_max;
};

/* The first wrong payload this rank received. */
struct scm_failure {
    int found;
    size_t bytes;           /* message size */
    unsigned long long seq; /* message number within the size (warm-up included) */
    struct scm_pattern_error err;
};

struct scm_bench {
    const struct scm_opts *o;
    MPI_Comm comm;
    int rank, peer; /* the two ranks; rank 0 times and reports */
    /* Called on rank 0 after each size, outside the timing (prints the row); may be NULL. */
    void (*row)(const struct scm_size_result *r, void *ctx);
    void *row_ctx;
    /* Results. */
    struct scm_size_result sizes[SCM_MAX_SIZES];
    int nsizes;
    unsigned long long messages;     /* payloads this rank received, each checked */
    unsigned long long payload_sent; /* bytes of payload this rank sent, warm-ups included */
    unsigned long long failed;       /* checks that failed on this rank (stamp or full) */
    struct scm_failure first;
};

/* The sizes from min to max: min, 2 min, 4 min, ... (0 is followed by 1). Returns the count. */
int scm_bench_sizes(size_t min, size_t max, size_t out[SCM_MAX_SIZES]);

/* Timed repetitions at `bytes`: min(iterations, max(10, 41943040 / bytes)). */
long scm_bench_repetitions(size_t bytes, long iterations);

/* Untimed warm-up repetitions before `reps` timed ones: max(2, reps / 10). */
long scm_bench_warmup(long reps);

/* Timed batches for `reps` repetitions: the largest divisor of reps up to 10. */
int scm_bench_batches(long reps);

/*
 * Run every size (collective over b->comm). Returns 0, or -ENOMEM when a rank could not
 * allocate its buffers (every rank returns it; rank 0 has printed the error).
 */
int scm_bench_run(struct scm_bench *b);

#endif
