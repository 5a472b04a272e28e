/*
 * report_parts.h: the sections of the report's page that report_html.c puts together and
 * report_figures.c draws from a bundle's figures: its runs, the rates within one run, the MPI
 * figures per message size and the link matrix, and the comparison's plots. Every statistic
 * is computed as compare and verify compute it (analysis.h, sc_stats.h).
 */
#ifndef SC_REPORT_PARTS_H
#define SC_REPORT_PARTS_H

#include "analysis.h"
#include "html.h"

/* The statistics of m over f's runs (the median, and its 95% interval from 6 runs). 0, or
   -ENOENT when f holds no value of m. */
int sc_report_stats(const sc_bundle_facts *f, const sc_metric *m, sc_stats *s);

/* How many runs the bundle holds (its first headline metric's values; 1 when none). */
size_t sc_report_runs_of(const sc_bundle_facts *f);

/* "Runs": each headline metric as a strip plot of its runs, their median and its interval. */
void sc_report_runs(sc_html *out, const sc_bundle_facts *f);
/* "Rates within run 1 of N": STREAM's (or the search's) own figures of one run and every
   repetition's rate, labelled so that one run's best is not taken for the median of runs. */
void sc_report_rates(sc_html *out, const sc_bundle_facts *f);
/* MPI: latency and bandwidth per message size on log-log axes (the median over the runs and
   its interval), their table, and a link matrix's heatmaps with health's verdict. */
void sc_report_mpi(sc_html *out, const sc_bundle_facts *f);

/* A valid comparison's plots: per metric (m, at most 8 drawn) every bundle's median and
   interval, and its ratio to the first with its interval and verdict. */
void sc_report_compare_plots(sc_html *out, const sc_analysis_bundle *ab, size_t n,
                             const sc_metric *m, size_t nm, const sc_analysis_opts *ao);

#endif
