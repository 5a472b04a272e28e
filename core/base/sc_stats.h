/*
 * sc_stats.h: the statistics of repeated runs (doc/contracts/analysis.md, "Statistics of runs").
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
    const char *method; /* "exact Mann-Whitney" or "normal approximation"; paired: "exact
                           Wilcoxon signed-rank" or "signed-rank, normal approximation" */
    bool paired;        /* from pairs (sc_stats_paired()): n_a = n_b = the pairs */
} sc_ratio;

/* The ratio of b over a. Every value must be positive (a rate, a time). */
int sc_stats_ratio(const double *a, size_t n_a, const double *b, size_t n_b, sc_ratio *out);

/* One line naming how the ratio and its interval were computed, for output and docs. */
#define SC_STATS_RATIO_METHOD                                                                      \
    "Hodges-Lehmann ratio of B over A on log values, 95% interval from the Mann-Whitney "          \
    "statistic"

/*
 * The ratio B/A of n pairs (a[i], b[i]) measured side by side (doc/contracts/run.md, "Paired
 * runs"): each pair's log ratio d = log(b/a); the ratio is exp of the Hodges-Lehmann
 * estimate (the median of the n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j), its 95%
 * interval the k-th smallest and k-th largest Walsh average, k from the law of the
 * Wilcoxon signed-rank statistic T (R's qsignrank(0.025, n), at least 1), coverage
 * 1 - 2 P(T <= k-1): exact below SC_STATS_EXACT_BELOW pairs (the coefficients of
 * prod (1 + q^i)), its normal approximation above (k = floor(N/2 - 1.96 sd), N =
 * n(n+1)/2, sd = sqrt(n(n+1)(2n+1)/24)). Drift that moves both sides of a pair alike
 * cancels in its ratio. Below 6 pairs there is no interval. Every value must be positive.
 */
int sc_stats_paired(const double *a, const double *b, size_t n, sc_ratio *out);

#define SC_STATS_PAIRED_METHOD                                                                     \
    "paired: Hodges-Lehmann ratio of B over A from the pairs' log ratios, 95% interval from "      \
    "the Wilcoxon signed-rank statistic"

/*
 * One-sided p-values about the shift s of log B against log A (the statistic behind
 * sc_stats_ratio() or, paired, sc_stats_paired()), at the ratio edge (> 0): *p_below that
 * of the claim "B/A < edge" (the test of s >= log edge), *p_above that of "B/A > edge".
 * They invert the intervals: a 95% interval lies wholly below edge exactly when
 * *p_below < 0.025 (same law, exact or normal, as the interval). Returns 0 or -errno.
 */
int sc_stats_shift_p(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
                     double edge, double *p_below, double *p_above);

/* What a comparison of B with A says about one figure. */
typedef enum sc_verdict {
    SC_VERDICT_FASTER,      /* the whole interval lies beyond the noise bound on B's
                               better side */
    SC_VERDICT_SLOWER,      /* on its worse side */
    SC_VERDICT_SAME,        /* lies within the noise bound: no detectable difference */
    SC_VERDICT_NOISY,       /* reaches across an edge of the bound: too noisy to tell */
    SC_VERDICT_UNCONFIRMED, /* no interval (fewer than 6 runs a side): the change is
                               unconfirmed */
    /* Not the interval's: what a comparison says instead of it (sc_compare.h). */
    SC_VERDICT_CONTAMINATED, /* a side's runs had more foreign work than the limit */
    SC_VERDICT_DRIFTING,     /* separate sides, apart in time, and a side's series trends */
} sc_verdict;

/*
 * The verdict on r for a figure where a higher value is better (rates) or a lower one
 * (times, latencies). bound_pct is the noise bound: "no detectable difference" needs the
 * whole interval within +-bound_pct % of 1 (whether or not it holds 1: a shift inside the
 * noise bound is not told from drift); faster and slower need all of it beyond the bound
 * (above 1 + bound_pct %, or below 1 - bound_pct %); anything else is too noisy to tell.
 */
sc_verdict sc_stats_verdict(const sc_ratio *r, bool higher_is_better, double bound_pct);
/* "B faster", "B slower", "no detectable difference", "too noisy to tell", "unconfirmed",
   "contaminated", "drifting host: use --against". */
const char *sc_stats_verdict_name(sc_verdict v);

/*
 * The p-value of the claim a verdict of B faster or B slower makes about the same samples
 * (sc_stats_shift_p() at the noise bound's edges, in the figure's direction): twice the
 * smaller one-sided p-value, at most 1, so that p < 0.05 exactly when the 95% interval
 * lies wholly beyond one edge. Several figures judged at once correct these with
 * sc_stats_holm(). Returns 0 or -errno.
 */
int sc_stats_verdict_p(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
                       bool higher_is_better, double bound_pct, double *p);

/*
 * Holm's step-down correction of m p-values for the family-wise error (Holm 1979; R's
 * p.adjust(p, "holm")): sorted ascending, the i-th (1-based) times m - i + 1, made
 * non-decreasing, at most 1, into adjusted (in p's order). A claim holds at level alpha
 * when its adjusted p-value is at most alpha. Returns 0, -EINVAL (m = 0) or -ENOMEM.
 */
int sc_stats_holm(const double *p, size_t m, double *adjusted);

/* A trend of a figure with the order its runs were made in. */
typedef struct sc_trend {
    size_t n;
    bool tested;        /* n >= SC_STATS_TREND_MIN and the values are not all equal */
    double rho;         /* Spearman's rank correlation of value with run order */
    double p;           /* two-sided p-value of rho = 0 (1 when not tested) */
    const char *method; /* "exact permutation" (n <= SC_STATS_TREND_EXACT_MAX), or
                           "normal approximation" (z = rho sqrt(n - 1)) */
} sc_trend;

#define SC_STATS_TREND_MIN 4       /* fewer runs cannot show a trend at 5% */
#define SC_STATS_TREND_EXACT_MAX 9 /* 9! orders enumerated, at most */
#define SC_STATS_TREND_ALPHA 0.05  /* a trend below this p-value is drift */

/*
 * Spearman's rho between x[i] and i (the run order) with its two-sided p-value: tied
 * values take their average rank; the exact p counts every order of the ranks whose
 * |rho| reaches the observed one. Returns 0 or -EINVAL (a value not finite), -ENOMEM.
 */
int sc_stats_trend(const double *x, size_t n, sc_trend *out);

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
