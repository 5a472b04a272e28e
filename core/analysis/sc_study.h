/*
 * sc_study.h: an ablation study read back (doc/contracts/card.md, "Ablation studies"): its
 * rows, each recomputed from its bundle through the bundle view (sc_bundle_view.h: verify's
 * verdict and the samples of one pass over the bundle), the comparisons of rows, and the
 * study's record (study_<name>_<time>/study.json beside the bundles) checked against them.
 * `streamcard run` writes the record from these rows; `streamcard verify STUDY`, `report
 * STUDY` and `compare --study` start from sc_study_load().
 */
#ifndef SC_STUDY_H
#define SC_STUDY_H

#include "sc_card.h"
#include "sc_diag.h"
#include "sc_metric.h"
#include "sc_stats.h"
#include "sc_verify.h"

#include <json-c/json.h>

#include <stdbool.h>
#include <stddef.h>

/* The study's figure of merit: card's metric:, else the workload's (ipsearch
   thread_seconds, stream its kernel (triad for all), mpi-pingpong the smallest latency). */
int sc_study_metric(const sc_card *card, sc_metric *m);

/* Whether path is a study record (it holds study.json). */
bool sc_study_is(const char *path);

/*
 * Reads the study record at path and checks it: its sums; every row recomputed from its
 * bundle beside the study (verdict, median), each bundle verified with opts (NULL: the
 * defaults: $STREAMCARD_KEYS); and every row's label, steps and declared differences
 * (differs: the card keys it intends to change against the baseline) recomputed from the
 * study's card.yaml. Problems go to problems (none: it holds); *record is study.json (to
 * put), NULL when it is not a study record. -ENOENT when path cannot be opened.
 */
int sc_study_load(const char *path, const sc_verify_opts *opts, sc_diag *problems,
                  json_object **record);

/* The metric a study record at path names: the registry's, or one its card.yaml's metrics:
   declare (exec). 0, or -EINVAL (-ENOENT: path cannot be opened). */
int sc_study_record_metric(const char *path, const char *name, sc_metric *m);

/* The row of a loaded record whose bundle is the directory bundle (the same directory, by
   device and inode, as the one the record names beside the study at path study); it
   belongs to record. NULL when bundle is none of the study's rows. */
json_object *sc_study_row_of(json_object *record, const char *study, const char *bundle);

/* One row of the study, read back from its bundle. */
typedef struct sc_study_row {
    const char *label;
    char *bundle; /* path, malloc'd, or NULL */
    char verdict[16];
    char why[512]; /* a failed row: its failed gates, or why it has no bundle */
    double *x;     /* the metric's samples, one per run */
    size_t n;
    sc_stats st;
} sc_study_row;

/* A comparison of row against base: the change, B/A and its interval, the verdict. */
typedef struct sc_study_cmp {
    bool done;
    double change_pct;
    sc_ratio r;
    const char *verdict;
    bool worse;
} sc_study_cmp;

/* Reads the row's bundle at path (NULL: none, cause says why) through the bundle view,
   verified with opts (NULL: the defaults): verdict ("ok", "failed", "unverified", "no
   bundle"), samples of m, stats. */
void sc_study_read_row(sc_study_row *row, const char *path, const char *cause, const sc_metric *m,
                       const sc_verify_opts *opts);

/* Fills cmp for every row: against the baseline, and a cumulative row against the one
   before it (steps 1..k-1). cmp[i][0]: vs the baseline, cmp[i][1]: vs previous. */
void sc_study_compare_all(const sc_card *card, const sc_metric *m, const sc_study_row *rows,
                          size_t nrows, sc_study_cmp (*cmp)[2]);

/* The record's keys of row i that the card gives: kind, step, steps, differs. */
void sc_study_row_steps(json_object *o, const sc_card *card, size_t i);

/* The record's figures of row i: runs, median, ci_low, ci_high (each when there is one),
   vs_baseline and vs_previous (not for the baseline). */
void sc_study_row_figures(json_object *o, const sc_study_row *rows, size_t i,
                          sc_study_cmp (*cmp)[2]);

#endif
