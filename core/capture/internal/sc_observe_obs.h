/*
 * sc_observe_obs.h: the state of one observed run, shared by the three files of the observer
 * (private to core/capture): observe.c starts the workload, reads its trace lines and takes
 * the snapshots at main_loop_begin; observe_sampler.c keeps its interference window (the
 * sampler of /proc, open from main_loop_begin to main_loop_end) and writes interference.txt;
 * observe_files.c writes the bundle's files for both. Calls run one way: observe.c ->
 * observe_sampler.c -> observe_files.c (tests/static/call_loops.py).
 */
#ifndef SC_OBSERVE_OBS_H
#define SC_OBSERVE_OBS_H

#include "sc_observe.h"
#include "sc_sampler.h"

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#define SC_OBS_LINE_MAX 4096 /* a trace line longer than this is cut */
#define SC_OBS_NFILES 9      /* the files the observer writes (observe_files.c) */

/* State of one observed run. */
typedef struct sc_obs {
    const sc_observe_opts *o;
    sc_observe_result *r;
    int procfd;   /* /proc/<pid>, opened right after fork */
    int ready_wr; /* the readiness handshake: written once the snapshots are taken */
    char line[SC_OBS_LINE_MAX];
    size_t line_len;
    bool line_overflow;
    bool status_taken;   /* workload_status.txt (shortly after start) */
    sc_sampler *sampler; /* interference accounting, open from main_loop_begin to its end */
    bool names_pending;  /* closed at main_loop_end; the foreign tasks are read at the end */
    int proc_root;       /* /proc, for the sampler */
    char host[64];       /* this node's name, the sampler's */
    unsigned long long workload_start; /* its start (ticks after boot), once a rank asks */
    bool patterns; /* begin_re and end_re compiled (sc_observe_opts.begin_pattern) */
    regex_t begin_re, end_re;
    int ahead[SC_OBS_NFILES]; /* files made ahead (observe_files.c), not yet written; -1: none */
} sc_obs;

/* observe_files.c. Makes the observer's files ahead (interference.txt only with a sampler). */
void sc_obs_make_ahead(sc_obs *s);
/* Closes the files made ahead and not written. */
void sc_obs_close_ahead(const sc_obs *s);
/* Writes the bundle file name of this run (one of the observer's files), into the file made
   ahead for it when there is one. 0 or -errno. */
int sc_obs_put(sc_obs *s, const char *name, const void *data, size_t len);
/* Records a capture failure (rc: -errno) without stopping the run: a failed snapshot is
   evidence too. */
void sc_obs_capture_fail(sc_obs *s, const char *what, int rc);
/* Records evidence that could not be written into the bundle (a full or vanished disk). */
void sc_obs_write_fail(sc_obs *s, const char *what, int rc);
/* CLOCK_MONOTONIC in nanoseconds. */
long long sc_obs_now_ns(void);

/* observe_sampler.c: the interference window, in the order the observer calls them. */
void sc_obs_sampler_prime(sc_obs *s);
void sc_obs_make_way(const sc_obs *s);
void sc_obs_sampler_begin(sc_obs *s);
void sc_obs_sampler_tick(sc_obs *s);
void sc_obs_sampler_close(sc_obs *s);
void sc_obs_sampler_write(sc_obs *s);

#endif
