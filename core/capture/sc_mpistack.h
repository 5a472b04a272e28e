/*
 * sc_mpistack.h: the MPI stack a run used, from the workload's TRACE_MPI_LIBRARY,
 * TRACE_MPI_PARAM and TRACE_TRANSPORT_RANK lines (as run.conf keeps them: mpi_library=,
 * mpi_param=, transport_rank=): what compare holds constant (doc/contracts/gates.md, "Carriers"),
 * and build.json's "mpi_stack".
 */
#ifndef SC_MPISTACK_H
#define SC_MPISTACK_H

#include "sc_card.h"
#include "sc_tracelog.h"

#include <json-c/json.h>

/* One library as one rank reported it. */
typedef struct sc_mpi_lib {
    long rank;
    char name[16];   /* libmpi, libfabric, libucp, libucs, libcxi */
    char loaded[16]; /* yes, no, unloaded (loaded during MPI_Init, then let go) */
    char sha256[72]; /* of the file, "-" when not loaded */
    char path[512];
    char version[256]; /* as the library states it, "-" when it has no such call */
} sc_mpi_lib;

/* Parses a TRACE_MPI_LIBRARY line's text after its tag (a run.conf mpi_library= value).
   Returns 0, or -EINVAL. */
int sc_mpi_lib_parse(const char *text, sc_mpi_lib *out);

/*
 * A library's identity over the ranks of run_conf's mpi_library= lines: rank 0's
 * "<version up to its first comma> sha256:<hex>" ("not loaded"), then " | rank <r>: ..." for each rank whose
 * identity differs; "unavailable" without a line for it. names: one, or two joined by a
 * space ("libucp libucs": both, each named). NULL on ENOMEM.
 */
char *sc_mpistack_library(const char *run_conf, const char *names);

/*
 * The transport settings of rank 0 (run.conf mpi_param=): "name=value (source)" joined by
 * "; " in name order, "none" without one. Settings the card's env sets (OMPI_MCA_<name>,
 * FI_*, UCX_*) are left out: compare holds the card's env as a variable of its own.
 */
char *sc_mpistack_settings(const char *run_conf, const sc_card *card);

/* libfabric's providers on rank 0's node (run.conf transport_rank= fi_info), and on any
   rank that differs; "unavailable" without a line. */
char *sc_mpistack_providers(const char *run_conf);

/* build.json's "mpi_stack": {"libraries": [...], "settings": [...]} from the log's lines;
   NULL when the log has none. */
json_object *sc_mpistack_json(const sc_tracelog *t);

#endif
