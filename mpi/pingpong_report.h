/*
 * pingpong_report.h: the ping-pong report: what rank 0 of streamcard-pingpong prints (the
 * IMB-style table) and writes (results.json).
 *
 * The table is the one IMB users know:
 *   #---------------------------------------------------
 *   # Benchmarking PingPong
 *   # #processes = 2
 *   #---------------------------------------------------
 *          #bytes #repetitions      t[usec]   Mbytes/sec
 *               8         1000         0.21        38.10
 * (uniband: "# Benchmarking Uniband (window 64)", t[usec] per message).
 */
#ifndef SCM_PINGPONG_REPORT_H
#define SCM_PINGPONG_REPORT_H

#include <stdio.h>

#include "bench.h"
#include "matrix.h"
#include "options.h"
#include "rankbind.h"
#include "transport.h"


/* Everything results.json holds. */
struct scm_results {
    const struct scm_opts *o;
    const char *library;                /* MPI_Get_library_version, first line */
    const struct scm_bench *bench;      /* --pairs all: sizes are the medians over the pairs */
    const struct scm_matrix *matrix;    /* --pairs all; NULL for the single pair */
    const struct scm_binding *bindings; /* nranks entries */
    const struct scm_transport *transports;
    const struct scm_bytes *bytes; /* the main loop's, per rank */
    int nranks;
    const char *transport;      /* the run's carrier, as in TRACE_TRANSPORT */
    const char *transport_note; /* why: candidates and bytes (sc_carrier_decide) */
    int validated;
    unsigned long long messages, failed; /* summed over the ranks */
};

/* What runs, with which MPI library: the first lines of the output. */
void scm_report_banner(FILE *out, const struct scm_opts *o, const char *library);

/* The table's banner and column header. */
void scm_report_table_header(FILE *out, const struct scm_opts *o, int nranks);

/* One table row; the harness-style callback of scm_bench (ctx is the FILE *). */
void scm_report_row(const struct scm_size_result *r, void *ctx);

/* Write results.json. Returns 0 or -EIO/-ENOMEM. */
int scm_report_json(FILE *f, const struct scm_results *r);

#endif
