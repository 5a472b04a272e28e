/*
 * study_rows.h: the rows of a study as study.c makes its record and study_verify.c
 * recomputes it (doc/contracts/card.md, "Ablation studies"): one row read back from its bundle, and
 * the comparisons of rows. Only these two files include it.
 */
#ifndef SC_STUDY_ROWS_H
#define SC_STUDY_ROWS_H

#include "sc_card.h"
#include "sc_metric.h"
#include "sc_stats.h"
#include "sc_verify.h"

#include <json-c/json.h>

#include <stdbool.h>
#include <stddef.h>

/* One row of the study, read back from its bundle. */
typedef struct sc__srow {
    const char *label;
    char *bundle; /* path, malloc'd, or NULL */
    char verdict[16];
    char why[512]; /* a failed row: its failed gates, or why it has no bundle */
    double *x;     /* the metric's samples, one per run */
    size_t n;
    sc_stats st;
} sc__srow;

/* A comparison of row against base: the change, B/A and its interval, the verdict. */
typedef struct sc__cmp {
    bool done;
    double change_pct;
    sc_ratio r;
    const char *verdict;
    bool worse;
} sc__cmp;

/* Reads the row's bundle at path (NULL: none, cause says why), verified with opts (NULL:
   the defaults): verdict, samples, stats. */
void sc__study_read(sc__srow *row, const char *path, const char *cause, const sc_metric *m,
                    const sc_verify_opts *opts);

/* Fills cmp for every row: against the baseline, and a cumulative row against the one
   before it (steps 1..k-1). cmp[i][0]: vs the baseline, cmp[i][1]: vs previous. */
void sc__study_compare_all(const sc_card *card, const sc_metric *m, const sc__srow *rows,
                           size_t nrows, sc__cmp (*cmp)[2]);

/* The record's keys of row i that the card gives: kind, step, steps, differs. */
void sc__study_row_steps(json_object *o, const sc_card *card, size_t i);

/* The record's figures of row i: runs, median, ci_low, ci_high (each when there is one),
   vs_baseline and vs_previous (not for the baseline). */
void sc__study_row_figures(json_object *o, const sc__srow *rows, size_t i, sc__cmp (*cmp)[2]);

#endif
