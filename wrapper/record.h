/*
 * record.h: one bundle being written by the local executor (execute.c) and its records
 * (record.c): build.json, the platform state, each run's record (run-<i>/run.conf), and at
 * the end the gates over every run, results.json, run.conf and SHA256SUMS (doc/contracts/bundle.md,
 * "The evidence bundle", "Runs"). The end is also what the guardian does when streamcard
 * run is killed: it reads what the runs left in the bundle, never what this process held.
 */
#ifndef SC_RECORD_H
#define SC_RECORD_H

#include "plan.h"
#include "sc_bundle.h"
#include "sc_gates.h"
#include "sc_hash.h"
#include "sc_observe.h"
#include "sc_spawn.h"
#include "writer.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A run's own results, the JSON its workload wrote (doc/contracts/results.md; its keys in
   common/sc_results_protocol.h), read and parsed once (record_result.c). */
typedef struct sc_run_result {
    bool read;             /* looked for: the fields below are what was found */
    char *text;            /* the JSON as written; NULL: none (the workload died) */
    json_object *json;     /* text parsed; NULL: none, or not JSON */
    double best_rate_MBps; /* its metrics' best rate, the figure min_rate compares; 0: none */
} sc_run_result;

/* One bundle in progress: a card's runs into it, one after the other. */
typedef struct sc_execution {
    sc_plan *plan;
    sc_bundle b;
    char tmpdir[64]; /* the workloads' own results, run-<i>.json, until the end */
    char binary_sha[SC_HASH_HEX_LEN + 1];
    sc_writer out;       /* the writes into the bundle, and those that failed */
    bool wrapper_killed; /* set in the guardian: the run's own process is gone */
    int guard_fd;        /* the guardian's pipe; -1: none */
    pid_t guardian;
    size_t runs;            /* runs started */
    sc_observe_result last; /* how the last run ended (runs: 1: the run.conf's record) */
    char stopped[256];      /* why the runs ended */
    sc_spawned build_info;  /* the binary's --build-info, started before the bundle is made */
    char *build_key;        /* its key in the answer cache (NULL: not remembered) */
    char *build_answer;     /* with build_cached: the answer remembered, checked at the end */
    bool build_cached;
    bool files_written;     /* card.yaml, platform/before.txt, build.json... (execute.c) */
    struct sc_apply *apply; /* --platform apply: the change this bundle holds (NULL: none) */
    sc_run_result *results; /* each run's results, once read (sc_record_result()) */
    size_t n_results;
} sc_execution;

/* Tells the run's guardian (execute.c) that the bundle is finished: its byte, then the pipe
   closed, so that it exits without finishing anything; nothing when already told or none. */
void sc_record_tell_guardian(sc_execution *x);
/* A run's link matrix files (pairs: all), as its workload's JSON kernel (written at
   json_path, sc_record_json_path()) names them, into the bundle when keep (the one-run
   layout), and their temporary copies removed. */
void sc_record_matrix(sc_execution *x, const char *json_path, json_object *kernel, bool keep);
/* Writes a bundle file through x->out, a failure counted as lost evidence. 0 or -errno. */
int sc_record_put(sc_execution *x, const char *rel, const char *text);
/* platform/caches.txt: the last-level caches of a STREAM run's cpu_list (its array gate). */
void sc_record_caches(sc_execution *x);
/* platform/<name>.txt: the machine state now. */
void sc_record_platform(sc_execution *x, const char *rel);
/*
 * As root outside a job (opts->cli_readback): the prefetch registers of the card's CPUs now,
 * read and never written, as prefetch/state/msr_readback_before.txt with state.env (from it
 * and platform/before.txt), and after the workload as _after.txt (sc_readback.h). Nothing
 * when the registers cannot be read and the card expects neither prefetch nor governor.
 */
void sc_record_readback(sc_execution *x, bool after);
/*
 * --platform apply (record_apply.c): what the command set before the workload, as the
 * facade reported it: prefetch/control.log, prefetch/state/msr_readback_original.txt (the
 * originals journaled), _applied.txt (read back after the change) and applied.env, each
 * marked "applied by the CLI as root, not attested". Nothing when x->apply holds no change.
 */
