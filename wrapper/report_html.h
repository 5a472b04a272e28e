/*
 * report_html.h: the page of `streamcard report` (report_html.c), with its plots from
 * report_svg.c. The page is self-contained: inline CSS and SVG, no script, nothing fetched
 * from a network.
 */
#ifndef SC_REPORT_HTML_H
#define SC_REPORT_HTML_H

#include "analysis.h"

#include <stdio.h>

/* Writes the whole page for n loaded bundles (some may be unusable: shown as refused).
   metric: the one metric to compare (--metric), or NULL for the first card's. */
void sc_report_html(FILE *out, const sc_analysis_bundle *ab, size_t n, const char *metric);

#endif
