/*
 * pingpong.c: streamcard-pingpong, the mpi-pingpong workload: latency and bandwidth between
 * two MPI ranks (bench.h), every payload checked (pattern.h), and the transport that carried
 * the data as the MPI library reports it (transport.h).
 *
 * What rank 0 prints, in order (each line flushed at once; the trace protocol of
 * sc_trace_protocol.h, doc/contracts/trace-protocol.md, with ranks in place of threads):
 *   Number of Ranks requested = 2
 *   TRACE_READY_HANDSHAKE rank=0 fd=<n> used=<0|1> why=<pipe|not-open|...>
 *       (only when STREAMCARD_READY_FD was set: whether main_loop_begin waits for it)
 *   TRACE_RANK_BINDING rank=<r> host=<h> cpu=<c> pid=<p> allowed=<cpulist>   (one per rank)
 *   Number of Ranks counted = 2
 *   per rank: TRACE_TRANSPORT_RANK rank=<r> host=<h> candidates=<carriers> pml=.. btl=..
 *       mtl=.. provider=.. fi_info=..; its TRACE_TRANSPORT_REFUSED, TRACE_MPI_LIBRARY and
 *       TRACE_MPI_PARAM lines
 *   TRACE_RANK_THREAD rank=<r> host=<h> pid=<p> tid=<t> cpu=<c>      (each thread of each rank)
 *   TRACE_RANK_NUMA rank=<r> host=<h> node=<n> bytes=<b>     (each rank's anonymous memory)
 *   the table banner, TRACE_WORKLOAD_PHASE=main_loop_begin, the rows,
 *   TRACE_WORKLOAD_PHASE=main_loop_end,
 *   per rank: TRACE_PAYLOAD_BYTES, its TRACE_IFACE_BYTES lines; then
 *   TRACE_TRANSPORT transport=<carrier> pml=<p> btl=<b> mtl=<m> provider=<f>
 *   Solution Validates (mpi-pingpong: every payload checked, <n> messages)
 *   or one "Failed Validation: ..." line per rank that received a wrong payload.
 * The per-rank lines are measured by each rank and gathered, so they keep their place
 * whatever the launcher does to the interleaving of the ranks' output.
 *
 * Exit status (every rank): 0 validated, 1 validation failed or a run-time error, 2 bad
 * usage (options, STREAMCARD_FAULT, --json path, a rank count other than 2, or below 2 with
 * --pairs all).
 *
 * With --pairs all (matrix.h) the job has one rank per node and every pair is measured in
 * rounds; the table rows are then the medians over the pairs, printed after the last round.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "matrix.h"
#include "ranksnap.h"
#include "buildinfo.h"
#include "options.h"
#include "pingpong_report.h"
#include "rank_sampler.h"
#include "rankbind.h"
#include "sc_pairs.h"
#include "trace.h"
#include "transport.h"

#ifndef SCM_MPI_FLAGS /* baked in by mpi/CMakeLists.txt */
#define SCM_MPI_FLAGS "unknown"
#endif
#ifndef SCM_MPI_LIBRARIES
#define SCM_MPI_LIBRARIES "unknown"
#endif

/* What was decided of STREAMCARD_READY_FD (rankbind.h), for the TRACE_READY_HANDSHAKE line. */
static struct scm_ready_guard scm__ready;

static int scm__build_info(void)
{
    char lib[256];
    int major = 0, minor = 0;

    if (sct_build_info_print(stdout, 1) != 0)
        return SCM_EXIT_FAILED;
    scm_probe_library(lib, sizeof(lib));
    MPI_Get_version(&major, &minor);
    printf("mpi_library=%s\nmpi_standard=%d.%d\nmpi_flags=%s\nmpi_libraries=%s\n", lib, major,
           minor, SCM_MPI_FLAGS, SCM_MPI_LIBRARIES);
    return fflush(stdout) == 0 ? 0 : SCM_EXIT_FAILED;
}

/* Every rank's first wrong payload and counts, gathered; rank 0 prints the verdict. */
static int scm__verdict(const struct scm_bench *b, MPI_Comm comm, int size,
                        unsigned long long *messages, unsigned long long *failed)
{
    struct {
        struct scm_failure first;
        unsigned long long messages, failed;
    } mine = {b->first, b->messages, b->failed}, *all = NULL;
    int ok = 0;

    if (b->rank == 0 && !(all = calloc((size_t)size, sizeof(*all)))) {
        printf(SC_TRACE_FAILED_VALIDATION ": the ranks' checks could not be gathered (%s)\n",
               strerror(ENOMEM));
        MPI_Abort(comm, SCM_EXIT_FAILED); /* a few bytes per rank: nothing else would work */
    }
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0, comm);
    if (b->rank == 0 && all) {
        *messages = *failed = 0;
        for (int r = 0; r < size; r++) {
            *messages += all[r].messages;
            *failed += all[r].failed;
            const struct scm_failure *f = &all[r].first;
            if (!all[r].failed)
                continue;
            /* clang-format off */
            printf(SC_TRACE_FAILED_VALIDATION ": rank %d received a %zu-byte message (number %llu of that size) with %zu wrong bytes, first at offset %zu: expected 0x%02x got 0x%02x (%llu failed checks on this rank)\n",
                   r, f->bytes, f->seq, f->err.wrong, f->err.offset, f->err.want, f->err.got, all[r].failed);
            /* clang-format on */
        }
        if (*failed == 0)
            printf(SC_TRACE_VALIDATES " (mpi-pingpong: every payload checked, %llu messages)\n",
                   *messages);
        ok = *failed == 0;
    }
    free(all);
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    return ok;
}

