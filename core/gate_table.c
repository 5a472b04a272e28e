/* gate_table.c: the gates' names and which every run must pass (sc_gate_table.h). */
#include "sc_gate_table.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    const char *name, *conf_key;
    bool mandatory;
} sc__gate_info[SC_GATE_COUNT] = {
    [SC_GATE_THREAD_COUNT] = {"thread_count", "thread_count_ok", true},
    [SC_GATE_PHASES] = {"phases", "phases_ok", true},
    [SC_GATE_BINDING] = {"binding", "thread_binding_ok", true},
    [SC_GATE_VALIDATION] = {"validation", "validation_ok", true},
    [SC_GATE_EXIT_CODE] = {"exit_code", "exit_code_ok", true},
    [SC_GATE_EVIDENCE] = {"evidence", "evidence_ok", true},
    [SC_GATE_MEMORY_NODE] = {"memory_node", "memory_node_ok", false},
    [SC_GATE_PLATFORM_STATE] = {"platform_state", "platform_state_ok", false},
    [SC_GATE_TRANSPORT] = {"transport", "transport_ok", false},
    [SC_GATE_MIN_RATE] = {"min_rate", "min_rate_ok", false},
};

const char *sc_gate_name(sc_gate_id id)
{
    return sc__gate_info[id].name;
}

const char *sc_gate_conf_key(sc_gate_id id)
{
    return sc__gate_info[id].conf_key;
}

bool sc_gate_mandatory(sc_gate_id id)
{
    return sc__gate_info[id].mandatory;
}

void sc_gate_set(sc_gate *g, sc_gate_state state, const char *fmt, ...)
{
    va_list ap;

    g->state = state;
    va_start(ap, fmt);
    vsnprintf(g->note, sizeof(g->note), fmt, ap);
    va_end(ap);
}

bool sc_gates_passed(const sc_gates *gates)
{
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        if (s == SC_GATE_FAIL || (s == SC_GATE_NULL && sc__gate_info[i].mandatory))
            return false;
    }
    return true;
}
