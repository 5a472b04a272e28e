/*
 * sc_run_files.h: the raw files of one run of a bundle (at the top for runs: 1, in its
 * run-<i> folder otherwise: doc/contracts/run.md, "Runs") and its gates computed from them. One
 * reader for `streamcard run` (on the files as written) and `streamcard verify`.
 */
#ifndef SC_RUN_FILES_H
#define SC_RUN_FILES_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_gates.h"
#include "sc_platform_gate.h"

#include <stdbool.h>
#include <stddef.h>

/* The files of one run; NULL when absent. conf is the run's record: run.conf for runs: 1,
   run-<i>/run.conf otherwise. */
typedef struct sc_run_files {
    char *log, *threads, *status, *maps, *interference, *conf;
    char *status_start; /* workload_status.txt */
} sc_run_files;

/* Reads run i (0-based) of card's layout from b. Returns 0 or -ENOMEM. */
int sc_run_files_read(const sc_bundle *b, const sc_card *card, size_t i, sc_run_files *f);
void sc_run_files_free(sc_run_files *f);

/* How one run ended: from the observer (streamcard run) or from its record (verify). */
typedef struct sc_run_end {
    bool exit_known;
    int exit_code, exit_signal;
    bool ended_by_streamcard; /* a signal forwarded, the --timeout, streamcard killed */
    int write_errors;         /* -1: not recorded */
    char write_error[256];
} sc_run_end;

/* The end a run's record (run.conf or run-<i>/run.conf) states. */
void sc_run_end_from_conf(const char *conf, sc_run_end *e);

/* The bundle's platform evidence, the same for every run. */
typedef struct sc_platform_files {
    char *state_env; /* prefetch/state/state.env */
    char *caches;    /* platform/caches.txt (stream) */
    sc_host_state *hosts;
    size_t n_hosts;
    char *before, *after;         /* platform/before.txt, after.txt */
    char *msr_before, *msr_after; /* prefetch/state/msr_readback_*.txt */
} sc_platform_files;

/* The record sc_platform_stability() reads, pointing into p. */
sc_platform_record sc_platform_files_record(const sc_platform_files *p);

int sc_platform_files_read(const sc_bundle *b, sc_platform_files *p);
void sc_platform_files_free(sc_platform_files *p);

/* The gates of one run. best_rate is the figure min_rate compares; t the log as the caller
   parsed it (bounded by the card, sc_bounds.h), NULL: parsed here. A card of one run also
   holds the platform's stability (sc_platform_stability()); with several it is the bundle's
   check, after the runs' gates are combined. 0 or -ENOMEM. */
int sc_run_gates(const sc_card *card, const sc_run_files *f, const sc_run_end *e,
                 const sc_platform_files *p, double best_rate, const sc_tracelog *t, sc_gates *out);

#endif
