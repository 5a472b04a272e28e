/*
 * report_svg.h: the plots of `streamcard report`, as inline SVG (report_svg.c): bars with
 * whiskers, y over x, a grid of CPUs, written through the page's writer (html.h), so titles and
 * labels are escaped.
 */
#ifndef SC_REPORT_SVG_H
#define SC_REPORT_SVG_H

#include "html.h"

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

/* y over x, points joined by a line; log2x: a log2 x axis (message sizes). */
void sc_svg_xy(sc_html *out, const char *title, const char *xlabel, const char *yunit,
               const double *x, const double *y, size_t n, bool log2x);

/* The CPUs 0..ncpus-1 as boxes: in_list[cpu] shades the card's CPUs, label[cpu] (may be
   NULL) names the threads found there. */
void sc_svg_cpus(sc_html *out, const char *title, size_t ncpus, const bool *in_list,
                 const char *const *label);

/* The heatmaps are drawn up to this many nodes (a cell stays readable). */
#define SC_SVG_HEATMAP_MAX 64

/*
 * An n x n matrix (cells[i * n + j]; NaN: not measured) as a heatmap, rows and columns named
 * by names; each cell shaded from red (worst) to green (best) in the figure's direction,
 * its value in its tooltip. More than SC_SVG_HEATMAP_MAX nodes: a line says so instead.
 */
void sc_svg_heatmap(sc_html *out, const char *title, const char *unit, const char *const *names,
                    size_t n, const double *cells, bool higher_better);

#endif
