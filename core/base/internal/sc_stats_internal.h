/*
 * sc_stats_internal.h: internal to the statistics module (stats.c, stats_paired.c): the
 * helpers both halves use. stats.c defines them; stats_paired.c calls them, never the
 * other way round.
 */
#ifndef SC_STATS_INTERNAL_H
#define SC_STATS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#define SC__Z975 1.959963984540054 /* the 0.975 quantile of the standard normal law */

/* qsort's comparison of two doubles. */
int sc__stats_cmp_double(const void *a, const void *b);

/* The median of n sorted values (n > 0). */
double sc__stats_median_sorted(const double *s, size_t n);

/* Whether every one of the n values is finite and positive (a rate, a time). */
bool sc__stats_positive(const double *x, size_t n);

/* The standard normal law's P(Z <= x). */
double sc__stats_phi(double x);

/*
 * The Mann-Whitney side of sc_stats_shift_p(): the one-sided p-values of log b - log a
 * below and above log edge, from the m n differences, exact or normal as the interval.
 * 0 or -errno.
 */
int sc__stats_mw_shift_p(const double *a, size_t m, const double *b, size_t n, double edge,
                         double *p_below, double *p_above);

#endif
