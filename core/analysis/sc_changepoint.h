/*
 * sc_changepoint.h: where a series of figures changed (doc/contracts/analysis.md, "History"):
 * Pettitt's rank test for one change in location (Pettitt, Applied Statistics 28, 1979), applied by
 * binary segmentation. Distribution-free (ranks only: a heavy tail or an outlier moves one
 * rank, not the mean), deterministic (no permutation, no seed: two runs over one store give
 * the same answer) and O(n log n) per segment.
 *
 * For a segment x_1..x_n with mid-ranks r_i, U_t = 2 (r_1 + ... + r_t) - t (n + 1) is the
 * Mann-Whitney statistic of x_1..x_t against x_t+1..x_n, centred; the change is the t of
 * K = max |U_t|, and its significance p ~= 2 exp(-6 K^2 / (n^3 + n^2)) (the approximation
 * is accurate for p <= 0.5). A change found at level alpha splits the segment, and each
 * side is tested again; a segment that shows none stops there. In a series with no change
 * only the first test runs, so the chance of any false change in it is alpha.
 */
#ifndef SC_CHANGEPOINT_H
#define SC_CHANGEPOINT_H

#include <stddef.h>

#define SC_CHANGEPOINT_ALPHA 0.001 /* the default level of each test */
#define SC_CHANGEPOINT_MIN_SIDE 3  /* the fewest points a change leaves on either side */
#define SC_CHANGEPOINT_MAX 64      /* change points one series reports at most */

/* One change: x[at] is the first point after it. */
typedef struct sc_changepoint {
    size_t at;
    double p;      /* Pettitt's p in the segment where it was found */
    size_t lo, hi; /* that segment, [lo, hi) */
} sc_changepoint;

/*
 * Pettitt's test on the n values of x: the split (1..n-1: x[*at] is the first point after
 * it, both sides at least min_side points) of the largest |U_t|, and its p. Returns p (1
 * when n < 2 min_side or the values are all equal), or -1 when a value is not finite or
 * memory runs out.
 */
double sc_changepoint_pettitt(const double *x, size_t n, size_t min_side, size_t *at);

/*
 * The change points of x by binary segmentation at level alpha (0 < alpha < 1), sorted by
 * position, into out (at most max). Returns how many, or -EINVAL (a value not finite, a bad
 * alpha), -ENOMEM.
 */
int sc_changepoint_find(const double *x, size_t n, double alpha, size_t min_side,
                        sc_changepoint *out, size_t max);

#endif
