/*
 * study.h: the end of an ablation study (core's sc_ablation.h) run through the one series
 * loop: its table (each step alone and in sequence, the study's metric with its 95%
 * interval, the change against the baseline and against the previous cumulative row, with
 * the verdicts of sc_stats.h) on stdout, and its record: a sealed directory
 * study_<name>_<time>/ beside the bundles (study.json, table.md, card.yaml, SHA256SUMS),
 * which `streamcard verify STUDY` checks with each bundle it names (the checks are the
 * core's: sc_study.h).
 */
#ifndef SC_WRAPPER_STUDY_H
#define SC_WRAPPER_STUDY_H

#include "run_series.h"
#include "sc_card.h"
#include "sc_diag.h"
#include "sc_facts.h"
#include "sc_metric.h"
#include "sc_study.h"
#include "sc_verify.h"

#include <json-c/json.h>

#include <stdbool.h>

/*
 * After the series loop: reads each row's bundle, prints the table, writes and seals the
 * record, prints STUDY=<path> last. card is the study card as parsed. Returns the exit
 * status of `streamcard run` (status: the loop's, made worse if the record fails).
 */
int sc_study_finish(const sc_run_series *rs, const sc_card *card, int status);

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
