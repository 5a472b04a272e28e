/*
 * sc_verify_pass.h: internal to verify and the bundle view: verify over a bundle opened for
 * one pass (sc_bundle_remember(), doc/contracts/bundle.md, "One pass"), handing what it
 * parsed of the first run's log to the facts, which then read no log again.
 */
#ifndef SC_VERIFY_PASS_H
#define SC_VERIFY_PASS_H

#include "sc_bundle.h"
#include "sc_tracelog.h"
#include "sc_verify.h"

#include <json-c/json.h>
#include <stdbool.h>

/* The first run's log as verify parsed it (within the card's bounds, sc_bounds.h). */
typedef struct sc_first_run {
    bool parsed;      /* verify parsed it: log and stores hold */
    sc_tracelog log;  /* over_line -1: the run has no stream.log */
    char stores[128]; /* its "Stores: " line (sc_tracelog_stores()), "" when none */
    /* build.json's top-level scalars (sc__facts_scalars()) and results.json as verify
       parsed them (NULL: absent or not JSON), when json_given; the facts take them. */
    bool json_given;
    json_object *build, *results;
} sc_first_run;

/* An empty report, as sc_verify_bundle_opts() starts from. */
void sc__verify_report_init(sc_verify_report *out);

/*
 * sc_verify_bundle_opts() over b, opened and remembered by the caller, but SHA256SUMS: out
 * initialised (sc__verify_report_init()), first zeroed, both freed by the caller. 0, or
 * -ENOMEM; sc__verify_sums() follows either way.
 */
int sc__verify_at(const sc_bundle *b, const sc_verify_opts *opts, sc_verify_report *out,
                  sc_first_run *first);

/* SHA256SUMS checked after every reader of the pass (which hashed what they read, so only
   the files nobody read are opened), its lines put first in out->problems, as verify has
   always listed them (n_hash_problems). */
void sc__verify_sums(const sc_bundle *b, sc_verify_report *out);

void sc__first_run_free(sc_first_run *first);

#endif
