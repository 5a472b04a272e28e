/*
 * report_html.h: the page of `streamcard report` (report_html.c), with its plots from
 * report_svg.c, written through the page writer of html.h. The page is self-contained: inline
 * CSS and SVG, no script, nothing fetched from a network (its Content-Security-Policy says
 * so to the browser too).
 */
#ifndef SC_REPORT_HTML_H
#define SC_REPORT_HTML_H

#include "analysis.h"
#include "html.h"

/* Writes the whole page for n loaded bundles (some may be unusable: shown as refused).
   metric: the one metric to compare (--metric), or NULL for the first card's. */
void sc_report_html(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric);

/*
 * The page in three parts, for a report that keeps only what its summary and comparison
 * read (sc_facts_drop_detail) once each bundle's own section is written: the head (title,
 * summary, comparison of the n bundles), the section of bundle index, then the tail.
 */
/* ao: how the comparison judges (the contamination limit, the noise bound); NULL: the
   defaults (SC_ANALYSIS_OPTS_DEFAULT). */
void sc_report_html_head(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric,
                         const sc_analysis_opts *ao);
void sc_report_html_bundle(sc_html *out, const sc_analysis_bundle *ab, size_t index);
void sc_report_html_tail(sc_html *out);
/* The page's head (its style) and title, for any page of the report (a study's too). */
void sc_report_html_open(sc_html *out, const char *title);

#endif
