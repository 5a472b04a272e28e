/*
 * probe_preload.c: libstreamcard-mpiprobe.so, the transport probe of mpi-pingpong for an MPI
 * program we did not write (workload: exec with ranks:; doc/contracts/layout.md, "MPI
 * programs under exec"). The wrapper preloads it into every rank (LD_PRELOAD); it wraps
 * MPI_Init, MPI_Init_thread and MPI_Finalize through the MPI profiling interface (PMPI_*)
 * and prints, on rank 0's stdout (the run's log), the same per-rank lines as
 * streamcard-pingpong: the ranks requested and counted, each rank's binding, transport,
 * threads and memory, and the libraries the ranks mapped (ranklibs.h); at MPI_Finalize each
 * rank's interface bytes and the run's TRACE_TRANSPORT line. Rank 0 writes what MPI_Init
 * said to the file STREAMCARD_TRANSPORT_LOG names (the run's transport.log).
 *
 * What it cannot know of a program it did not write: the payload the program sent (0: the
 * carrier is the library's only candidate, or said unknown), and its main loop unless the
 * program marks it: a rank whose marker library calls the probe's hook (SC_MARKER_PROBE_HOOK)
 * at sc_marker_begin and sc_marker_end has its interference window and its interface bytes
 * there (the counters restart at the first begin and are read at the end after it); any
 * other rank's span MPI_Init to MPI_Finalize. TRACE_RANK_WINDOW and TRACE_PAYLOAD_BYTES'
 * span say which, and a rank's two always say the same: when either cannot move to the
 * begin, neither does.
 *
 * In a rank the observer's descriptors are not inherited (mpirun and srun start the ranks
 * with stdin, stdout and stderr only), so before main() the readiness variable is dropped
 * (rankbind.h) and the marker library's descriptor (STREAMCARD_TRACE_FD) becomes the rank's
 * stdout, which the launcher forwards into the log.
 */
#include "rank_sampler.h"
#include "ranklibs.h"
#include "rankbind.h"
#include "ranksnap.h"
#include "sc_trace_protocol.h"
#include "transport.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCM__EXPORT __attribute__((visibility("default")))

/* Where a rank's interface counters are in its program's markers (scm_probe_marker). */
enum scm__bytes_at {
    SCM__BYTES_MPI,  /* counting since MPI_Init: no begin marker yet */
    SCM__BYTES_LOOP, /* restarted at the first begin marker */
    SCM__BYTES_DONE, /* read at the end marker after it: loop holds them */
    SCM__BYTES_STAY  /* the begin could not move them (or the window): MPI_Init's stay */
};

/* What the probe holds from MPI_Init to MPI_Finalize (one MPI initialisation a process). */
static struct {
    struct scm_probe probe;
    struct scm_transport mine, *all; /* all: one per rank on rank 0 */
    struct scm_rank_sampler *sampler;
    sc_netdev before;
    int counted; /* scm_bytes_begin()'s result */
    enum scm__bytes_at at;
    struct scm_bytes loop; /* the main loop's bytes, read at its end marker */
    int rank, size, active;
} scm__p;

/* Before main(): the observer's descriptors mean nothing in a rank (see above). */
__attribute__((constructor)) static void scm__probe_init(void)
{
    struct scm_ready_guard guard;

    scm_ready_fd_guard(&guard);
    if (getenv(SC_TRACE_FD_ENV))
        setenv(SC_TRACE_FD_ENV, "1", 1);
    scm_rank_sampler_prepare(); /* before MPI's threads: the table's growth waits once they run */
}

/* After PMPI_Init returned rc: the per-rank lines, transport.log, the window's start. */
static void scm__after_init(int rc, const char *library)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    struct scm_binding *bindings = NULL;
    int ok;

    if (rc != MPI_SUCCESS) { /* the library says why; nothing to gather, stdout given back */
        scm_probe_end(&scm__p.probe, comm, -1, library);
        scm_probe_free(&scm__p.probe);
        return;
    }
    MPI_Comm_rank(comm, &scm__p.rank);
    MPI_Comm_size(comm, &scm__p.size);
    int peer = scm__p.size == 2 ? 1 - scm__p.rank : -1;
    scm_probe_end(&scm__p.probe, comm, peer, library);
    if (scm__p.rank == 0) {
        bindings = calloc((size_t)scm__p.size, sizeof(*bindings));
        scm__p.all = calloc((size_t)scm__p.size, sizeof(*scm__p.all));
    }
    ok = scm__p.rank != 0 || (bindings && scm__p.all);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    if (ok) {
        if (scm__p.rank == 0)
            printf(SC_TRACE_RANKS_REQUESTED("%d") "\n", scm__p.size);
        scm_bindings_report(comm, scm__p.rank, scm__p.size, bindings);
        fflush(stdout); /* the bindings before any rank can return and print the program's
                           lines: an observer adopts srun's ranks by them (sc_observe.h) */
        scm_probe_result(&scm__p.probe, scm__p.rank, peer, library, &scm__p.mine);
        scm_transport_report(&scm__p.mine, scm__p.all, comm);
        const char *path = getenv(SC_TRACE_TRANSPORT_LOG_ENV);
        if (scm_transport_log(&scm__p.probe, &scm__p.mine, comm, path) < 0)
            fprintf(stderr, "streamcard-mpiprobe: %s=%s: cannot be written\n",
                    SC_TRACE_TRANSPORT_LOG_ENV, path ? path : "");
        scm_ranksnap_report(comm, scm__p.rank, scm__p.size);
        scm_ranklibs_report(comm, scm__p.rank, stdout); /* build.json's libraries */
        scm_rank_sampler_begin(&scm__p.sampler, comm, scm__p.rank, SC_TRACE_SPAN_MPI);
        scm__p.counted = scm_bytes_begin(&scm__p.before);
        scm__p.at = SCM__BYTES_MPI;
        scm__p.active = 1;
    } else if (scm__p.rank == 0) {
        fprintf(stderr, "streamcard-mpiprobe: the ranks' records: out of memory\n");
    }
    scm_probe_free(&scm__p.probe);
    free(bindings);
    fflush(stdout); /* the lines before any of the program's own */
}

