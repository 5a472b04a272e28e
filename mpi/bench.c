/*
 * bench.c: the ping-pong and uniband loops, their buffers and checks (see bench.h).
 */
#include "bench.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define SCM_TAG_PINGPONG 1
#define SCM_TAG_DATA 2
#define SCM_TAG_ACK 3
#define SCM_ALIGN 4096

/* One size's state, handed to the harness as ctx. */
struct scm__size_run {
    struct scm_bench *b;
    unsigned char *sbuf, *rbuf; /* send buffer; receive slots, `slot` bytes apart */
    size_t slot, bytes;
    long reps, warmup, per_batch; /* timed, untimed, and per timed run() call */
    int calls;                    /* run() calls so far: the first is the warm-up */
    uint64_t seed_self, seed_peer;
    uint64_t seq;      /* next message number */
    MPI_Request *reqs; /* uniband: one per window slot */
};

int scm_bench_sizes(size_t min, size_t max, size_t out[SCM_MAX_SIZES])
{
    int n = 0;

    for (size_t s = min; s <= max && n < SCM_MAX_SIZES; s = s ? 2 * s : 1) {
        out[n++] = s;
        if (s > max / 2 && s != 0)
            break; /* the next doubling would pass max (or overflow) */
    }
    return n;
}

long scm_bench_repetitions(size_t bytes, long iterations)
{
    long by_volume = bytes ? (long)(SCM_VOLUME / (long)bytes) : iterations;

    if (by_volume < SCM_MIN_REPS)
        by_volume = SCM_MIN_REPS;
    return iterations < by_volume ? iterations : by_volume;
}

long scm_bench_warmup(long reps)
{
    return reps / 10 > 2 ? reps / 10 : 2;
}

int scm_bench_batches(long reps)
{
    int b = 10;

    while (reps % b != 0)
        b--;
    return b;
}

/* The slow path of a failed stamp check: count it, and describe the first one fully. */
__attribute__((noinline, cold)) static void scm__wrong(struct scm__size_run *r,
                                                       const unsigned char *buf, uint64_t seq)
{
    struct scm_bench *b = r->b;

    b->failed++;
    if (b->first.found)
        return;
    b->first = (struct scm_failure){.found = 1, .bytes = r->bytes, .seq = seq};
    scm_pattern_check_full(buf, r->bytes, r->seed_peer, seq, &b->first.err);
}

/*
 * Ping-pong: the lower rank sends first; both check what they receive. The loop works on
 * locals: the MPI calls are opaque, so fields of *r would be reloaded after each of them.
 */
static void scm__pingpong(void *ctx)
{
    struct scm__size_run *r = ctx;
    const struct scm_bench *b = r->b;
    long n = r->calls++ ? r->per_batch : r->warmup;
    unsigned char *sbuf = r->sbuf, *rbuf = r->rbuf;
    size_t bytes = r->bytes;
    uint64_t seq = r->seq, self = r->seed_self, peer_seed = r->seed_peer;
    int count = (int)bytes, peer = b->peer;
    MPI_Comm comm = b->comm;

    if (b->rank < peer) {
        for (long i = 0; i < n; i++, seq++) {
            scm_pattern_stamp(sbuf, bytes, self, seq);
            MPI_Send(sbuf, count, MPI_BYTE, peer, SCM_TAG_PINGPONG, comm);
            MPI_Recv(rbuf, count, MPI_BYTE, peer, SCM_TAG_PINGPONG, comm, MPI_STATUS_IGNORE);
            if (scm_pattern_check_stamps(rbuf, bytes, peer_seed, seq))
                scm__wrong(r, rbuf, seq);
        }
    } else {
        for (long i = 0; i < n; i++, seq++) {
            MPI_Recv(rbuf, count, MPI_BYTE, peer, SCM_TAG_PINGPONG, comm, MPI_STATUS_IGNORE);
            if (scm_pattern_check_stamps(rbuf, bytes, peer_seed, seq))
                scm__wrong(r, rbuf, seq);
            scm_pattern_stamp(sbuf, bytes, self, seq);
            MPI_Send(sbuf, count, MPI_BYTE, peer, SCM_TAG_PINGPONG, comm);
        }
    }
    r->seq = seq;
    r->b->messages += (unsigned long long)n;             /* both ranks receive one per round trip */
    r->b->payload_sent += (unsigned long long)n * bytes; /* and send one */
}

