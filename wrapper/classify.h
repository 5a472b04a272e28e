/*
 * classify.h: `streamcard classify` (cmd_classify.c) and its bisection step as a paired run
 * (classify_rerun.c): the options both read.
 */
#ifndef SC_CLASSIFY_H
#define SC_CLASSIFY_H

#include "analysis.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sc_classify_opts {
    const char *baseline, *allow, *metric, *bad_gates;
    const char *rerun;  /* --rerun-baseline BUNDLE: the step is a paired run against it */
    const char *output; /* --output DIR: where the paired run goes (default: beside it) */
    const char *junit;  /* --junit FILE: the verdict as a JUnit XML test case */
    double tolerance, max_interference;
    bool gates_only; /* --gates-only: the gates decide, no figure */
    bool has_seed;   /* --seed N: the paired run's order */
    uint64_t seed;
} sc_classify_opts;

/*
 * The paired run of a bisection step: the baseline's card and build (side A) against card
 * (NULL: the baseline's card) with this build (side B), by `streamcard run --against` in a
 * child. Returns SC_ANALYSIS_GO_ON with *pair (malloc'd) the pair's directory, or the exit
 * status of classify (its line said why): 125 when no pair was made, 128 when the baseline
 * cannot be run again (its build changed or is gone).
 */
int sc_classify_rerun(const sc_classify_opts *o, const sc_analysis_bundle *base, const char *card,
                      char **pair);

#endif
