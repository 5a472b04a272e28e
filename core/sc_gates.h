/*
 * sc_gates.h: the acceptance gates (doc/design.md, "The gates"), computed from raw evidence.
 *
 * The mandatory gates (thread count, phases, binding, validation, exit code, and evidence:
 * every file of the bundle was written) must hold for any run; the others apply when the card asks for them (memory_node, a
 * platform setting, an expected transport, a minimum rate). A gate is OK, FAIL, or NULL
 * (the card does not ask for it); a mandatory gate without evidence is a FAIL whose note
 * says "not supported by evidence". `streamcard run` and `streamcard verify` both call
 * sc_gates_evaluate() on the same files, so verify never trusts run.conf.
 */
#ifndef SC_GATES_H
#define SC_GATES_H

#include "sc_card.h"
#include "sc_tracelog.h"

#include <stdbool.h>
#include <stddef.h>

struct sc_host_state; /* sc_platform_gate.h */

typedef enum sc_gate_state {
    SC_GATE_NULL = -1,
    SC_GATE_FAIL = 0,
    SC_GATE_OK = 1,
} sc_gate_state;

typedef enum sc_gate_id {
    SC_GATE_THREAD_COUNT = 0,
    SC_GATE_PHASES,
    SC_GATE_BINDING,
    SC_GATE_VALIDATION,
    SC_GATE_EXIT_CODE,
    SC_GATE_EVIDENCE,
    SC_GATE_MEMORY_NODE,
    SC_GATE_PLATFORM_STATE,
    SC_GATE_TRANSPORT,
    SC_GATE_MIN_RATE,
    SC_GATE_COUNT
} sc_gate_id;

typedef struct sc_gate {
    sc_gate_state state;
    char note[512];
} sc_gate;

typedef struct sc_gates {
    sc_gate g[SC_GATE_COUNT];
} sc_gates;

/* The raw evidence of one run; any pointer may be NULL when that file does not exist. */
typedef struct sc_evidence {
    const char *log;              /* stream.log */
    bool exit_known;              /* the wrapper saw the workload end */
    int exit_code;                /* its exit code, when it exited */
    int exit_signal;              /* the signal that ended it, 0 when it exited */
    const char *threads_at_ready; /* threads_at_ready.txt */
    const char *status_at_ready;  /* workload_status_at_ready.txt */
    const char *numa_maps_at_ready;
    const char *state_env;  /* prefetch/state/state.env from the plugin */
    const struct sc_host_state *host_states; /* every node's prefetch/state/<host>/state.env */
    size_t n_host_states;
    double best_rate_MBps;  /* the workload's figure for min_rate; <= 0 when none */
    const char *transport;  /* mpi: the transport that carried the data */
    int write_errors;       /* writes into the bundle that failed (disk full, bundle removed); */
    const char *write_error; /* -1: not recorded (the evidence gate then fails) */
} sc_evidence;

/* Sets a gate's state and its note (printf-style). */
void sc_gate_set(sc_gate *g, sc_gate_state state, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Computes every gate. Returns 0 or -ENOMEM. */
int sc_gates_evaluate(const sc_card *card, const sc_evidence *ev, sc_gates *out);

/* The verdict: every mandatory gate OK and no applicable gate failed. */
bool sc_gates_passed(const sc_gates *gates);

/* Names: "binding" (results.json) and "thread_binding_ok" (run.conf). */
const char *sc_gate_name(sc_gate_id id);
const char *sc_gate_conf_key(sc_gate_id id);
bool sc_gate_mandatory(sc_gate_id id);

/*
 * Pages of anonymous memory per NUMA node from a numa_maps text: on_node on node,
 * elsewhere on any other node (bytes). Returns 0, -EINVAL when nothing parsed, or -ENOMEM.
 */
int sc_numa_maps_anon_bytes(const char *numa_maps, long node, unsigned long long *on_node,
                            unsigned long long *elsewhere);

#endif
