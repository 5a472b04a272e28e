/*
 * sc_transport_gate.h: the transport gate (doc/contracts/gates.md, "Carriers"), recomputed from the
 * MPI workload's own trace lines: every rank's candidate carriers, the payload it sent and
 * the bytes of its namespace's interfaces in the main loop decide the carrier with the
 * same rule the workload used (common/sc_carrier.h); the card's expectation (one carrier or
 * a list of them, any of which holds) is compared to it; a failure quotes the first reason
 * the expected fabric was refused, as the library or the fabric said it.
 */
#ifndef SC_TRANSPORT_GATE_H
#define SC_TRANSPORT_GATE_H

#include "sc_card.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"

#include <stddef.h>

/*
 * The run's carrier from the log's per-rank lines into out, and why (candidates and bytes)
 * into note. "unknown" without a TRACE_TRANSPORT_RANK line.
 */
void sc_transport_decide(const sc_tracelog *t, char *out, size_t len, char *note, size_t notelen);

/*
 * The gate: NULL when the card expects no transport. decided overrides the decision from
 * the lines (NULL: decide from t).
 */
void sc_transport_gate(const sc_card *card, const sc_tracelog *t, const char *decided, sc_gate *g);

#endif
