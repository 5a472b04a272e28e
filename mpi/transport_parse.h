/*
 * transport_parse.h: turning what the MPI library reported into one transport name.
 *
 * The probe (transport.c) collects three kinds of evidence per rank: the components that
 * survived selection (MPI_T control variables of unselected components are deregistered
 * by Open MPI, so "pml_ob1_*" still valid after MPI_Init means ob1 was selected), the
 * library's own verbose report of the BTL it chose for each peer ("mca: bml: Using vader
 * btl for send to [[7705,1],1] on node n01") and of the libfabric provider the OFI MTL
 * selected ("mtl:ofi:prov: cxi"), and what `fi_info` lists on the node. The functions here
 * parse and combine that text; they need no MPI, so the tests drive them with captured
 * output.
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

/*
 * The BTLs Open MPI's BML chose, from its "mca: bml: Using <btl> btl for send to
 * [[<job>,<n>],<rank>] on node <host>" lines in text: those for world rank `peer` into
 * btl_peer, those for `self` into btl_self (comma lists, "" when no line was found). The
 * lines themselves are appended to evidence (" | "-separated), once each.
 */
void scm_parse_bml(const char *text, int self, int peer, char *btl_peer, size_t peer_len,
                   char *btl_self, size_t self_len, char *evidence, size_t ev_len);

/*
 * The libfabric provider and domain of the OFI MTL, from its "mtl:ofi:prov: <name>" and
 * "mtl:ofi:provider: <domain>" lines (the last of each; "" when absent).
 */
void scm_parse_ofi(const char *text, char *provider, size_t prov_len, char *domain, size_t dom_len,
                   char *evidence, size_t ev_len);

/*
 * The normalized transport for the card's `expect: transport:` gate, from the selected
 * PML, the BTLs that reach the peer (ob1), the MTL (cm) and the libfabric provider:
 *   ob1 + vader|sm|smcuda -> "shm", ob1 + tcp -> "tcp", ob1 + ofi -> "ofi:<provider>",
 *   ob1 + another BTL -> its name, cm + ofi -> "ofi:<provider>" (the core provider:
 *   "tcp;ofi_rxm" -> "tcp"), cm + psm2 -> "psm2", ucx -> "ucx"; several BTLs joined with
 *   '+'; "unknown" whenever the evidence for a step is missing.
 */
void scm_transport_normalize(const char *pml, const char *btl_peer, const char *mtl,
                             const char *provider, char *out, size_t len);

/* One transport for the run: the ranks' common one, or "mixed:<a>,<b>" when they differ. */
void scm_transport_agree(const char *const per_rank[], int n, char *out, size_t len);

/* Provider names from `fi_info -l` (lines "name:" at column 0). */
void scm_parse_fi_list(const char *text, char *out, size_t len);

/* Provider names from `fi_info` ("provider: name" lines), each once. */
void scm_parse_fi_usable(const char *text, char *out, size_t len);

#endif
