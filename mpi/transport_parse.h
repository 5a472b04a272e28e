/*
 * transport_parse.h: turning what the MPI library reported into carriers (sc_carrier.h).
 *
 * The probe (transport.c) collects per rank: the components that survived selection
 * (MPI_T control variables of unselected components are deregistered by Open MPI, so
 * "pml_ob1_*" still valid after MPI_Init means ob1 was selected), and what the library and
 * the fabric libraries said while MPI_Init selected them (capture.h):
 *   - Open MPI's BML, per peer (btl_base_verbose >= 1; 4.1 and 5.0 alike):
 *       "mca: bml: Using vader btl for send to [[7705,1],1] on node n01"
 *   - the OFI MTL's provider and domain (mtl_ofi_verbose >= 1), which changed wording:
 *       4.1: "mtl:ofi:prov: <provider>"      then "mtl:ofi:provider: <domain>"
 *       5.0: "mtl:ofi:provider: <provider>"  then "mtl:ofi:provider:domain: <domain>"
 *     so "mtl:ofi:provider:" names the domain in 4.1 and the provider in 5.0: the parser
 *     goes by the Open MPI version the rank reports (scm_ompi_major()).
 *   - UCX's lanes per endpoint configuration (UCX_LOG_LEVEL=info, printed on stdout):
 *       1.13: "UCX  INFO    ep_cfg[1]: tag(sysv/memory cma/memory)"
 *       1.16: "UCX  INFO  ucp_context_0 intra-node cfg#1 tag(sysv/memory cma/memory)"
 *   - the reasons a fabric was refused: the OFI components' include/exclude lists,
 *     fi_getinfo() and fi_* call failures, 5.0's boxed "Open MPI failed an OFI Libfabric
 *     library call (fi_domain)" (help-mtl-ofi.txt's [OFI call fail], one refusal with its
 *     Error and Location lines), libfabric's own warnings (FI_LOG_LEVEL=warn), UCX's
 *     warnings and errors, "PML ucx cannot be selected".
 *   - libfabric 2's linked provider names ("shm+cxi:lnx"): the fabric's provider is the
 *     carrier (scm_ofi_core_provider()).
 * The functions here need no MPI, so the tests drive them with captured output (4.1, UCX
 * 1.13 here; 5.0 as its users' reports quote it) and, where no output of a case is public,
 * with output built from Open MPI 5.0's format strings (tests/fuzz/corpus/transport, each
 * file naming its source).
 *
 * Lists are comma-separated, without spaces, in order of first appearance.
 */
#ifndef SCM_TRANSPORT_PARSE_H
#define SCM_TRANSPORT_PARSE_H

#include <stddef.h>

/* "none" (not used on this path) and "unknown" (used, but not reported by the library). */
#define SCM_NONE "none"
#define SCM_UNKNOWN "unknown"

/* 1 when item is one of the comma list's entries, else 0. */
int scm_list_has(const char *list, const char *item);

/* Append item to the comma list in buf (size len) unless it is already there, is empty,
   holds a comma, or does not fit. */
void scm_list_add(char *buf, size_t len, const char *item);

/*
 * When cvar is a component variable of framework fw ("btl_tcp_if_include" for "btl"), add
 * the component ("tcp") to the list; framework-level variables ("btl_base_verbose", "btl")
 * are ignored.
 */
void scm_component_add(char *buf, size_t len, const char *fw, const char *cvar);

/* Open MPI's major version from MPI_Get_library_version ("Open MPI v5.0.3, package: ...");
   0 when the text is not Open MPI's. */
int scm_ompi_major(const char *library);

/*
 * The BTLs Open MPI's BML chose, from its "mca: bml: Using <btl> btl for send to
 * [[<job>,<n>],<rank>] on node <host>" lines in text: those for world rank `peer` into
 * btl_peer, those for `self` into btl_self (comma lists, "" when no line was found). The
 * lines themselves are appended to evidence (" | "-separated), once each.
 */
void scm_parse_bml(const char *text, int self, int peer, char *btl_peer, size_t peer_len,
                   char *btl_self, size_t self_len, char *evidence, size_t ev_len);

/*
 * The libfabric provider (its core provider: "tcp;ofi_rxm" gives "tcp") and domain the OFI
 * MTL selected, in the wording of Open MPI `ompi_major` (0: told apart by the lines
 * themselves); the last of each, "" when absent or "none".
 */
void scm_parse_ofi(const char *text, int ompi_major, char *provider, size_t prov_len, char *domain,
                   size_t dom_len, char *evidence, size_t ev_len);

/*
 * The core provider of a libfabric provider name into core: "tcp;ofi_rxm" (a utility over a
 * core provider) gives "tcp"; a name of libfabric 2's LINKx provider, "shm+cxi:lnx" (before
 * its release "shm+cxi:linkx", open-mpi/ompi#13090), gives "cxi", the fabric's, and the
 * providers linked beside it for the peers on this host into links ("shm"; may be NULL);
 * anything else is kept as it is.
 */
void scm_ofi_core_provider(const char *name, char *core, size_t len, char *links, size_t llen);

/*
 * The carriers of UCX's endpoint configurations ("ucx:sm,ucx:tcp"): each lane's transport
 * by class (rc_verbs, rc_mlx5 -> ucx:rc; posix, sysv, cma, knem, xpmem -> ucx:sm; ...),
 * loopback-to-self lanes and configurations left out, device-memory copies left out, a
 * transport of no known class "ucx:unknown". "" when UCX printed no configuration.
 */
void scm_parse_ucx(const char *text, char *carriers, size_t len, char *evidence, size_t ev_len);

/*
 * The carriers the selection allows between this rank and its peer (a comma list, see
 * sc_carrier.h): ob1: each BTL to the peer (vader, sm, smcuda -> shm; tcp -> tcp; ofi ->
 * ofi:unknown, since the OFI BTL does not report its provider; openib, usnic, portals4 by
 * name); cm: the MTL (ofi -> ofi:<provider>, psm, psm2, portals4); ucx: the UCX carriers
 * (ucx:unknown when UCX said none). Anything the evidence does not name is "unknown".
 */
void scm_transport_candidates(const char *pml, const char *btl_peer, const char *mtl,
                              const char *provider, const char *ucx, char *out, size_t len);

/* One reason a fabric was refused, as the library or the fabric said it. */
struct scm_refusal {
    char subject[48]; /* "ofi:cxi", "ofi" (the OFI path, no provider named), "ucx" */
    char why[320];    /* the line, without the "[host:pid] " prefix and source path */
};

/*
 * The refusals in text, in order, each once, at most max; returns how many. A failed fi_*
 * call of the OFI MTL is about the provider it had selected before it (5.0's
 * "fi_enable failed: ..." after "mtl:ofi:provider: cxi": subject ofi:cxi).
 */
size_t scm_parse_refusals(const char *text, int ompi_major, struct scm_refusal *out, size_t max);

#endif
