/* gate_table.c: the gates' names and which every run must pass (sc_gate_table.h). */
#include "sc_gate_table.h"
#include "sc_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ENV SC_GATE_ENVIRONMENT
#define OUT SC_GATE_OUTCOME

/* log: the workload's own log may say why the gate failed (a library that cannot start,
   a crash, a refused transport); the other gates' notes say it all. */
static const struct {
    const char *name, *conf_key;
    bool mandatory;
    sc_gate_class cls;
    bool log;
} sc__gate_info[SC_GATE_COUNT] = {
    [SC_GATE_THREAD_COUNT] = {"thread_count", "thread_count_ok", true, ENV, true},
    [SC_GATE_PHASES] = {"phases", "phases_ok", true, ENV, true},
    [SC_GATE_BINDING] = {"binding", "thread_binding_ok", true, ENV, true},
    [SC_GATE_VALIDATION] = {"validation", "validation_ok", true, OUT, true},
    [SC_GATE_EXIT_CODE] = {"exit_code", "exit_code_ok", true, OUT, true},
    [SC_GATE_EVIDENCE] = {"evidence", "evidence_ok", true, ENV, false},
    [SC_GATE_MEMORY_NODE] = {"memory_node", "memory_node_ok", false, ENV, false},
    [SC_GATE_PLATFORM_STATE] = {"platform_state", "platform_state_ok", false, ENV, false},
    [SC_GATE_TRANSPORT] = {"transport", "transport_ok", false, OUT, true},
    [SC_GATE_MIN_RATE] = {"min_rate", "min_rate_ok", false, OUT, false},
    [SC_GATE_MAX_LATENCY] = {"max_latency", "max_latency_ok", false, OUT, false},
    [SC_GATE_STREAM_ARRAY] = {"stream_array", "stream_array_ok", false, ENV, false},
    [SC_GATE_STREAM_TIMER] = {"stream_timer", "stream_timer_ok", false, ENV, false},
    [SC_GATE_INTERFERENCE] = {"interference", "interference_ok", false, ENV, false},
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

bool sc_gate_log_explains(sc_gate_id id)
{
    return sc__gate_info[id].log;
}

sc_gate_class sc_gate_class_of(sc_gate_id id)
{
    return sc__gate_info[id].cls;
}

const char *sc_gate_class_name(sc_gate_class c)
{
    return c == SC_GATE_OUTCOME ? "outcome" : "environment";
}

sc_gate_class sc_gates_failure_class(const sc_gates *gates, sc_gate_id id)
{
    if (id == SC_GATE_EXIT_CODE && gates->ended_from_outside)
        return SC_GATE_ENVIRONMENT;
    return sc__gate_info[id].cls;
}

bool sc_gates_failed(const sc_gates *gates, sc_gate_id id)
{
    sc_gate_state s = gates->g[id].state;

    return s == SC_GATE_FAIL || (s == SC_GATE_NULL && sc__gate_info[id].mandatory);
}

sc_gate_id sc_gate_by_name(const char *name, size_t len)
{
    for (int i = 0; i < SC_GATE_COUNT; i++)
        if (strlen(sc__gate_info[i].name) == len && strncmp(sc__gate_info[i].name, name, len) == 0)
            return (sc_gate_id)i;
    return SC_GATE_COUNT;
}

void sc_gate_set(sc_gate *g, sc_gate_state state, const char *fmt, ...)
{
    char raw[4 * sizeof(g->note)];
    va_list ap;

    g->state = state;
    va_start(ap, fmt);
    int n = vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    /* A note may quote what a user wrote (state.env, the log): escaped unless printable as
       it is (a quote escaped already is not escaped twice), and never cut inside a
       character. */
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw) - 1;
    raw[len] = '\0';
    if (sc_text_is_printable(raw, len)) {
        len = sc_text_truncate(raw, sizeof(g->note) - 1);
        memcpy(g->note, raw, len + 1);
    } else {
        sc_text_escape(g->note, sizeof(g->note), raw, len);
    }
}

bool sc_gates_passed(const sc_gates *gates)
{
    for (int i = 0; i < SC_GATE_COUNT; i++)
        if (sc_gates_failed(gates, (sc_gate_id)i))
            return false;
    return true;
}
