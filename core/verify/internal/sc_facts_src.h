/*
 * sc_facts_src.h: internal to the facts module: the parsed files of one bundle that the
 * controlled-variable readers (facts_vars.c) look at, filled by the loader (facts.c).
 */
#ifndef SC_FACTS_SRC_H
#define SC_FACTS_SRC_H

#include "sc_bundle.h"
#include "sc_facts.h"

#include <json-c/json.h>

/* Everything the readers look at, parsed once. Any member may be NULL. */
typedef struct sc__src {
    sc_card *card;
    json_object *build, *results, *metrics;
    json_object *first_run; /* results.json's runs[0] (schema 2), or NULL */
    const char *before, *after, *state, *run_conf;
    char stores[128];             /* stream.log's "Stores: ..." line, "" when absent */
    bool environ_seen;            /* environ_at_ready.txt was in the bundle */
    const sc_bundle_facts *facts; /* the facts being loaded (its env list) */
} sc__src;

struct sc_first_run; /* sc_verify_pass.h */

/* sc_facts_load() over b, opened by the caller (path as named, for showing). first: the
   first run's log as verify parsed it in the same pass (sc_verify_pass.h), its bindings
   and snapshots taken over; NULL or not parsed: the log is read here. */
int sc__facts_load_at(const sc_bundle *b, const char *path, sc_bundle_facts *f,
                      struct sc_first_run *first);

/* The top-level numbers and strings of doc, which is released: the controlled variables read
   only those of build.json, so its arrays (a 4 MiB mpi_stack) are not held as json-c objects
   while results.json is (doc/contracts/limits.md). NULL when doc is. */
json_object *sc__facts_scalars(json_object *doc);

/* Reads every controlled variable of src into f->vars. Returns 0 or -ENOMEM. */
int sc__facts_read_vars(const sc__src *src, sc_bundle_facts *f);

#endif
