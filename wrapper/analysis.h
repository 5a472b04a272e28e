/*
 * analysis.h: what the commands over finished bundles (compare, classify, report, export)
 * share. Each refuses evidence that sc_verify_bundle() rejects and reads the rest through
 * sc_facts_load().
 */
#ifndef SC_ANALYSIS_H
#define SC_ANALYSIS_H

#include "sc_facts.h"
#include "sc_verify.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of `streamcard classify`, as `git bisect run` reads them. */
enum {
    SC_CLASSIFY_GOOD = 0,
    SC_CLASSIFY_BAD = 1,
    SC_CLASSIFY_SKIP = 125,  /* the run proves nothing: bisect skips this commit */
    SC_CLASSIFY_ABORT = 128, /* usage error: stops git bisect run instead of blaming a commit */
};

/* A bundle, verified and loaded: what every analysis command starts from. */
typedef struct sc_analysis_bundle {
    const char *arg; /* as named on the command line */
    int open_rc;     /* 0, or -errno when it could not be opened */
    sc_verify_report verify;
    bool usable;    /* intact, consistent, and every gate holds */
    char why[1024]; /* when not usable: one line saying why */
    bool loaded;    /* facts holds the bundle's facts */
    sc_bundle_facts facts;
} sc_analysis_bundle;

/* Verifies and loads path. Returns 0, or -errno (open_rc) when it could not be read. */
int sc_analysis_load(sc_analysis_bundle *ab, const char *path);
void sc_analysis_free(sc_analysis_bundle *ab);

/* The percent change from base to value; 0 when base is not positive. */
double sc_analysis_change(double base, double value);

/* Prints the controlled-variable table of `compare --variables`. */
void sc_analysis_print_variables(FILE *out);

#endif
