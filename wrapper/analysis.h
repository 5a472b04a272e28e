/*
 * analysis.h: what the commands over finished bundles (compare, classify, report, export)
 * share: one preamble that parses a command's options and opens the bundles it names
 * through the core's bundle view (sc_bundle_view.h: verify's verdict and the facts, one pass
 * over each bundle). Each command refuses evidence that verify rejects.
 */
#ifndef SC_ANALYSIS_H
#define SC_ANALYSIS_H

#include "sc_compare.h"
#include "sc_facts.h"
#include "sc_linkmatrix.h"
#include "sc_metric.h"
#include "sc_stats.h"
#include "sc_verify.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes of `streamcard classify`, as `git bisect run` reads them. */
enum {
    SC_CLASSIFY_GOOD = 0,
    SC_CLASSIFY_BAD = 1,
    SC_CLASSIFY_SKIP = 125,  /* the run proves nothing: bisect skips this commit */
    SC_CLASSIFY_ABORT = 128, /* usage error: stops git bisect run instead of blaming a commit */
};

/* A bundle, verified and loaded: what every analysis command starts from (the parts of its
   bundle view, sc_bundle_view_open()). */
typedef struct sc_analysis_bundle {
    const char *arg;  /* as named on the command line, escaped for showing (arg_shown) */
    const char *path; /* as named, raw: for opening again (compare --study), never shown */
    char arg_shown[1024];
    int open_rc; /* 0, or -errno when it could not be opened */
    sc_verify_report verify;
    bool usable;    /* intact, consistent, and every gate holds */
    char why[1024]; /* when not usable: one line saying why */
    bool loaded;    /* facts holds the bundle's facts */
    sc_bundle_facts facts;
} sc_analysis_bundle;

/* Verifies and loads path. Returns 0, or -errno (open_rc) when it could not be read. */
int sc_analysis_load(sc_analysis_bundle *ab, const char *path);
/* As sc_analysis_load(), verified with opts (NULL: the defaults; a pair's side: pair_side). */
int sc_analysis_load_opts(sc_analysis_bundle *ab, const char *path, const sc_verify_opts *opts);
void sc_analysis_free(sc_analysis_bundle *ab);

/* What a command's callbacks return to let the preamble go on (else: an exit status). */
#define SC_ANALYSIS_GO_ON (-1)

/* An analysis command as its preamble sees it. */
typedef struct sc_analysis_cmd {
    const char *name;               /* "compare", for messages */
    const char *short_opts;         /* getopt's, starting with ':'; 'h' is --help */
    const struct option *long_opts; /* getopt_long's table, {0}-terminated */
    void (*usage)(FILE *out);
    int usage_status; /* the exit status of an unknown option or a missing value */
    /* One option (not --help) and its value (may be NULL): SC_ANALYSIS_GO_ON, or the exit
       status to stop with. */
    int (*option)(void *ctx, int c, const char *arg);
    /* After the options, with the number of bundles named: SC_ANALYSIS_GO_ON, or the exit
       status to stop with (its message said). */
    int (*check)(void *ctx, size_t n);
    /* A bundle that cannot be read: "streamcard: NAME: BUNDLE: WHY<unreadable_hint>", and
       the status becomes unreadable_status. NULL: the command says it itself. */
    const char *unreadable_hint;
    int unreadable_status;
    /* A bundle verify refuses: "streamcard: NAME: BUNDLE: refused: WHY<refused_hint>", and
       a status still 0 becomes 1. NULL: the command says it itself. */
    const char *refused_hint;
} sc_analysis_cmd;

/* The bundles a command named, verified and loaded, in order. */
typedef struct sc_analysis_set {
    sc_analysis_bundle *b;
    size_t n;
} sc_analysis_set;

/*
 * The preamble of every analysis command: parses the options of argv with cmd (--help
 * prints the usage), then verifies and loads each bundle named after them and says, as cmd
 * asks, which cannot be read or are refused. Returns true with set filled and *status the
 * exit status so far (0, or what the bundles made it), or false with *status the exit
 * status to stop with now (and set empty). Free set with sc_analysis_set_free().
 */
bool sc_analysis_begin(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx,
                       sc_analysis_set *set, int *status);
