/*
 * report.h: internal to `streamcard report`: the HTML page (report_html.c) and the inline
 * SVG plots it draws (report_svg.c). The page is self-contained: inline CSS and SVG, no
 * script, nothing fetched from a network.
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include "analysis.h"

#include <stdio.h>

/* Writes text with HTML's five escapes (& < > " '). */
void sc_html_escape(FILE *out, const char *text);

/* Writes the whole page for n loaded bundles (some may be unusable: shown as refused). */
void sc_report_html(FILE *out, const sc_analysis_bundle *ab, size_t n);

/* One bar of a bar chart: its label, its value and an optional range [lo, hi] (0, 0: none). */
typedef struct sc_svg_bar {
    const char *label;
    double value, lo, hi;
} sc_svg_bar;

/* Horizontal bars, each with its value printed; a range is drawn as a whisker. */
void sc_svg_bars(FILE *out, const char *title, const char *unit, const sc_svg_bar *bars, size_t n);

/* y over x, points joined by a line; log2x: a log2 x axis (message sizes). */
void sc_svg_xy(FILE *out, const char *title, const char *xlabel, const char *yunit,
               const double *x, const double *y, size_t n, bool log2x);

/* The CPUs 0..ncpus-1 as boxes: in_list[cpu] shades the card's CPUs, label[cpu] (may be
   NULL) names the threads found there. */
void sc_svg_cpus(FILE *out, const char *title, size_t ncpus, const bool *in_list,
                 const char *const *label);

#endif
