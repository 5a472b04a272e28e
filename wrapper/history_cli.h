/*
 * history_cli.h: the parts of `streamcard history` (cmd_history.c dispatches): add
 * (history_add.c), the series a query selects (history_query.c), show, check and report
 * (history_show.c, history_check.c, history_page.c). doc/contracts/analysis.md, "History".
 */
#ifndef SC_HISTORY_CLI_H
#define SC_HISTORY_CLI_H

#include "history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit status of `history check` when the only new change points are suspect. */
#define SC_HISTORY_EXIT_SUSPECT 4

typedef struct sc_history_add_opts {
    const char *db; /* shown in messages */
    bool quiet;
    size_t *counts; /* [0] added, [1] already there, [2] refused or failed */
} sc_history_add_opts;

/* Adds each bundle, or each bundle one level inside a folder. Returns the exit status. */
int sc_history_add(sc_history *h, char **paths, size_t n, const sc_history_add_opts *o);

#define SC_HISTORY_MAX_VARS 16

/* Which series a query selects; NULL or -1: any. */
typedef struct sc_history_filter {
    const char *card, *host, *metric;
    const char *node_a, *node_b; /* a link (both) or a node (node_a only) of a link matrix */
    const char *vars[SC_HISTORY_MAX_VARS]; /* "NAME=VALUE" */
    size_t n_vars;
    long long since, until; /* epoch seconds of the bundles' end */
} sc_history_filter;

/* One bundle's figure in a series. */
typedef struct sc_history_point {
    long long id, ended_at;
    char *name, *digest;
    size_t runs;
    double median;
    bool ci;
    double ci_low, ci_high;
    char verdict[8]; /* cells: "ok", "drain", "suspect"; figures: "" */
} sc_history_point;

/* The figures of one card on one host for one metric (or one node or link of a matrix),
   oldest first. */
typedef struct sc_history_series {
    char *card, *host, *metric, *unit, *better, *node_a, *node_b; /* node_*: "" for figures */
    bool cell;
    sc_history_point *p;
    size_t n, cap;
} sc_history_series;

typedef struct sc_history_set {
    sc_history_series *s;
    size_t n, cap;
} sc_history_set;

/* The series f selects (cells only when f names a node or link). 0, or -errno with one
   line in why. */
int sc_history_query(sc_history *h, const sc_history_filter *f, sc_history_set *out, char *why,
                     size_t whylen);
void sc_history_set_free(sc_history_set *set);

/* A series' name for messages and the change-point table: "card host metric" or "card
   metric a b". malloc'd. */
char *sc_history_series_key(const sc_history_series *s);

/* The time of a point as ISO 8601 UTC into buf ("unknown" when < 0). */
void sc_history_time(long long t, char *buf, size_t len);

/* Parses a time of --since/--until: epoch seconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ. */
bool sc_history_parse_time(const char *s, long long *t);

/* The subcommands after their common options; each returns the exit status. */
typedef enum sc_history_format {
    SC_HISTORY_TABLE,
    SC_HISTORY_CSV,
    SC_HISTORY_JSON
} sc_history_format;
int sc_history_show(const sc_history_set *set, sc_history_format fmt, FILE *out);

typedef struct sc_history_check_opts {
    double alpha, bound_pct;
    bool record;       /* remember what was reported, so the next check calls it old */
    const char *junit; /* a JUnit XML file to write, or NULL */
    bool all;          /* print old change points too */
} sc_history_check_opts;
int sc_history_check(sc_history *h, const sc_history_set *set, const sc_history_check_opts *o);

/* The change points of one series, as check and the page show them. */
typedef struct sc_history_change {
    size_t at;                     /* the first point after the change */
    size_t lo, hi;                 /* the points compared: [lo, at) before, [at, hi) after */
    double p;                      /* Pettitt's p */
    double ratio, ci_low, ci_high; /* after / before (Hodges-Lehmann), its 95% interval */
    bool ci;
    const char *verdict; /* sc_stats_verdict_name() */
    bool confirmed;
} sc_history_change;

/* The change points of s at level alpha with the noise bound. Returns how many (into out,
   at most max), or -errno. */
int sc_history_changes(const sc_history_series *s, double alpha, double bound_pct,
                       sc_history_change *out, size_t max);

/* `history report`: the page of the series' trends with their change points, written to
   output atomically. Returns the exit status. */
int sc_history_report(sc_history *h, const sc_history_set *set, const sc_history_check_opts *o,
                      const char *output);

int sc_cmd_history(int argc, char **argv);

#endif
