/*
 * pair_load.h: a paired run's directory read back and checked (pair_load.c; sc_pair.h,
 * doc/contracts/run.md "Paired runs"), for `streamcard verify`, compare and classify: its sums over
 * everything, both sides verified as bundles (as sides: their runs end by the pair's rule),
 * the sides' cards what the pair card makes, the order what the seed gives and what the
 * runs' own clocks show, the pairs stopped where the rule says, and pair.json what the
 * sides' files give. Nothing pair.json claims is trusted.
 */
#ifndef SC_PAIR_LOAD_H
#define SC_PAIR_LOAD_H

#include "analysis.h"
#include "sc_diag.h"
#include "sc_verify.h"

#include <json-c/json.h>
#include <stdbool.h>

typedef struct sc_pair_loaded {
    char arg_shown[1024]; /* the path as named, escaped */
    sc_diag problems;     /* the pair's own problems, then each side's ("a: ...") */
    sc_analysis_bundle side[2];
    json_object *record; /* pair.json as parsed; NULL when missing */
    char variable[128];  /* the record's, escaped */
    size_t pairs;        /* complete pairs */
    bool usable;         /* no problem, and every gate of both sides holds */
    char why[1024];      /* when not usable: one line */
} sc_pair_loaded;

/* Whether path is a paired run's directory: it holds pair.json, or a side a/ or b/. */
bool sc_pair_is(const char *path);

/* Reads and checks the pair at path into out (free it in any case). Returns 0 when it was
   examined (out says what holds), -errno when it cannot be opened. */
int sc_pair_load(const char *path, const sc_verify_opts *opts, sc_pair_loaded *out);
void sc_pair_loaded_free(sc_pair_loaded *p);

/* `streamcard verify PAIR`: every problem, or that it holds and what its pairs say.
   Returns the exit status. */
int sc_pair_verify(const char *path, const sc_verify_opts *opts);

#endif