/* Rank 0 opens the results file before the run; every rank learns whether it could. */
static int scm__open_json(const struct scm_opts *o, MPI_Comm comm, int rank, FILE **json)
{
    int ok = 1;

    *json = NULL;
    if (rank == 0 && o->cli.json && !(*json = sct_cli_open_json(SCM_PROG, o->cli.json)))
        ok = 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    return ok;
}

/* What the transport lines need from before the main loop to after it. */
struct scm__carrier {
    struct scm_transport mine, *all; /* all, bytes: one per rank on rank 0 */
    struct scm_bytes *bytes;
    char transport[SC_CARRIER_MAX], note[1024];
};

/* The rank this one exchanged with in the probe: the other of two, or its first partner. */
static int scm__probe_peer(const struct scm_opts *o, int rank, int size)
{
    if (o->pairs_all)
        return (int)sc_pairs_partner((size_t)size, 0, (size_t)rank);
    return size == 2 ? 1 - rank : -1;
}

/* Before the main loop: every rank's probe result, its lines, and transport.log. */
static int scm__transport_lines(const struct scm_opts *o, struct scm_probe *probe,
                                const char *library, MPI_Comm comm, int rank, int size,
                                struct scm__carrier *c)
{
    scm_probe_result(probe, rank, scm__probe_peer(o, rank, size), library, &c->mine);
    scm_transport_report(&c->mine, c->all, comm);
    int rc = scm_transport_log(probe, &c->mine, comm, o->transport_log);
    if (rc < 0)
        sct_cli_bad(SCM_PROG, "--transport-log", strerror(-rc), "a writable file path with space");
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    return rc;
}

/* The per-rank arrays of rank 0 (one entry per rank). Returns 0 or -ENOMEM. */
static int scm__alloc_ranks(int size, struct scm_binding **bindings, struct scm__carrier *c)
{
    *bindings = calloc((size_t)size, sizeof(**bindings));
    c->all = calloc((size_t)size, sizeof(*c->all));
    c->bytes = calloc((size_t)size, sizeof(*c->bytes));
    return *bindings && c->all && c->bytes ? 0 : -ENOMEM;
}

/* The rank count the pairing takes: exactly 2, or at least 2 with --pairs all. */
static int scm__check_size(const struct scm_opts *o, int rank, int size)
{
    char why[64];

    if (o->pairs_all ? size >= 2 : size == 2)
        return 0;
    snprintf(why, sizeof(why), "%d rank%s", size, size == 1 ? "" : "s");
    if (rank == 0)
        scm_error("MPI_COMM_WORLD", why,
                  o->pairs_all ? "2 or more with --pairs all: one rank per node"
                               : "exactly 2: mpirun -np 2, srun -n 2");
    return -EINVAL;
}

/* The main loop: the pair, or every pair in rounds (then rank 0 prints the medians). */
static int scm__measure(const struct scm_opts *o, struct scm_bench *bench, struct scm_matrix *m,
                        MPI_Comm comm, int rank, int size)
{
    if (!o->pairs_all)
        return scm_bench_run(bench);
    int rc = scm_matrix_run(o, comm, rank, size, m, bench);
    /* The table's header after the rounds: their progress lines on stderr (a check longer
       than a few seconds) would otherwise fall between it and its rows and end the table
       for its readers. */
    if (rc == 0 && rank == 0)
        scm_report_table_header(stdout, o, size);
    for (int s = 0; rc == 0 && rank == 0 && s < bench->nsizes; s++)
        scm_report_row(&bench->sizes[s], stdout);
    return rc;
}

