/*
 * sc_stats.h: the statistics of repeated runs (doc/design.md, "Statistics of runs").
 *
 * Nothing here assumes a distribution (Hoefler and Belli, SC15): a figure measured in n
 * separate runs is described by its median, the 95% confidence interval of the median from
 * order statistics (the exact binomial law of the number of runs below the median), its
 * range and coefficient of variation. Two sets of runs A and B are compared through the
 * ratio B/A (Kalibera and Jones, ISMM'13) estimated by Hodges-Lehmann on log values (the
 * median of every log(b) - log(a)), with the distribution-free interval of the Mann-Whitney
 * statistic: exact below 50 runs a side, its normal approximation above. Everything is
 * deterministic (no resampling, no seed): verify recomputes the same numbers.
 *
 * Functions return 0 or -errno (-EINVAL: no sample, a value not finite or, for a ratio, not
 * positive; -ENOMEM).
 */
#ifndef SC_STATS_H
#define SC_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define SC_STATS_LEVEL 0.95      /* the confidence of every interval */
#define SC_STATS_MIN_RUNS 6      /* the fewest runs that give a 95% interval of the median */
#define SC_STATS_EXACT_BELOW 50  /* runs a side under which the Mann-Whitney law is exact */
#define SC_STATS_NOISE_BOUND 5.0 /* the default noise bound of a verdict, in percent */

/* A figure over n runs. */
typedef struct sc_stats {
    size_t n;
    double median, min, max, mean;
    double cv_pct; /* sample standard deviation / mean x 100; 0 with one run */
    bool ci;       /* the 95% interval exists (n >= SC_STATS_MIN_RUNS) */
    double ci_low, ci_high;
    size_t ci_rank_low, ci_rank_high; /* the order statistics (1-based) that bound it */
    double ci_level;                  /* its exact coverage, >= 0.95 */
} sc_stats;

/* Describes the n values of x (any order; x is not changed). */
int sc_stats_describe(const double *x, size_t n, sc_stats *out);

/* Half the width of the interval in percent of the median; < 0 when there is none. */
double sc_stats_ci_pct(const sc_stats *s);

/* The ratio B/A of two sets of runs of one figure. */
typedef struct sc_ratio {
    size_t n_a, n_b;
    double ratio; /* Hodges-Lehmann: exp(median of log b_j - log a_i) */
    bool ci;      /* both sides have SC_STATS_MIN_RUNS runs or more */
    double ci_low, ci_high;
    double ci_level;    /* exact coverage (exact law), or nominal 0.95 (normal approximation) */
    const char *method; /* "exact Mann-Whitney" or "normal approximation" */
} sc_ratio;

/* The ratio of b over a. Every value must be positive (a rate, a time). */
int sc_stats_ratio(const double *a, size_t n_a, const double *b, size_t n_b, sc_ratio *out);

/* One line naming how the ratio and its interval were computed, for output and docs. */
#define SC_STATS_RATIO_METHOD                                                                      \
    "Hodges-Lehmann ratio of B over A on log values, 95% interval from the Mann-Whitney "          \
    "statistic"

/* What a comparison of B with A says about one figure. */
typedef enum sc_verdict {
    SC_VERDICT_FASTER,      /* the whole interval lies beyond the noise bound on B's
                               better side */
    SC_VERDICT_SLOWER,      /* on its worse side */
    SC_VERDICT_SAME,        /* lies within the noise bound: no detectable difference */
    SC_VERDICT_NOISY,       /* reaches across an edge of the bound: too noisy to tell */
    SC_VERDICT_UNCONFIRMED, /* no interval (fewer than 6 runs a side): the change is
                               unconfirmed */
} sc_verdict;

/*
 * The verdict on r for a figure where a higher value is better (rates) or a lower one
 * (times, latencies). bound_pct is the noise bound: "no detectable difference" needs the
 * whole interval within +-bound_pct % of 1 (whether or not it holds 1: a shift inside the
 * noise bound is not told from drift); faster and slower need all of it beyond the bound
 * (above 1 + bound_pct %, or below 1 - bound_pct %); anything else is too noisy to tell.
 */
sc_verdict sc_stats_verdict(const sc_ratio *r, bool higher_is_better, double bound_pct);
/* "B faster", "B slower", "no detectable difference", "too noisy to tell", "unconfirmed". */
const char *sc_stats_verdict_name(sc_verdict v);

/*
 * B's performance relative to A: the ratio, oriented so that above 1 is better (r itself
 * for a higher-is-better figure, 1/r for a lower-is-better one), with its interval.
 */
void sc_stats_performance(const sc_ratio *r, bool higher_is_better, double *p, double *low,
                          double *high);

/*
 * Roughly how many runs a side would narrow r's interval enough to tell whether the
 * performance p lies above or below limit (both oriented as sc_stats_performance()): the
 * interval shrinks as 1/sqrt(runs). 0 when the interval already decides or when no estimate
 * is possible (no interval; p at the limit itself).
 */
size_t sc_stats_runs_to_decide(const sc_ratio *r, bool higher_is_better, double limit);

#endif
