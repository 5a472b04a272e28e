/*
 * sc_gate_table.h: the gates by name: their ids, states and notes, the names results.json
 * and run.conf use, which gates every run must pass, and the verdict over a set of them.
 * What each gate checks is in gates.c (sc_gates.h) and platform_gate.c; both fill gates
 * through sc_gate_set(), and nothing here calls back into them.
 */
#ifndef SC_GATE_TABLE_H
#define SC_GATE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

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
    SC_GATE_MAX_LATENCY,
    SC_GATE_STREAM_ARRAY,
    SC_GATE_STREAM_TIMER,
    SC_GATE_INTERFERENCE,
    SC_GATE_COUNT
} sc_gate_id;

/*
 * What a failed gate says about the run, for classify (doc/contracts/gates.md, "The gates"): an
 * outcome gate failed because of what the workload did (wrong results, a crash of its
 * own, data over another transport, too slow), so the revision under test is bad; an
 * environment gate failed because of what was done to the run (placement, a snapshot
 * missing, a signal from outside), so the run proves nothing about the revision.
 */
typedef enum sc_gate_class {
    SC_GATE_ENVIRONMENT = 0,
    SC_GATE_OUTCOME,
} sc_gate_class;

typedef struct sc_gate {
    sc_gate_state state;
    char note[512];
} sc_gate;

typedef struct sc_gates {
    sc_gate g[SC_GATE_COUNT];
    /* The workload did not end by itself: streamcard forwarded a signal or timed it out, was
       itself killed, or a signal a program does not raise on itself ended it. A failed
       exit_code gate then belongs to the environment. */
    bool ended_from_outside;
    /* The workload was ended by a signal, its own (a crash) or from outside: exit_code's
       note then says more about the run than the gates its end left unmet. */
    bool signalled;
} sc_gates;

/* Sets a gate's state and its note (printf-style). */
void sc_gate_set(sc_gate *g, sc_gate_state state, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The verdict: every mandatory gate OK and no applicable gate failed. */
bool sc_gates_passed(const sc_gates *gates);

/* Names: "binding" (results.json) and "thread_binding_ok" (run.conf). */
const char *sc_gate_name(sc_gate_id id);
const char *sc_gate_conf_key(sc_gate_id id);
bool sc_gate_mandatory(sc_gate_id id);

/* Whether the workload's own log may say why gate id failed (thread_count, phases, binding,
   validation, exit_code, transport): the cause line then quotes its first error. */
bool sc_gate_log_explains(sc_gate_id id);

/* A gate's class as the gate table says ("outcome", "environment" by sc_gate_class_name). */
sc_gate_class sc_gate_class_of(sc_gate_id id);
const char *sc_gate_class_name(sc_gate_class c);

/* The class of gate id's failure in this run: its table class, except exit_code when the
   workload was ended from outside (environment). */
sc_gate_class sc_gates_failure_class(const sc_gates *gates, sc_gate_id id);

/* Whether gate id failed in gates: FAIL, or not computed (NULL) where it is mandatory. */
bool sc_gates_failed(const sc_gates *gates, sc_gate_id id);

/* The gate called name (results.json's), or SC_GATE_COUNT when none is. */
sc_gate_id sc_gate_by_name(const char *name, size_t len);

#endif
