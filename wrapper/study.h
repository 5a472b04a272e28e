/*
 * study.h: the end of an ablation study (core's sc_ablation.h) run through the one series
 * loop: its table (each step alone and in sequence, the study's metric with its 95%
 * interval, the change against the baseline and against the previous cumulative row, with
 * the verdicts of sc_stats.h) on stdout, and its record: a sealed directory
 * study_<name>_<time>/ beside the bundles (study.json, table.md, card.yaml, SHA256SUMS),
 * which `streamcard verify STUDY` checks with each bundle it names.
 */
#ifndef SC_STUDY_H
#define SC_STUDY_H

#include "run_series.h"
#include "sc_card.h"
#include "sc_diag.h"
#include "sc_facts.h"
#include "sc_metric.h"
#include "sc_verify.h"

#include <json-c/json.h>

#include <stdbool.h>

/* The study's figure of merit: card's metric:, else the workload's (ipsearch
   thread_seconds, stream its kernel (triad for all), mpi-pingpong the smallest latency). */
int sc_study_metric(const sc_card *card, sc_metric *m);

/*
 * After the series loop: reads each row's bundle, prints the table, writes and seals the
 * record, prints STUDY=<path> last. card is the study card as parsed. Returns the exit
 * status of `streamcard run` (status: the loop's, made worse if the record fails).
 */
int sc_study_finish(const sc_run_series *rs, const sc_card *card, int status);

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

/* `streamcard verify [--keys DIR] [--state-dir DIR] STUDY`: its sums, its rows recomputed
   from the bundles it names (beside it), each bundle verified with opts, its declarations
   held to its card. Returns an exit status (SC_EXIT_OK when all hold), with what it said in
   one line into why (the first problem when it failed). */
int sc_study_verify(const char *path, const sc_verify_opts *opts, char *why, size_t len);

/* Two bundles of one verified study, as `streamcard compare --study` sees them
   (study_compare.c). */
typedef struct sc_study_pair {
    json_object *record;  /* study.json, checked by sc_study_load() */
    json_object *row[2];  /* the rows of A and B, in record */
    const char *label[2]; /* their labels, in record */
    const char **keys;    /* the card keys either row declares ("differs"), in record */
    size_t n_keys;
} sc_study_pair;

/*
 * Loads the study record at study for bundles bundle[0] and bundle[1]: the record must hold
 * (sc_study_load() finds no problem) and name both bundles. Returns SC_EXIT_OK with p filled
 * (free it with sc_study_pair_free()), or with a line on stderr SC_EXIT_USAGE (not a study
 * record), SC_EXIT_FAILED (the record fails, or a bundle is none of its rows) or
 * SC_EXIT_ERROR (out of memory), p then empty.
 */
int sc_study_pair_load(sc_study_pair *p, const char *study, const char *const bundle[2]);
void sc_study_pair_free(sc_study_pair *p);

/* Whether the controlled variable at index var, which differs between a and b, is what the
   pair's rows declare (for env: every variable of it that differs, by name). When it is
   not, undeclared says what is not ("nq", "env OMP_MAX_ACTIVE_LEVELS"). */
bool sc_study_pair_declares(const sc_study_pair *p, const sc_bundle_facts *a,
                            const sc_bundle_facts *b, size_t var, char *undeclared, size_t len);

/* The card keys the pair declares, once each, ", "-separated ("nothing" when none). */
void sc_study_pair_keys(const sc_study_pair *p, char *buf, size_t len);

/* `streamcard report STUDY -o FILE`: the study's page (study_page.c). An exit status. */
int sc_study_report(const char *path, const char *output);

#endif
