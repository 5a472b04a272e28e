/*
 * transport.h: which way the data went, as the MPI library itself reports it at run time
 * (the probe), and as the bytes of the main loop show it (transport_report.c).
 *
 * Per rank, the probe records:
 *   - pml, btls_open, mtl: the components that survived selection, from MPI_T (Open MPI
 *     deregisters the control variables of components it closes, so after MPI_Init the
 *     valid "pml_<name>_*" variables name the selected PML, "btl_<name>_*" the BTLs that
 *     initialised, and under the cm PML "mtl_<name>_*" the selected MTL);
 *   - btl: the BTL(s) Open MPI's BML chose to reach the peer, then the one for self, from
 *     the library's own "mca: bml: Using ..." report (capture.h);
 *   - provider, domain: the libfabric provider the OFI MTL selected, in the wording of the
 *     rank's Open MPI version (transport_parse.h);
 *   - ucx: the UCX lanes' carriers, from UCX's endpoint configuration lines;
 *   - candidates: the carriers all of that allows (sc_carrier.h);
 *   - refusals: the reasons a fabric was refused, in the library's and the fabric's words;
 *   - requested: the pml/btl/mtl selection strings in force (MPI_T cvars "pml", "btl",
 *     "mtl", which include openmpi-mca-params.conf);
 *   - stack: the libraries loaded (stack.h) and libfabric's providers; params: the settings
 *     in force with their sources (params.h);
 *   - text: everything the library and the fabric said while MPI_Init ran (transport.log).
 * Around the main loop each rank measures the payload it sent and its network namespace's
 * interface counters (sc_netdev.h).
 *
 * Call order: scm_probe_begin() before MPI_Init, scm_probe_end() after it (it exchanges one
 * message with the peer so lazily made connections exist), then scm_probe_result().
 */
#ifndef SCM_TRANSPORT_H
#define SCM_TRANSPORT_H

#include <mpi.h>

#include "capture.h"
#include "params.h"
#include "sc_carrier.h"
#include "sc_netdev.h"
#include "stack.h"
#include "transport_parse.h"

#define SCM_MAX_REFUSALS 8

/* Fixed-size and pointer-free: gathered to rank 0 as bytes (every rank runs this binary). */
struct scm_transport {
    int rank;
    int ompi_major; /* Open MPI's major version, 0 when not Open MPI */
    char host[64];
    char candidates[SC_CARRIER_MAX];
    char pml[64];
    char btl[128];
    char btls_open[128];
    char mtl[64];
    char provider[64];
    char domain[64];
    char ucx[96];
    char req_pml[96], req_btl[96], req_mtl[96];
    char evidence[768];
    int n_refusals;
    struct scm_refusal refusals[SCM_MAX_REFUSALS];
    struct scm_stack stack;
    struct scm_params params;
};

/* One rank's bytes over the main loop (gathered after it). */
struct scm_bytes {
    unsigned long long payload_sent;
    int known;     /* both readings of the interfaces worked */
    char span[32]; /* what bounded them: an SC_TRACE_SPAN_* word (sc_trace_protocol.h) */
    sc_netdev delta;
};

/* What the probe holds between MPI_Init's before and after. */
struct scm_probe {
    struct scm_capture capture;
    int capturing;
    struct scm_params params; /* the environment's, before the capture adds its own */
    struct scm_stack stack;
    char *fi_said; /* what libfabric printed while the probe asked it for its providers */
};

/* The MPI library's identity, the first line of MPI_Get_library_version() ("unknown" when
   it says none); callable before MPI_Init. */
void scm_probe_library(char *buf, size_t len);

/* Before MPI_Init: note the environment, start watching the stack and hearing the output. */
void scm_probe_begin(struct scm_probe *p);

/* After MPI_Init: one exchange with peer (none when peer < 0), then stop hearing; the stack. */
void scm_probe_end(struct scm_probe *p, MPI_Comm comm, int peer, const char *mpi_library);

/* Everything above for this rank; needs MPI initialised. The capture's text stays in p. */
void scm_probe_result(struct scm_probe *p, int rank, int peer, const char *mpi_library,
                      struct scm_transport *t);

/* The probe's text and what libfabric said when asked (transport.log); frees them. */
void scm_probe_free(struct scm_probe *p);

/*
 * Gather every rank's record to rank 0 (all: comm-size entries there) and, on rank 0,
 * print its trace lines (sc_trace_protocol.h: TRACE_TRANSPORT_RANK, _REFUSED, MPI_LIBRARY,
 * MPI_PARAM). Returns 0 or an MPI error code.
 */
int scm_transport_report(const struct scm_transport *mine, struct scm_transport *all,
                         MPI_Comm comm);

/*
 * Gather every rank's captured text to rank 0 and write them to path (NULL: gathered, not
 * written). Returns 0, or -errno on rank 0 when the file could not be written.
 */
int scm_transport_log(const struct scm_probe *p, const struct scm_transport *mine, MPI_Comm comm,
                      const char *path);

/* Before the main loop: this rank's interface counters. Returns 0 or -errno. */
int scm_bytes_begin(sc_netdev *before);

/* After the main loop: the difference since before (begin's result: rc), with the payload
   this rank sent and what bounded the two readings (span: an SC_TRACE_SPAN_* word). */
void scm_bytes_end(const sc_netdev *before, int rc, unsigned long long payload_sent,
                   const char *span, struct scm_bytes *b);

/*
 * Gather every rank's bytes to rank 0; there print the TRACE_PAYLOAD_BYTES (with its span)
 * and TRACE_IFACE_BYTES lines and the run's TRACE_TRANSPORT line, the carrier decided by
 * sc_carrier_decide() (into agreed, with its note). all/bytes: comm-size entries on rank 0.
 */
int scm_transport_decide(const struct scm_transport *all, const struct scm_bytes *mine,
                         struct scm_bytes *bytes, MPI_Comm comm, char *agreed, size_t len,
                         char *note, size_t notelen);

#endif