/* After MPI_Init: everything up to the verdict. Returns the exit status. */
static int scm__run(const struct scm_opts *o, struct scm_probe *probe, const char *library,
                    MPI_Comm comm, int rank, int size)
{
    static struct scm__carrier carrier; /* large: off the stack */
    struct scm_binding *bindings = NULL;
    struct scm_bench bench = {.o = o, .comm = comm, .rank = rank, .peer = 1 - rank};
    struct scm_matrix matrix = {0};
    struct scm_bytes mine_bytes;
    sc_netdev before;
    unsigned long long messages = 0, failed = 0;
    FILE *json = NULL;
    struct scm_rank_sampler *sampler = NULL;
    int ok, rc = SCM_EXIT_FAILED;

    if (rank == 0) {
        scm_report_banner(stdout, o, library);
        printf(SC_TRACE_RANKS_REQUESTED("%d") "\n", size);
    }
    if (rank == 0 && scm__ready.asked)
        printf(SC_TRACE_READY_HANDSHAKE("0", "%ld", "%d", "%s") "\n", scm__ready.fd,
               getenv(SC_TRACE_READY_FD_ENV) != NULL, scm__ready.why);
    if (scm__check_size(o, rank, size) != 0)
        return SCM_EXIT_USAGE;
    ok = scm__alloc_ranks(size, &bindings, &carrier) == 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    if (!ok) {
        if (rank == 0)
            scm_error("the ranks' records", strerror(ENOMEM), "fewer ranks");
        goto out_free;
    }
    if (!scm__open_json(o, comm, rank, &json)) {
        rc = SCM_EXIT_USAGE;
        goto out_free;
    }
    scm_bindings_report(comm, rank, size, bindings);
    if (scm__transport_lines(o, probe, library, comm, rank, size, &carrier) < 0)
        goto out_close;

    scm_ranksnap_report(comm, rank, size); /* each rank as it enters the main loop */
    if (rank == 0) {
        bench.row = scm_report_row;
        bench.row_ctx = stdout;
        if (!o->pairs_all) /* the pair's rows follow as measured; the matrix's, its rounds */
            scm_report_table_header(stdout, o, size);
    }
    MPI_Barrier(comm); /* the warm-up barrier: every rank is past MPI_Init and the probe */
    /* each rank's window over its own CPUs, around the main loop */
    scm_rank_sampler_begin(&sampler, comm, rank, SC_TRACE_SPAN_MAIN_LOOP);
    if (rank == 0)
        sct_phase(SC_TRACE_MAIN_LOOP_BEGIN); /* the handshake, when the observer started us */
    int counted = scm_bytes_begin(&before);
    if (scm__measure(o, &bench, &matrix, comm, rank, size) != 0)
        goto out_close;
    scm_bytes_end(&before, counted, bench.payload_sent, SC_TRACE_SPAN_MAIN_LOOP, &mine_bytes);
    if (rank == 0)
        sct_phase(SC_TRACE_MAIN_LOOP_END);
    scm_rank_sampler_end(sampler, comm, rank, stdout);
    sampler = NULL;
    scm_transport_decide(carrier.all, &mine_bytes, carrier.bytes, comm, carrier.transport,
                         sizeof(carrier.transport), carrier.note, sizeof(carrier.note));
    ok = scm__verdict(&bench, comm, size, &messages, &failed);
    rc = ok ? 0 : SCM_EXIT_FAILED;
    if (json) {
        struct scm_results res = {.o = o,
                                  .library = library,
                                  .bench = &bench,
                                  .matrix = o->pairs_all ? &matrix : NULL,
                                  .bindings = bindings,
                                  .transports = carrier.all,
                                  .bytes = carrier.bytes,
                                  .nranks = size,
                                  .transport = carrier.transport,
                                  .transport_note = carrier.note,
                                  .validated = ok,
                                  .messages = messages,
                                  .failed = failed};
        if (scm_report_json(json, &res) != 0) {
            sct_cli_bad(SCM_PROG, "--json", strerror(EIO), "a writable file path with space");
            rc = SCM_EXIT_FAILED;
        }
        if (o->pairs_all && scm_matrix_write_files(&matrix, o->cli.json) != 0)
            rc = SCM_EXIT_FAILED; /* the raw figures the summaries stand on: said */
    }
out_close:
    scm_rank_sampler_drop(sampler);
    if (json && sct_cli_close_json(SCM_PROG, o->cli.json, json) != 0)
        rc = SCM_EXIT_FAILED;
out_free:
    scm_matrix_free(&matrix);
    free(bindings);
    free(carrier.all);
    free(carrier.bytes);
    carrier.all = NULL;
    carrier.bytes = NULL;
    return rc;
}

/* Options, the probe around MPI_Init, the run, MPI_Finalize. */
int main(int argc, char **argv)
{
    struct scm_opts o;
    static struct scm_probe probe; /* large: off the stack */
    char library[256];
    int rank = 0, size = 0, rc, worst = 0;

    scm_ready_fd_guard(&scm__ready); /* first: before any descriptor is opened */
    if (scm_options_parse(argc, argv, &o) != 0)
        return SCM_EXIT_USAGE;
    if (o.cli.help) {
        scm_options_usage(stdout);
        return 0;
    }
    if (o.cli.build_info)
        return scm__build_info();
    setvbuf(stdout, NULL, _IOLBF, 0); /* the log keeps every line even if we crash */
    scm_rank_sampler_prepare();       /* before the first thread (the probe's, MPI's) */

    scm_probe_library(library, sizeof(library));
    scm_probe_begin(&probe);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    scm_probe_end(&probe, MPI_COMM_WORLD, scm__probe_peer(&o, rank, size), library);
    if (rank != 0)
        unsetenv(SC_TRACE_READY_FD_ENV); /* rank 0 alone prints the phases */

    rc = scm__run(&o, &probe, library, MPI_COMM_WORLD, rank, size);
    scm_probe_free(&probe);
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* one status for all */
    MPI_Finalize();
    return worst;
}
