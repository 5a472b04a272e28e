/*
 * sc_platform_gate.h: the platform_state gate over every node's readback.
 *
 * The plugin writes the readback of the node the batch step ran on as
 * prefetch/state/state.env and, on every node where a step of the card's job ran (the
 * card's MPI ranks included), prefetch/state/<host>/state.env. The card's prefetch and
 * governor hold only when every one of those says so and every host that ran a rank has one.
 * Outside a job, `streamcard run` as root writes prefetch/state/state.env itself from what it
 * read before and after the workload (sc_readback.h): the card's values are then expected,
 * not set, and a setting that changed between the two reads fails the gate.
 */
#ifndef SC_PLATFORM_GATE_H
#define SC_PLATFORM_GATE_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"

#include <stdbool.h>
#include <stddef.h>

/* What a gate note says of a readback by the command as root (sc_readback.h). */
#define SC_PLATFORM_CLI_NOTE "read by the CLI as root before and after the workload, not attested"

/* True when state_env is the command's own readback as root (SOURCE=cli-root), not the
   plugin's. */
bool sc_platform_read_by_cli(const char *state_env);
/* True when state_env is also the command's own setting of the platform (APPLIED=1 beside
   SOURCE=cli-root: `streamcard run --platform apply`). */
bool sc_platform_applied_by_cli(const char *state_env);

/* The platform a bundle recorded before and after its workload; any may be NULL. */
typedef struct sc_platform_record {
    const char *before, *after;         /* platform/before.txt, platform/after.txt */
    const char *msr_before, *msr_after; /* prefetch/state/msr_readback_*.txt */
    const char *state_env;              /* prefetch/state/state.env */
} sc_platform_record;

/*
 * The platform must not change while the workload runs: kernel, microcode, online CPUs, SMT,
 * THP, numa_balancing, the MSR filter, and the cpufreq policy of the card's CPUs (the governor
 * only where no plugin set it), and the prefetch registers where the command read them as
 * root; a key either side could not read is not compared. A change fails g (unless it failed
 * already), naming what changed. With several runs it is the bundle's check (before the first
 * run, after the last), not each run's.
 */
void sc_platform_stability(const sc_card *card, const sc_platform_record *r, sc_gate *g);

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