static void scm__post_window(struct scm__size_run *r)
{
    const struct scm_bench *b = r->b;

    for (int w = 0; w < b->o->window; w++)
        MPI_Irecv(r->rbuf + (size_t)w * r->slot, (int)r->bytes, MPI_BYTE, b->peer, SCM_TAG_DATA,
                  b->comm, &r->reqs[w]);
}

/*
 * Uniband: rank 0 sends `window` messages at once (one stamp per window: the buffer may not
 * change while sends are pending), rank 1 receives them into distinct slots, checks each,
 * posts the next window's receives and then acknowledges, so data never arrives unexpected.
 */
static void scm__uniband(void *ctx)
{
    struct scm__size_run *r = ctx;
    struct scm_bench *b = r->b;
    long n = r->calls++ ? r->per_batch : r->warmup;
    int count = (int)r->bytes, window = b->o->window;
    uint64_t seq = r->seq;

    if (b->rank < b->peer) {
        for (long i = 0; i < n; i++, seq++) {
            scm_pattern_stamp(r->sbuf, r->bytes, r->seed_self, seq);
            for (int w = 0; w < window; w++)
                MPI_Isend(r->sbuf, count, MPI_BYTE, b->peer, SCM_TAG_DATA, b->comm, &r->reqs[w]);
            MPI_Waitall(window, r->reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, b->peer, SCM_TAG_ACK, b->comm, MPI_STATUS_IGNORE);
        }
        b->payload_sent += (unsigned long long)n * (unsigned long long)window * r->bytes;
    } else {
        scm__post_window(r);
        for (long i = 0; i < n; i++, seq++) {
            MPI_Waitall(window, r->reqs, MPI_STATUSES_IGNORE);
            for (int w = 0; w < window; w++) {
                const unsigned char *slot = r->rbuf + (size_t)w * r->slot;
                if (scm_pattern_check_stamps(slot, r->bytes, r->seed_peer, seq))
                    scm__wrong(r, slot, seq);
            }
            if (i + 1 < n)
                scm__post_window(r);
            MPI_Send(NULL, 0, MPI_BYTE, b->peer, SCM_TAG_ACK, b->comm);
        }
        b->messages += (unsigned long long)n * (unsigned long long)window;
    }
    r->seq = seq;
}

/*
 * After the timed batches: check every byte of the last message(s) received (slots for the
 * uniband receiver). STREAMCARD_FAULT=corrupt damages one byte of the largest size first.
 */
static void scm__check_last(struct scm__size_run *r, int largest)
{
    struct scm_bench *b = r->b;
    int pingpong = b->o->kernel == SCM_KERNEL_PINGPONG;
    int receiver = pingpong || b->rank > b->peer; /* uniband: only the higher rank receives */
    int slots = pingpong ? 1 : b->o->window;
    /* The damaged payload is one that rank 0 (ping-pong) or the receiver (uniband) got. */
    int corrupt_here =
        largest && b->o->fault == SCT_FAULT_CORRUPT && receiver && (!pingpong || b->rank == 0);

    if (!receiver || r->seq == 0)
        return;
    if (corrupt_here && r->bytes == 0) { /* no payload to damage: report the fault itself */
        scm__wrong(r, r->rbuf, r->seq - 1);
        return;
    }
    if (corrupt_here)
        r->rbuf[r->bytes / 2] ^= 0xA5;
    for (int w = 0; w < slots; w++) {
        struct scm_pattern_error err;
        const unsigned char *slot = r->rbuf + (size_t)w * r->slot;
        if (scm_pattern_check_full(slot, r->bytes, r->seed_peer, r->seq - 1, &err) == 0)
            continue;
        b->failed++;
        if (!b->first.found)
            b->first = (struct scm_failure){1, r->bytes, r->seq - 1, err};
    }
}

