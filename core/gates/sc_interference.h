/*
 * sc_interference.h: how much of a card CPU something else had during the main loop
 * (doc/contracts/gates.md, "Interference"), from the records the samplers wrote
 * (common/sc_sampler.h, the TRACE_INTERFERENCE_ lines of sc_trace_protocol.h): the observer's in
 * interference.txt, each MPI rank's in stream.log. `streamcard run` and `verify` compute the
 * interference gate and results.json's summary from them with the same code.
 *
 * The foreign time of an accounted CPU c over a window of W nanoseconds is
 *   max(waited, busy_foreign) + steal
 * with two lower bounds of the time foreign work held c:
 *   waited        for each own task pinned to c alone, its run_delay (time runnable but not
 *                 running) less the CPU time of every other own task that may run on c,
 *                 the largest of them (exact: nanoseconds from the scheduler);
 *   busy_foreign  c's user + nice + system ticks less every own task's CPU time that may
 *                 have been spent on c, less 2 ticks (the resolution of sampled 10 ms ticks);
 *   steal         c's steal ticks less 1 tick (a hypervisor running someone else).
 * IRQ and softirq ticks are recorded but not counted: a tick cannot tell whose they are (the
 * job's own MPI messages land there). The share is foreign time / W, at most 100%.
 */
#ifndef SC_INTERFERENCE_H
#define SC_INTERFERENCE_H

#include "sc_card.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sc_intf_window {
    char source[32], host[64];
    long long ns, cpu_ns, loop_cpu_ns;
    long clk_tck;
    unsigned scans;
    unsigned long long tasks;
    long long forks; /* processes started on the host over the window; -1: not recorded */
} sc_intf_window;

typedef struct sc_intf_cpu {
    char source[32];
    int cpu;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
} sc_intf_cpu;

/* An own task; or (exited, tid 0, allowed "unknown") the time of a process's threads that
   ended inside the window, which may have run on any CPU. */
typedef struct sc_intf_task {
    char source[32], allowed[256], comm[16];
    int tid, pid;
    unsigned long long exec_ns, delay_ns, nvcsw;
    bool exited;
} sc_intf_task;

typedef struct sc_intf_intruder {
    char source[32], comm[16];
    int cpu, pid, tid;
    unsigned long long ticks;
    unsigned seen;
} sc_intf_intruder;

/* The most records a run can have written (sc_bounds.h gives a card's; SIZE_MAX: no bound):
   samplers (windows), CPU and task records per sampler, intruders per CPU. */
typedef struct sc_interference_limits {
    size_t windows, cpus_per_window, tasks_per_window, intruders_per_cpu;
} sc_interference_limits;

/* Every record of one or more texts. */
typedef struct sc_interference {
    sc_intf_window *windows;
    size_t n_windows;
    sc_intf_cpu *cpus;
    size_t n_cpus;
    sc_intf_task *tasks;
    size_t n_tasks;
    sc_intf_intruder *intruders;
    size_t n_intruders;
    long malformed_line; /* first record line (1-based, of the text that held it) that did not
                            parse; 0 when none */
    /* The first record beyond the limits (1-based line of the text that held it; 0 when
       none) and what it exceeded; the parse of that text stopped there. */
    long over_line;
    char over_text[160];
} sc_interference;

/*
 * Adds the records of text (its TRACE_INTERFERENCE_ lines; any other line is ignored) to rec,
 * which starts zeroed. Returns 0 or -ENOMEM.
 */
int sc_interference_parse(const char *text, sc_interference *rec);
/* The same, stopping at the first record beyond limits (over_line says which). */
int sc_interference_parse_bounded(const char *text, const sc_interference_limits *limits,
                                  sc_interference *rec);
void sc_interference_free(sc_interference *rec);

/*
 * The records of one run (rec starts zeroed): interference.txt (the observer's; may be NULL)
 * and, for mpi-pingpong, the ranks' in its log (may be NULL), held to what a run of card can
 * have written (sc_bounds.h). 0 or -ENOMEM.
 */
int sc_interference_load(const sc_card *card, const char *interference_txt, const char *log,
                         sc_interference *rec);

/* One accounted CPU over its window. */
typedef struct sc_intf_share {
    const sc_intf_window *window; /* its source's window */
    const sc_intf_cpu *cpu;
    double share_pct, waited_ms, busy_foreign_ms, steal_ms, irq_ms, softirq_ms;
    const sc_intf_intruder *top; /* the intruder with the most time on it; NULL when none */
} sc_intf_share;

/* The share of every CPU record (in record order); *shares malloc'd. 0 or -ENOMEM. */
int sc_interference_shares(const sc_interference *rec, sc_intf_share **shares, size_t *n);

/*
 * The interference gate: NULL when the card turned the accounting off; FAIL when a CPU the
 * workload used (stream, ipsearch: every CPU of cpu_list, accounted by the observer; MPI:
 * every rank's CPU on its host, accounted by that rank) has no record, or a share above the
 * card's max_interference_pct (the note names the CPU, its share and its top intruder).
 */
void sc_interference_gate(const sc_card *card, const sc_interference *rec, const sc_tracelog *t,
                          sc_gate *g);

/*
 * results.json's "interference": the limit, per CPU its share and what made it, per own
 * task its waits, per sampler its cost (sampler CPU time during the main loop / the main
 * loop). NULL on ENOMEM.
 */
json_object *sc_interference_json(const sc_card *card, const sc_interference *rec);

#endif
