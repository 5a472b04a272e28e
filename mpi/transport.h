/*
 * transport.h: which way the data went, as the MPI library itself reports it at run time.
 *
 * Per rank, the probe records:
 *   - pml, btls_open, mtl: the components that survived selection, from MPI_T (Open MPI
 *     deregisters the control variables of components it closes, so after MPI_Init the
 *     valid "pml_<name>_*" variables name the selected PML, "btl_<name>_*" the BTLs that
 *     initialised, and under the cm PML "mtl_<name>_*" the selected MTL);
 *   - btl: the BTL(s) Open MPI's BML chose to reach the peer, then the one for self, from
 *     the library's own "mca: bml: Using ..." report (capture.h);
 *   - provider, domain: the libfabric provider the OFI MTL selected ("mtl:ofi:prov: ...");
 *   - requested: the pml/btl/mtl selection strings in force (MPI_T cvars "pml", "btl",
 *     "mtl", which include openmpi-mca-params.conf), and the OMPI_MCA_{pml,btl,mtl}*, FI_*
 *     and UCX_* environment at start;
 *   - fi_registered, fi_usable: `fi_info -l` (providers built into libfabric) and `fi_info`
 *     (providers with a usable endpoint on this node), "unavailable" without fi_info;
 *   - transport: the normalized name for the card's gate (transport_parse.h).
 *
 * Call order: scm_probe_begin() before MPI_Init, scm_probe_end() after it (it exchanges one
 * message with the peer so lazily made connections exist), then scm_probe_result().
 */
#ifndef SCM_TRANSPORT_H
#define SCM_TRANSPORT_H

#include <mpi.h>

#include "capture.h"

/* Fixed-size and pointer-free: gathered to rank 0 as bytes (every rank runs this binary). */
struct scm_transport {
    int rank;
    char host[64];
    char transport[96];
    char pml[64];
    char btl[128];
    char btls_open[128];
    char mtl[64];
    char provider[64];
    char domain[64];
    char req_pml[96], req_btl[96], req_mtl[96];
    char mca_env[512];
    char fi_registered[384];
    char fi_usable[384];
    char evidence[768];
};

/* What the probe holds between MPI_Init's before and after. */
struct scm_probe {
    struct scm_capture capture;
    int capturing;
    char mca_env[512];
    char fi_registered[384];
    char fi_usable[384];
};

/* Before MPI_Init: run fi_info, note the environment, start hearing stderr. */
void scm_probe_begin(struct scm_probe *p);

/* After MPI_Init: one exchange with peer (none when peer < 0), then stop hearing stderr. */
void scm_probe_end(struct scm_probe *p, MPI_Comm comm, int peer);

/* Everything above for this rank; needs MPI initialised. Frees the probe's capture. */
void scm_probe_result(struct scm_probe *p, int rank, int peer, struct scm_transport *t);

/*
 * Gather every rank's record to rank 0 (all: comm-size entries there, NULL elsewhere) and,
 * on rank 0, print one "TRACE_TRANSPORT_RANK ..." line per rank and the run's
 * "TRACE_TRANSPORT ..." line; agreed gets the run's transport (rank 0). Returns 0 or an MPI
 * error code.
 */
int scm_transport_report(const struct scm_transport *mine, struct scm_transport *all, MPI_Comm comm,
                         char *agreed, size_t len);

#endif