SCM__EXPORT int MPI_Init(int *argc, char ***argv)
{
    char library[256];

    scm_probe_library(library, sizeof(library));
    scm_probe_begin(&scm__p.probe);
    int rc = PMPI_Init(argc, argv);
    scm__after_init(rc, library);
    return rc;
}

SCM__EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    char library[256];

    scm_probe_library(library, sizeof(library));
    scm_probe_begin(&scm__p.probe);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    scm__after_init(rc, library);
    return rc;
}

/*
 * The first begin marker: the interface counters restart and the interference window moves
 * here, both or neither, so the rank's bytes and window say the same span. Later begins
 * change nothing.
 */
static void scm__mark_begin(void)
{
    sc_netdev fresh;

    if (scm__p.at != SCM__BYTES_MPI)
        return; /* not the first begin: the window moved with the bytes, or stays with them */
    scm__p.at = SCM__BYTES_STAY;
    if (scm_bytes_begin(&fresh) < 0) {
        fprintf(stderr,
                "streamcard-mpiprobe: rank %d: the interface counters cannot be read at the main "
                "loop's begin: its bytes and interference window span MPI_Init\n",
                scm__p.rank);
        return;
    }
    if (scm_rank_sampler_mark(scm__p.sampler, 1) < 0) {
        fprintf(stderr,
                "streamcard-mpiprobe: rank %d: the interference window cannot move to the main "
                "loop's begin: its window and bytes span MPI_Init\n",
                scm__p.rank);
        return;
    }
    scm__p.before = fresh;
    scm__p.counted = 0;
    scm__p.at = SCM__BYTES_LOOP;
}

/* The end marker after the first begin: the window closes and the bytes are read here. */
static void scm__mark_end(void)
{
    if (scm_rank_sampler_mark(scm__p.sampler, 0) < 0)
        fprintf(stderr,
                "streamcard-mpiprobe: rank %d: the interference window cannot close at the main "
                "loop's end: its records are missing\n",
                scm__p.rank);
    if (scm__p.at != SCM__BYTES_LOOP)
        return;
    scm_bytes_end(&scm__p.before, scm__p.counted, 0, SC_TRACE_SPAN_MAIN_LOOP, &scm__p.loop);
    scm__p.at = SCM__BYTES_DONE;
}

/*
 * The marker library's hook (SC_MARKER_PROBE_HOOK, sc_trace_protocol.h): this rank's main loop
 * begins (1) or ends (0), so its interference window and its interface bytes move there.
 * Whether the rank writes the marker's line: rank 0 only while MPI is up (one main loop per
 * run), any process else.
 */
SCM__EXPORT int scm_probe_marker(int begin);
SCM__EXPORT int scm_probe_marker(int begin)
{
    if (!scm__p.active)
        return 1;
    if (begin)
        scm__mark_begin();
    else
        scm__mark_end();
    return scm__p.rank == 0;
}

/* Before the library goes: the window's end, every rank's bytes and the run's carrier. */
SCM__EXPORT int MPI_Finalize(void)
{
    if (scm__p.active) {
        MPI_Comm comm = MPI_COMM_WORLD;
        struct scm_bytes mine, *bytes = NULL;
        char transport[SC_CARRIER_MAX], note[1024];

        scm__p.active = 0;
        /* its payload: unknown; its bytes: the main loop's, or up to now since its begin
           marker (no end came) or since MPI_Init (no begin came) */
        if (scm__p.at == SCM__BYTES_DONE)
            mine = scm__p.loop;
        else
            scm_bytes_end(&scm__p.before, scm__p.counted, 0,
                          scm__p.at == SCM__BYTES_LOOP ? SC_TRACE_SPAN_BEGIN_TO_FINALIZE
                                                       : SC_TRACE_SPAN_MPI,
                          &mine);
        scm_rank_sampler_end(scm__p.sampler, comm, scm__p.rank, stdout);
        scm__p.sampler = NULL;
        if (scm__p.rank == 0)
            bytes = calloc((size_t)scm__p.size, sizeof(*bytes));
        int ok = scm__p.rank != 0 || bytes;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
        if (ok)
            scm_transport_decide(scm__p.all, &mine, bytes, comm, transport, sizeof(transport), note,
                                 sizeof(note));
        free(bytes);
        free(scm__p.all);
        scm__p.all = NULL;
        fflush(stdout);
    }
    return PMPI_Finalize();
}