void sc_analysis_set_free(sc_analysis_set *set);

/*
 * The two halves of sc_analysis_begin(), for a command over many bundles that keeps only
 * what it prints (export): the options (true with *first the index of the first bundle in
 * argv, or false with *status the exit status to stop with), then one bundle at a time
 * (said and counted into *status as sc_analysis_begin() does; free it with
 * sc_analysis_free()).
 */
bool sc_analysis_options(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx, int *first,
                         int *status);
void sc_analysis_load_named(const sc_analysis_cmd *cmd, sc_analysis_bundle *ab, const char *path,
                            int *status);

/*
 * The controlled variables that differ between a and b as a comparison counts them: their
 * indexes into vars[], leaving out a variable at the default another differing one gives
 * (threads that fill cpu_list). Returns how many.
 */
size_t sc_analysis_differences(const sc_bundle_facts *a, const sc_bundle_facts *b,
                               size_t idx[SC_FACTS_MAX_VARS]);

/* How variable i differs between a and b, for messages: its name; env with the names of
   its variables that differ ("env (OMP_WAIT_POLICY, OPENBLAS_CORETYPE)"). */
void sc_analysis_difference(const sc_bundle_facts *a, const sc_bundle_facts *b, size_t i, char *buf,
                            size_t len);

/*
 * The metrics a command reports for bundle f (sc_metric.h): the one --metric named (name,
 * already checked with sc_analysis_metric_ok()), else the metrics of f's card. Fills out
 * (at most max) and returns how many.
 */
size_t sc_analysis_metrics(const sc_bundle_facts *f, const char *name, sc_metric *out, size_t max);

/* One metric of two bundles as a comparison sees it (doc/contracts/analysis.md, "Statistics
   of runs"): each side's runs, their medians and intervals, the ratio B/A with its interval, the
   verdict, what overrides it, each side's trend (sc_compare.h). */
typedef sc_comparison sc_analysis_cmp;

/* The noise bound a comparison states, in percent, unless --noise-bound gives another. */
#define SC_ANALYSIS_NOISE_BOUND SC_STATS_NOISE_BOUND

/* The values of m in f, one per run (sc_metric_samples()), into *out (malloc'd; NULL when
   none). Returns how many. */
size_t sc_analysis_samples(const sc_bundle_facts *f, const sc_metric *m, double **out);

/* How a command compares: the noise bound, the contamination limit (--max-interference),
   classify's tolerance (0: none), and whether the two sides are the pairs of one run. */
typedef struct sc_analysis_opts {
    double bound_pct, max_interference_pct, tolerance_pct;
    bool paired;
} sc_analysis_opts;

/* The defaults: the noise bound, the contamination limit of SC_COMPARE_MAX_INTERFERENCE. */
#define SC_ANALYSIS_OPTS_DEFAULT                                                                   \
    ((sc_analysis_opts){.bound_pct = SC_ANALYSIS_NOISE_BOUND,                                      \
                        .max_interference_pct = SC_COMPARE_MAX_INTERFERENCE})

/* Compares m in a and b (separate sides measured apart in time are held to drift). 0,
   -ENOENT when a side holds no value of m, -ENOMEM. */
int sc_analysis_compare(const sc_bundle_facts *a, const sc_bundle_facts *b, const sc_metric *m,
                        const sc_analysis_opts *o, sc_analysis_cmp *c);

/*
 * The metrics compare and classify judge in f (A's, the baseline's): the names --metric
 * gave (a comma list; "all": every metric of the card), else the card's primary metric
 * (sc_metric_primary()). Fills out (at most max) and returns how many.
 */
size_t sc_analysis_judged(const sc_bundle_facts *f, const char *names, sc_metric *out, size_t max);

/* Why a comparison's verdict is not its interval's, for its line: "contaminated: B's runs
   had up to 33.4% foreign work on a CPU (limit 5%)", "...", or "" when it is. */
void sc_analysis_override_text(const sc_analysis_cmp *c, double max_interference_pct, char *buf,
                               size_t len);

/* Each side's trend with its run order, one phrase: "trend with run order: A rho 0.94, p
   0.017 (exact permutation); B rho -0.20, p 0.700". */
