/*
 * sc_carrier.h: carriers, the one vocabulary for the way MPI data went between ranks
 * (doc/contracts/gates.md, "Carriers"), and the rule that decides between candidates by the bytes.
 * libc only: streamcard-pingpong's rank 0 decides with it, and the core's transport gate
 * decides again from the same trace lines (core/gates/gates.c), so the two cannot disagree.
 *
 * A carrier is one of:
 *   shm                  shared memory within a node (Open MPI's vader/sm BTL)
 *   tcp                  TCP sockets (Open MPI's tcp BTL)
 *   ofi:<provider>       a libfabric core provider (the OFI MTL or BTL): cxi, verbs, efa, ...
 *   ucx:<transport>      a UCX transport class (pml ucx): rc, dc, ud, tcp, sm, ugni
 *   psm, psm2, openib, usnic, portals4
 *                        an Open MPI component that drives its fabric itself
 * Two carriers that both carried data are joined with '+' in alphabetical order
 * ("shm+tcp"). "unknown", or any part "<kind>:unknown", is no carrier: the evidence did not
 * name one (the transport gate fails with "not supported by evidence").
 */
#ifndef SC_CARRIER_H
#define SC_CARRIER_H

#include <stdbool.h>
#include <stddef.h>

/* What the transport is when the evidence names no carrier. */
#define SC_CARRIER_UNKNOWN "unknown"

/* The share of the payload a carrier must have moved to be the one reported. */
#define SC_CARRIER_SHARE 0.9

/* Longest carrier text (a join of two, or "mixed:" and two). */
#define SC_CARRIER_MAX 128

/*
 * name in canonical form into out: one carrier, or carriers joined by '+' (each once,
 * sorted). Returns 0, or -EINVAL with a reason in why ("\"ucx\" is too vague: ..."), or
 * -ENAMETOOLONG. Names the tool never reports (vader, bare ofi or ucx, *:unknown) are
 * refused.
 */
int sc_carrier_canonical(const char *name, char *out, size_t len, char *why, size_t whylen);

/* The valid carriers, for messages: "shm, tcp, ofi:PROVIDER (cxi, ...), ...". */
const char *sc_carrier_choices(void);

/* True when t names carriers only: not empty, not "unknown", no "<kind>:unknown" part. */
bool sc_carrier_known(const char *t);

/* True when the carrier's bytes pass through the kernel's network interfaces (and so are
   counted in /proc/net/dev): tcp, ucx:tcp, and the socket-based libfabric providers. */
bool sc_carrier_on_wire(const char *carrier);

/* One rank's evidence for the decision. Fixed-size: gathered between ranks as bytes. */
typedef struct sc_carrier_rank {
    int rank;
    char candidates[SC_CARRIER_MAX]; /* comma list of carriers the selection allowed */
    char netns[96]; /* its network namespace and host ("4026531833@n01"): the inode alone is
                       the same in every host's initial namespace; "" unknown */
    unsigned long long payload_sent; /* payload bytes it sent during the main loop */
    unsigned long long wire_tx;      /* bytes sent by every interface of its namespace then */
    bool bytes_known;                /* payload_sent and wire_tx were measured */
} sc_carrier_rank;

/*
 * The run's carrier from every rank's evidence, and one sentence saying why (with the
 * bytes) in note. Per rank: a single candidate is the carrier; between several, the bytes
 * decide: the network interfaces of the rank's namespace sent W bytes while the ranks in
 * that namespace sent P payload bytes; W >= 90% of P makes the one on-wire candidate the
 * carrier, W <= 10% of P the one other candidate, anything between both ("shm+tcp").
 * Candidates the bytes cannot tell apart, and no bytes, give "unknown". Ranks that end
 * with different carriers give "mixed:<a>,<b>".
 */
void sc_carrier_decide(const sc_carrier_rank *ranks, size_t n, char *out, size_t len, char *note,
                       size_t notelen);

#endif
