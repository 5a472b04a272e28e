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
#include "sc_metric.h"

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
 * Reads the study record at path and checks it: its sums, and every row recomputed from
 * its bundle beside the study (verdict, median). Problems go to problems (none: it holds);
 * *record is study.json (to put), NULL when it is not a study record. -ENOENT when path
 * cannot be opened.
 */
int sc_study_load(const char *path, sc_diag *problems, json_object **record);

/* `streamcard verify STUDY`: its sums, its rows recomputed from the bundles it names
   (beside it), each bundle verified. Returns an exit status (SC_EXIT_OK when all hold). */
int sc_study_verify(const char *path);

/* `streamcard report STUDY -o FILE`: the study's page (study_page.c). An exit status. */
int sc_study_report(const char *path, const char *output);

#endif
