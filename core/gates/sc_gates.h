/*
 * sc_gates.h: the acceptance gates (doc/contracts/gates.md, "The gates"), computed from raw
 * evidence.
 *
 * The mandatory gates (thread count, phases, binding, validation, exit code, and evidence:
 * every file of the bundle was written) must hold for any run; the others apply when the card asks
 * for them (memory_node, a platform setting, an expected transport, a minimum rate). A gate is OK,
 * FAIL, or NULL (the card does not ask for it); a mandatory gate without evidence is a FAIL whose
 * note says "not supported by evidence". `streamcard run` and `streamcard verify` both call
 * sc_gates_evaluate() on the same files, so verify never trusts run.conf.
 */
#ifndef SC_GATES_H
#define SC_GATES_H

#include "sc_card.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"

#include <stdbool.h>
#include <stddef.h>

struct sc_host_state; /* sc_platform_gate.h */

/* The raw evidence of one run; any pointer may be NULL when that file does not exist. */
typedef struct sc_evidence {
    const char *log;              /* stream.log */
    bool exit_known;              /* the wrapper saw the workload end */
    int exit_code;                /* its exit code, when it exited */
    int exit_signal;              /* the signal that ended it, 0 when it exited */
    bool ended_by_streamcard;     /* streamcard forwarded a signal to it, timed it out, or was
                                     itself killed (run.conf caller_signal, timed_out,
                                     wrapper_killed) */
    const char *threads_at_ready; /* threads_at_ready.txt */
    const char *status_at_ready;  /* workload_status_at_ready.txt */
    const char *status_at_start;  /* workload_status.txt (its first output or 50 ms) */
    const char *platform_before;  /* platform/before.txt, after.txt (the NUMA counters for */
    const char *platform_after;   /* the memory_node gate's note) */
    const char *numa_maps_at_ready;
    const char *state_env;                   /* prefetch/state/state.env from the plugin */
    const struct sc_host_state *host_states; /* every node's prefetch/state/<host>/state.env */
    size_t n_host_states;
    double best_rate_MBps;     /* the workload's figure for min_rate; <= 0 when none */
    const char *transport;     /* mpi: the carrier, decided elsewhere (NULL: from the log) */
    const char *caches;        /* platform/caches.txt: the last-level caches of cpu_list */
    int write_errors;          /* writes into the bundle that failed (disk full, bundle removed); */
    const char *write_error;   /* -1: not recorded (the evidence gate then fails) */
    const char *interference;  /* interference.txt: the observer's records (MPI ranks' are in
                                  the log) */
    const sc_tracelog *parsed; /* the log as the caller parsed it (bounded by the card,
                                  sc_bounds.h); NULL: parsed here */
} sc_evidence;

/* Computes every gate. A log beyond what a run of the card can print (sc_bounds.h) fails the
   evidence gate. Returns 0 or -ENOMEM. */
int sc_gates_evaluate(const sc_card *card, const sc_evidence *ev, sc_gates *out);

/*
 * Pages of anonymous memory per NUMA node from a numa_maps text: on_node on node,
 * elsewhere on any other node (bytes). Returns 0, -EINVAL when nothing parsed, or -ENOMEM.
 */
int sc_numa_maps_anon_bytes(const char *numa_maps, long node, unsigned long long *on_node,
                            unsigned long long *elsewhere);

#endif
