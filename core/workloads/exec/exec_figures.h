/*
 * exec_figures.h: the figures of a program we did not write, read from its log by the card's
 * patterns (doc/contracts/layout.md, "Figures of a program"), shared by the exec module's check,
 * its validation, its results and verify. Internal to core/workloads/exec/.
 */
#ifndef SC_EXEC_FIGURES_H
#define SC_EXEC_FIGURES_H

#include "sc_card.h"
#include "sc_workload.h"

#include <json-c/json.h>
#include <stddef.h>

/* The longest line of the log a pattern is matched against, as the observer's (shorter than
   4096 bytes): a longer one is not matched. */
#define SC_EXEC_MAX_LINE 4095

/* How a program's card says its main loop is marked (markers:, else begin_pattern): what
   sc_workload_markers() answers for a program we did not write. Here, not in the table, so
   that the exec module asks it without calling the table that names the module. */
sc_markers sc_exec_markers(const sc_card *card);

/*
 * Whether pattern is one the card may hold: at most SC_CARD_MAX_PATTERN bytes, no back
 * reference, at most two intervals ({m,n}) of at most 100, and a POSIX extended regex with
 * groups capture groups (-1: any number). 0, or -EINVAL with why (one phrase).
 */
int sc_exec_pattern_check(const char *pattern, int groups, char *why, size_t len);

/*
 * The run's figures from log: each card metric's pattern must match exactly one line, and its
 * capture be a finite number; then the marker library's figure lines (TRACE_FIGURE, from
 * sc_marker_figure()), each name once, a card metric of the same name by pattern agreeing with
 * it, one declared from: marker reported in its unit (and reported: a missing one is a
 * problem); figures the card does not declare are kept too, shown but not judged
 * (doc/markers.md). The ones read go into metrics (name: number); the first problem into why
 * (a sentence). 0, -EINVAL (a problem), or -ENOMEM.
 */
int sc_exec_figures(const sc_card *card, const char *log, json_object *metrics, char *why,
                    size_t len);

/* The first line of log after line after (0: from the first) that matches pattern (1-based);
   0 when none does, -1 when the pattern does not compile. */
long sc_exec_match_after(const char *log, const char *pattern, long after);

#endif