void sc_record_applied(sc_execution *x);
/*
 * The bundle's end under --platform apply: the change restored (sc_apply_restore()), the
 * restore's log appended to prefetch/control.log, RESTORED=1 (or 0, with why) to
 * applied.env, and one line on stderr. Also what the guardian does when streamcard is
 * killed. Returns 0, or -errno when an original did not read back (the journal is kept).
 */
int sc_record_restored(sc_execution *x);
/*
 * The binary's --build-info, before the bundle is made: the answer remembered for this
 * binary, its libraries, host and steering environment (sc_answercache.h), or else the
 * binary started with the question (its answer collected by sc_record_build()).
 */
void sc_record_build_info_start(sc_execution *x);
/* build.json: the binary's identity, its libraries, the run's parameters; the binary's
   --build-info answer is the remembered one or x->build_info's (started early). A program we
   did not write (sc_workload_foreign()) is asked nothing: its libraries are the ones its
   first run's snapshot shows mapped. */
void sc_record_build(sc_execution *x);
/*
 * At the end, before the seal (n: the runs in the bundle): a remembered answer stands only
 * when the files it depends on are unchanged and the workload of each run that reached its
 * main loop mapped the libraries it names (numa_maps_at_ready.txt); else the binary is
 * asked now and build.json written again. A program we did not write: build.json written
 * again with the libraries of its snapshot.
 */
void sc_record_build_check(sc_execution *x, size_t n);
/* Reaps the --build-info child (of a bundle that ends before its build.json is written)
   and frees what the answer left. */
void sc_record_build_info_discard(sc_execution *x);
/*
 * The workload's library path and preloads (a card's blas: puts its OpenBLAS build first in
 * LD_LIBRARY_PATH, or preloads its library by LD_PRELOAD) set in this process while
 * --build-info is asked, so the answer names the BLAS the workload loads: enter sets each
 * the plan sets and keeps the old values in *saved for leave (0, or -errno; leave undoes
 * whatever enter set).
 */
typedef struct sc_record_libpath {
    bool set[2];  /* LD_LIBRARY_PATH, LD_PRELOAD */
    char *old[2]; /* their values before, NULL when unset */
} sc_record_libpath;
int sc_record_libpath_enter(const sc_plan *plan, sc_record_libpath *saved);
void sc_record_libpath_leave(sc_record_libpath *saved);

/* Where run i's workload writes its own results (malloc'd); NULL on ENOMEM. */
char *sc_record_json_path(const sc_execution *x, size_t i);
/* mpi: where run i's rank 0 writes what MPI_Init said (malloc'd), kept as its transport.log;
   NULL on ENOMEM. */
char *sc_record_transport_log_path(const sc_execution *x, size_t i);
/* mpi: run i's transport.log into the bundle (its folder for several runs). */
void sc_record_transport_log(sc_execution *x, size_t i);
/*
 * Run i's results (never NULL; empty when out of memory): read and parsed the first time
 * they are asked for, after the run ended, and kept in x until sc_record_results_free().
 * A program we did not write: the figures its log shows by the card's patterns.
 */
const sc_run_result *sc_record_result(sc_execution *x, size_t i);
/* Frees the results kept in x. */
void sc_record_results_free(sc_execution *x);

/*
 * After run i of several: its gates from its files as written, and its record
 * run-<i>/run.conf (how it ended, its gates and verdict). Returns whether every gate held.
 */
bool sc_record_run(sc_execution *x, size_t i, const sc_observe_result *r);

/*
 * The end of the bundle: platform/after.txt; every run's gates from its files, the gates
 * over all of them; results.json; run.conf; SHA256SUMS; the summary on stderr and
 * BUNDLE=<path> on stdout. Returns the exit status of `streamcard run`.
 */
int sc_record_finish(sc_execution *x);
/*
 * The end's words (record_say.c): whether the bundle holds anything attested, the gates over
 * every run (gates; each: the n runs' own), the statistics of results (results.json's text),
 * inherited environment hazards, the first failed run's cause, and BUNDLE=<path> on stdout.
 */
void sc_record_say(const sc_execution *x, const sc_gates *gates, const sc_gates *each, size_t n,
                   const char *results);

#endif
