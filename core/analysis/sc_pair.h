/*
 * sc_pair.h: a paired run (doc/contracts/run.md, "Paired runs"): two sides of one question, A (the
 * card's experiment) and B (A with the one change of its top-level against:, or the same
 * card with another build), run in one process as pairs of runs, A and B one after the
 * other on the same CPUs, the order of each pair drawn from a recorded seed. A pair's log
 * ratio cancels whatever moved the host under both of its runs; the ratio of the pairs and
 * its interval come from the Wilcoxon signed-rank statistic (sc_stats_paired()).
 *
 * The record is a directory: a/ and b/ (each a bundle of its side's runs), pair.json (the
 * seed, the order, the differences of the sides, the primary metric's pairs, their ratio,
 * interval, trends and verdict), the card as given, SHA256SUMS over all of it. `streamcard
 * run` writes it; verify recomputes every part of pair.json from the sides' verified files.
 */
#ifndef SC_PAIR_H
#define SC_PAIR_H

#include "sc_card.h"
#include "sc_compare.h"
#include "sc_diag.h"
#include "sc_facts.h"
#include "sc_series.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_PAIR_SCHEMA 1
#define SC_PAIR_RECORD "pair.json"
#define SC_PAIR_SIDE_A "a"
#define SC_PAIR_SIDE_B "b"
/* The variable of a pair whose sides run the same card with two builds. */
#define SC_PAIR_BUILD "build"
/* The variable of an A/A pair: the same card and build on both sides. */
#define SC_PAIR_NONE "none"

/*
 * The series of a pair card (card->against set): run 0 side A (the experiment as written),
 * run 1 side B (A with against: applied through the keys' own conversion), each checked as
 * any card; B's run name ends "_<key>-<value>". against: changes one key a sweep may vary,
 * or none (A/A); not prefetch or governor (the sides take turns in one job, whose platform
 * the plugin sets once); not with a sweep or a study. Called by sc_series_from_card().
 * Returns 0, -EINVAL with lines in diag, or -ENOMEM; free out in any case.
 */
int sc_pair_series(const sc_card *card, sc_series *out, sc_diag *diag);

/*
 * `run A --against B`: sets a's against: to the one key in which card b differs from card a
 * (both parsed, flags applied), so that a is the pair card of both; nothing when they are
 * the same (A/A). Each card's question, run_name and controlled_variables do not count;
 * runs, runs_ci_pct, runs_max, nodes and workload must be the same; an env variable B
 * drops is refused (against: sets, it does not unset); so are metrics: declared otherwise
 * (name, unit, better, primary: sc_metric_same_declared()). Returns 0, -EINVAL with one line
 * in diag naming what differs, or -ENOMEM.
 */
int sc_pair_against(sc_card *a, const sc_card *b, sc_diag *diag);

/*
 * The pair card as a pair's directory and a job keep it: the card as given, or, when flags
 * or --against made it, side A's resolved card (side_a, the series' checked run 0) with the
 * pair's against:. malloc'd; NULL on ENOMEM.
 */
char *sc_pair_card_yaml(const sc_card *card, const sc_card *side_a);

/* The key against: changes ("nb", "expect.min_rate_MBps", "env.OMP_WAIT_POLICY"), or NULL
   for an A/A pair card. */
const char *sc_pair_key(const sc_card *card);

/*
 * Whether pair i (0-based) of a run with this seed runs B first: the low bit of the first
 * byte of SHA-256("streamcard pair order <seed> <i>"). Each pair is AB or BA on its own
 * draw, so neither side always goes first and no side runs all its runs in a row.
 */
bool sc_pair_b_first(uint64_t seed, size_t i);

/*
 * Whether the pairs so far are enough, and why (one phrase into why): a run failed its
 * gates (failed); runs: N, N pairs; runs: auto, the primary metric's paired interval within
 * runs_ci_pct of its ratio after at least 6 pairs, or runs_max pairs. a_runs and b_runs
 * hold each side's run objects ("metrics") so far, in order; card is side A's.
 */
bool sc_pair_done(const sc_card *card, json_object *a_runs, json_object *b_runs, bool failed,
                  char *why, size_t len);

/* What pair.json records beside what the sides give. */
typedef struct sc_pair_info {
    const char *variable; /* the against key, SC_PAIR_BUILD or SC_PAIR_NONE */
    uint64_t seed;
    size_t started;      /* pairs begun (the last may be incomplete after a failure) */
    const char *stopped; /* why the pairs ended */
} sc_pair_info;

/*
 * pair.json from the sides' facts (sc_facts_load() of a/ and b/): the schema, seed, order of
 * every pair begun, the variable and the controlled variables that differ between the sides
 * (sc_facts_diff(), less those at a default another gives), why the pairs ended, and the
 * side A card's primary metric compared pair by pair (sc_compare_metric(), paired, the
 * default noise bound and contamination limit). NULL on ENOMEM.
 */
json_object *sc_pair_record(const sc_pair_info *info, const sc_bundle_facts *a,
                            const sc_bundle_facts *b);

/* The comparison options of a pair's record: paired, the default bounds. */
void sc_pair_compare_opts(sc_compare_opts *o);

/*
 * Checks that the sides differ in what the variable allows: none for an A/A pair; the build
 * group only for SC_PAIR_BUILD; else only variables the against key changes
 * (sc_facts_key_changes()), and both declare the same metrics (sc_metric_same_declared()).
 * One line per other difference into problems. Returns true when they do.
 */
bool sc_pair_differences_ok(const char *variable, const sc_bundle_facts *a,
                            const sc_bundle_facts *b, sc_diag *problems);

#endif
