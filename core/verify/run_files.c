/* run_files.c: one run's raw files and its gates (see sc_run_files.h). */
#include "sc_run_files.h"
#include "sc_kv.h"
#include "sc_runs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *sc__read(const sc_bundle *b, const sc_card *card, size_t i, const char *name)
{
    char rel[256];

    return sc_bundle_read_opt(b, sc_runs_path(card, i, name, rel, sizeof(rel)));
}

int sc_run_files_read(const sc_bundle *b, const sc_card *card, size_t i, sc_run_files *f)
{
    memset(f, 0, sizeof(*f));
    f->log = sc__read(b, card, i, "stream.log");
    f->threads = sc__read(b, card, i, "threads_at_ready.txt");
    f->status = sc__read(b, card, i, "workload_status_at_ready.txt");
    f->status_start = sc__read(b, card, i, "workload_status.txt");
    f->maps = sc__read(b, card, i, "numa_maps_at_ready.txt");
    f->interference = sc__read(b, card, i, "interference.txt");
    f->conf = sc__read(b, card, i, "run.conf");
    return 0;
}

void sc_run_files_free(sc_run_files *f)
{
    if (!f)
        return;
    free(f->log);
    free(f->threads);
    free(f->status);
    free(f->status_start);
    free(f->maps);
    free(f->interference);
    free(f->conf);
    memset(f, 0, sizeof(*f));
}

void sc_run_end_from_conf(const char *conf, sc_run_end *e)
{
    long known = 0, code = -1, sig = 0, errors = -1, caller = 0, timed_out = 0, killed = 0;

    memset(e, 0, sizeof(*e));
    sc_kv_get_long(conf, "exit_known", &known);
    sc_kv_get_long(conf, "exit_code", &code);
    sc_kv_get_long(conf, "exit_signal", &sig);
    sc_kv_get_long(conf, "write_errors", &errors);
    sc_kv_get(conf, "write_error", e->write_error, sizeof(e->write_error));
    sc_kv_get_long(conf, "caller_signal", &caller);
    sc_kv_get_long(conf, "timed_out", &timed_out);
    sc_kv_get_long(conf, "wrapper_killed", &killed);
    e->ended_by_streamcard = caller || timed_out || killed;
    e->exit_known = known == 1;
    e->exit_code = (int)code;
    e->exit_signal = (int)sig;
    e->write_errors = (int)errors;
}

int sc_platform_files_read(const sc_bundle *b, sc_platform_files *p)
{
    memset(p, 0, sizeof(*p));
    p->state_env = sc_bundle_read_opt(b, "prefetch/state/state.env");
    p->caches = sc_bundle_read_opt(b, "platform/caches.txt");
    p->before = sc_bundle_read_opt(b, "platform/before.txt");
    p->after = sc_bundle_read_opt(b, "platform/after.txt");
    p->msr_before = sc_bundle_read_opt(b, "prefetch/state/msr_readback_before.txt");
    p->msr_after = sc_bundle_read_opt(b, "prefetch/state/msr_readback_after.txt");
    sc_host_states_read(b, &p->hosts, &p->n_hosts); /* none: the gate asks for what it needs */
    return 0;
}

void sc_platform_files_free(sc_platform_files *p)
{
    if (!p)
        return;
    free(p->state_env);
    free(p->caches);
    free(p->before);
    free(p->after);
    free(p->msr_before);
    free(p->msr_after);
    sc_host_states_free(p->hosts, p->n_hosts);
    memset(p, 0, sizeof(*p));
}

sc_platform_record sc_platform_files_record(const sc_platform_files *p)
{
    return (sc_platform_record){.before = p->before,
                                .after = p->after,
                                .msr_before = p->msr_before,
                                .msr_after = p->msr_after,
                                .state_env = p->state_env};
}

int sc_run_gates(const sc_card *card, const sc_run_files *f, const sc_run_end *e,
                 const sc_platform_files *p, double best_rate, const sc_tracelog *t, sc_gates *out)
{
    sc_evidence ev = {.log = f->log,
                      .exit_known = e->exit_known,
                      .exit_code = e->exit_code,
                      .exit_signal = e->exit_signal,
                      .ended_by_streamcard = e->ended_by_streamcard,
                      .threads_at_ready = f->threads,
                      .status_at_ready = f->status,
                      .status_at_start = f->status_start,
                      .platform_before = p->before,
                      .platform_after = p->after,
                      .numa_maps_at_ready = f->maps,
                      .state_env = p->state_env,
                      .caches = p->caches,
                      .host_states = p->hosts,
                      .n_host_states = p->n_hosts,
                      .best_rate_MBps = best_rate,
                      .write_errors = e->write_errors,
                      .write_error = e->write_error,
                      .interference = f->interference,
                      .parsed = t};

    int rc = sc_gates_evaluate(card, &ev, out);
    if (rc == 0 && sc_runs_flat(card)) {
        sc_platform_record r = sc_platform_files_record(p);
        sc_platform_stability(card, &r, &out->g[SC_GATE_PLATFORM_STATE]);
    }
    return rc;
}