/* Warm-up, the timed batches, the full check and the row of one message size. */
static void scm__one_size(struct scm__size_run *r, size_t bytes, int largest,
                          struct scm_size_result *out)
{
    struct scm_bench *b = r->b;
    int pingpong = b->o->kernel == SCM_KERNEL_PINGPONG;
    double per_rep = pingpong ? 2.0 * (double)bytes : (double)bytes * b->o->window;
    struct sct_kernel k = {pingpong ? "pingpong" : "uniband", NULL, per_rep, 0,
                           pingpong ? scm__pingpong : scm__uniband};
    const struct sct_kernel *list[1] = {&k};
    struct sct_kernel_stats st;

    r->bytes = bytes;
    r->reps = scm_bench_repetitions(bytes, b->o->iterations);
    r->warmup = scm_bench_warmup(r->reps);
    int batches = scm_bench_batches(r->reps);
    r->per_batch = r->reps / batches;
    r->calls = 0;
    r->seq = 0;
    r->seed_self = scm_pattern_seed(bytes, b->rank);
    r->seed_peer = scm_pattern_seed(bytes, b->peer);
    scm_pattern_fill(r->sbuf, bytes, r->seed_self); /* untimed, and first touch */

    struct sct_harness h = {.elements = (size_t)r->per_batch, .iterations = 1 + batches, .ctx = r};
    MPI_Barrier(b->comm);
    sct_harness_run(&h, list, 1, &st); /* cannot fail: iterations >= 2, a kernel with run() */
    scm__check_last(r, largest);

    /* Per batch: the messages timed, and the bytes they moved over the mean batch time. */
    double msgs = (pingpong ? 2.0 : (double)b->o->window) * (double)r->per_batch;
    double mean_MBps = st.avg_s > 0 ? 1e-6 * per_rep * (double)r->per_batch / st.avg_s : 0;
    *out = (struct scm_size_result){.bytes = bytes,
                                    .reps = r->reps,
                                    .batches = batches,
                                    .t_usec = st.avg_s * 1e6 / msgs,
                                    .MBps = mean_MBps,
                                    .t_min_usec = st.min_s * 1e6 / msgs,
                                    .MBps_max = st.best_rate_MBps};
}

static void *scm__alloc(size_t bytes)
{
    void *p = NULL;

    if (posix_memalign(&p, SCM_ALIGN, bytes ? bytes : 1) != 0)
        return NULL;
    memset(p, 0, bytes ? bytes : 1); /* touched now, not in the first timed batch */
    return p;
}

int scm_bench_run(struct scm_bench *b)
{
    const struct scm_opts *o = b->o;
    size_t sizes[SCM_MAX_SIZES];
    struct scm__size_run r = {.b = b};
    int uniband_receiver = o->kernel == SCM_KERNEL_UNIBAND && b->rank > b->peer;
    int slots = uniband_receiver ? o->window : 1, ok, all_ok = 0;

    b->nsizes = scm_bench_sizes(o->min_bytes, o->max_bytes, sizes);
    r.slot = (o->max_bytes + 63) / 64 * 64; /* slots start on cache lines */
    r.sbuf = scm__alloc(o->max_bytes);
    r.rbuf = scm__alloc(r.slot * (size_t)slots);
    /* MPI_Request is a handle (a pointer in Open MPI): an array of handles, as meant (a false
       positive of clang-tidy 14). NOLINTNEXTLINE(bugprone-sizeof-expression) */
    r.reqs = calloc((size_t)o->window, sizeof(*r.reqs));
    ok = r.sbuf && r.rbuf && r.reqs;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, b->comm);
    if (!all_ok) {
        if (b->rank == 0)
            fprintf(stderr,
                    SCM_PROG ": allocating message buffers: %s (smaller --max-bytes or "
                             "--window; the uniband receiver needs window x max-bytes)\n",
                    strerror(ENOMEM));
        goto out_free;
    }
    for (int i = 0; i < b->nsizes; i++) {
        if (b->rank == 0 && i == b->nsizes / 2)
            sct_fault_strike(o->fault); /* test-only: crash or hang mid-loop */
        /* scm_bench_sizes() set sizes[0..nsizes); the analyzer does not follow it.
           NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage) */
        scm__one_size(&r, sizes[i], i == b->nsizes - 1, &b->sizes[i]);
        if (b->rank == 0 && b->row)
            b->row(&b->sizes[i], b->row_ctx);
    }
out_free:
    free(r.sbuf);
    free(r.rbuf);
    free(r.reqs);
    return all_ok ? 0 : -ENOMEM;
}
