/*
 * sc_platform_gate.h: the platform_state gate over every node's readback.
 *
 * The plugin writes the readback of the node the batch step ran on as
 * prefetch/state/state.env and, on every node where a step of the card's job ran (the
 * card's MPI ranks included), prefetch/state/<host>/state.env. The card's prefetch and
 * governor hold only when every one of those says so and every host that ran a rank has one.
 */
#ifndef SC_PLATFORM_GATE_H
#define SC_PLATFORM_GATE_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"

#include <stddef.h>

/* One node's readback: prefetch/state/<host>/state.env. */
typedef struct sc_host_state {
    char host[64];
    char *state_env;
} sc_host_state;

/* Reads every prefetch/state/<host>/state.env of b (sorted by host). 0 or -errno. */
int sc_host_states_read(const sc_bundle *b, sc_host_state **out, size_t *n);
void sc_host_states_free(sc_host_state *v, size_t n);

/*
 * The gate: state_env (the batch node's readback, may be NULL), the per-host readbacks
 * and the log's rank hosts (t, may be NULL) against the card. Sets g's state and note.
 */
void sc_platform_gate(const sc_card *card, const char *state_env, const sc_host_state *hosts,
                      size_t n_hosts, const sc_tracelog *t, sc_gate *g);

#endif