void sc_analysis_trend_text(const sc_analysis_cmp *c, char *buf, size_t len);

/* "B/A 0.958, 95% interval [0.941, 0.972]: B slower", or without an interval "B/A 0.623,
   interval unavailable (1 and 1 runs; 6 a side give one): change unconfirmed". */
void sc_analysis_cmp_text(const sc_analysis_cmp *c, char *buf, size_t len);

/* How the ratio and its interval were computed, one line ("ratio B/A: ..."): printed with
   its newline, or into buf without it. */
void sc_analysis_print_method(FILE *out, double bound_pct);
void sc_analysis_method_text(char *buf, size_t len, double bound_pct);
void sc_analysis_print_paired_method(FILE *out, double bound_pct);

/* The worst foreign share (%) over the bundle's CPUs and runs, and the card's limit; -1 when
   nothing was measured (interference_accounting: off, or a bundle of schema 1). */
double sc_analysis_worst_share(const sc_bundle_facts *f, double *limit_pct);
/* The same in words: "max 0.4% foreign (limit 5%)", or "not measured". */
void sc_analysis_interference(const sc_bundle_facts *f, char *buf, size_t len);

/* Reads a --noise-bound value; false with a one-line message on stderr for command cmd. */
bool sc_analysis_bound_ok(const char *cmd, const char *arg, double *bound_pct);
/* Reads a --max-interference value (0 < PCT <= 100); false with a one-line message. */
bool sc_analysis_limit_ok(const char *cmd, const char *arg, double *pct);

/* Checks a --metric value (compare and classify: a comma list, or all); false with a
   one-line message on stderr for command cmd. declared_later: a name the registry lacks may
   be one a bundle's card declares (exec's metrics:), so it waits for
   sc_analysis_metric_known() once the bundle is loaded. */
bool sc_analysis_metric_ok(const char *cmd, const char *name, bool declared_later);

/* Whether every name of a --metric value is a metric for bundle f (one its card declares, or
   the registry's); false with the one line sc_analysis_metric_ok() prints. */
bool sc_analysis_metric_known(const char *cmd, const char *names, const sc_bundle_facts *f);

/* The metric registry for help texts: one line per family, indented. */
void sc_analysis_print_metrics(FILE *out);

/* The card's outlier bounds of a link matrix (outlier_mad, outlier_min_pct) into card, the
   defaults when its text does not parse: what health and history judge a matrix by. */
void sc_analysis_link_bounds(const sc_bundle_facts *f, sc_card *card);

/* The link matrix of a bundle's facts, its per-size files read from the bundle at f->path
   (sc_linkmatrix_load()), no node named twice (sc_linkmatrix_unique()). Returns as load
   does. */
int sc_analysis_matrix_load(const sc_bundle_facts *f, sc_linkmatrix_data *d, char *why,
                            size_t whylen);

/* One finding of a link matrix's judgement as health says it, without the nodes' names:
   "bw_1KiB 300 MB/s (median of its pairs), 70% worse than the nodes' median 995 MB/s", or
   for a link "... worse than the 990 MB/s the two reach with the other nodes". */
void sc_analysis_finding_text(const sc_linkmatrix_finding *f, const char *metric, const char *unit,
                              char *buf, size_t len);

/* The passes' vote over one metric of link matrix d (sc_linkmatrix_judge_passes()): the
   latency at the smallest size (latency) or the bandwidth at the largest, by the card's
   bounds. Returns as judge_passes does. */
int sc_analysis_matrix_votes(const sc_linkmatrix_data *d, bool latency, const sc_card *card,
                             sc_linkmatrix_votes *out);

/* How the passes voted on v, as health says it: "named in 3 of 3 passes and their medians:
   confidence >= 87.5%", "named in 1 of 3 passes, not in their medians", or for one pass
   "one pass: no noise guard (valid: passes: 2 or more to drain)". */
void sc_analysis_vote_text(const sc_linkmatrix_vote *v, size_t passes, char *buf, size_t len);

/* Prints the controlled-variable table of `compare --variables`. */
void sc_analysis_print_variables(FILE *out);

#endif
