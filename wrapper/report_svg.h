/*
 * report_svg.h: the plots of `streamcard report`, as inline SVG: bars with whiskers, y over x,
 * a log-log plot, a grid of CPUs (report_svg.c), a link matrix's heatmap (svg_heatmap.c) and a
 * comparison with its intervals and verdicts (svg_compare.c); written through the page's
 * writer (html.h), so titles and labels are escaped. The plots of a bundle's figures scale
 * to the page's width (viewBox; the page's CSS gives them width 100%).
 */
#ifndef SC_REPORT_SVG_H
#define SC_REPORT_SVG_H

#include "html.h"
#include "sc_stats.h"

#include <stdbool.h>
#include <stddef.h>

/* One bar of a bar chart: its label, its value and an optional range [lo, hi] (0, 0: none). */
typedef struct sc_svg_bar {
    const char *label;
    double value, lo, hi;
    bool worse; /* drawn in the colour of a loss */
} sc_svg_bar;

/* Horizontal bars, each with its value printed; a range is drawn as a whisker. */
void sc_svg_bars(sc_html *out, const char *title, const char *unit, const sc_svg_bar *bars,
                 size_t n);

/* Narrower bars (two fit side by side) with values to 4 significant digits and a dashed
   reference line at ref (the baseline of a study). */
void sc_svg_bars_ref(sc_html *out, const char *title, const char *unit, const sc_svg_bar *bars,
                     size_t n, double ref);

/* y over x (repetitions), points joined by a line, on linear axes. */
void sc_svg_xy(sc_html *out, const char *title, const char *xlabel, const char *yunit,
               const double *x, const double *y, size_t n);

/* One series of a log-log plot: y over x, with a 95% interval per point when lo and hi are
   given (a NaN in them: none at that point). */
typedef struct sc_svg_series {
    const double *x, *y, *lo, *hi;
    size_t n;
} sc_svg_series;

/*
 * y over x on log-log axes, scaled to its container: x message sizes in bytes (ticks 1, 8,
 * 64, 512, 4K ...), y by decades (and 2 and 5 within a narrow range); the points joined,
 * each interval a whisker, each point's figure in its tooltip; the axes named (xlabel;
 * ylabel with its unit).
 */
void sc_svg_loglog(sc_html *out, const char *title, const char *xlabel, const char *ylabel,
                   const char *unit, const sc_svg_series *s);

/* The CPUs 0..ncpus-1 as boxes: in_list[cpu] shades the card's CPUs, label[cpu] (may be
   NULL) names the threads found there. */
void sc_svg_cpus(sc_html *out, const char *title, size_t ncpus, const bool *in_list,
                 const char *const *label);

/* The heatmaps are drawn up to this many nodes (a cell stays readable); values are written
   into the cells up to SC_SVG_HEATMAP_VALUES nodes (the tooltip always has it). */
#define SC_SVG_HEATMAP_MAX 64
#define SC_SVG_HEATMAP_VALUES 16

/* A link matrix to draw (svg_heatmap.c). */
typedef struct sc_svg_heat {
    const char *title, *unit;
    const char *const *names; /* the n nodes */
    size_t n;
    const double *cells; /* cells[i * n + j]; NaN: not measured */
    bool higher_better;
    const bool *drain;   /* per node: named to drain (NULL: none) */
    const bool *suspect; /* per cell: a suspect link (NULL: none) */
} sc_svg_heat;

/*
 * The matrix as a heatmap scaled to its container: rows and columns named, each cell
 * shaded from red (worst) to green (best) in the figure's direction with its value written
 * in it (and in its tooltip), a node to drain named in red with "drain", a suspect link
 * outlined, and a legend of the shades. More than SC_SVG_HEATMAP_MAX nodes: a line says so
 * instead.
 */
void sc_svg_heatmap(sc_html *out, const sc_svg_heat *h);

/* One bundle of a comparison plot (svg_compare.c). */
typedef struct sc_svg_cmp_row {
    const char *label; /* "B: name" */
    size_t runs;
    double median;
    bool ci; /* the median's 95% interval [lo, hi] (6 runs or more) */
    double lo, hi;
    bool has_ratio; /* against the first row (not the first row itself) */
    double ratio;   /* this row's median over the first's: Hodges-Lehmann, B/A */
    bool ratio_ci;  /* its 95% interval [ratio_lo, ratio_hi] */
    double ratio_lo, ratio_hi;
    sc_verdict verdict;
} sc_svg_cmp_row;

/*
 * One metric of several bundles, scaled to its container: per bundle a bar of its median
 * with the 95% interval as a whisker, and, against the first, the ratio with its interval
 * on a ratio axis where the noise bound (bound_pct) is a band and 1 a line, each with its
 * verdict in words; a legend says what the marks are.
 */
void sc_svg_compare(sc_html *out, const char *title, const char *unit, bool higher_better,
                    const sc_svg_cmp_row *rows, size_t n, double bound_pct);

#endif
