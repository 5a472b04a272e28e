/*
 * report_figures.c: the report's sections drawn from a bundle's figures (see report_parts.h):
 * the runs of each headline metric, the rates within one run, MPI latency and bandwidth per
 * message size, a link matrix with health's verdict, and the comparison's plots. Plots in a
 * "grid" sit side by side and take the window's width (the page's CSS, report_html.c).
 */
#include "report_parts.h"
#include "report_svg.h"
#include "sc_card.h"
#include "sc_linkmatrix.h"
#include "svg_trend.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sc_report_stats(const sc_bundle_facts *f, const sc_metric *m, sc_stats *s)
{
    double *v = NULL;
    size_t n = sc_analysis_samples(f, m, &v);
    int rc = n ? sc_stats_describe(v, n, s) : -ENOENT;

    free(v);
    return rc;
}

size_t sc_report_runs_of(const sc_bundle_facts *f)
{
    sc_stats s;

    return f->n_headline && sc_report_stats(f, &f->headline[0], &s) == 0 ? s.n : 1;
}

/* <td> with v to 4 significant digits ("-": not a figure). */
static void sc__td_sig(sc_html *out, double v)
{
    sc_html_tag(out, "<td class=\"num\">");
    if (isfinite(v))
        sc_html_sig(out, 4, v);
    else
        sc_html_tag(out, "-");
    sc_html_tag(out, "</td>");
}

/* <td>[lo, hi]</td> of a statistic, or why there is none. */
static void sc__td_ci(sc_html *out, const sc_stats *s, bool have)
{
    sc_html_tag(out, "<td class=\"num\">");
    if (have && s->ci) {
        sc_html_tag(out, "[");
        sc_html_sig(out, 4, s->ci_low);
        sc_html_tag(out, ", ");
        sc_html_sig(out, 4, s->ci_high);
        sc_html_tag(out, "]");
    } else if (have) {
        sc_html_tag(out, "<span class=\"na\">");
        sc_html_int(out, "%lld", s->n);
        if (s->n == 1)
            sc_html_tag(out, " run</span>");
        else
            sc_html_tag(out, " runs: none</span>");
    } else {
        sc_html_tag(out, "-");
    }
    sc_html_tag(out, "</td>");
}

void sc_report_runs(sc_html *out, const sc_bundle_facts *f)
{
    size_t runs = sc_report_runs_of(f);
    char title[160];

    if (!f->n_headline)
        return;
    sc_html_tag(out, "<h3>Runs</h3>\n");
    if (runs < 2) {
        sc_html_tag(out, "<p class=\"note\">One run: its figures are the run's own, with no "
                         "median over runs and no interval (a card of runs: 6 or more gives "
                         "one).</p>\n");
        return;
    }
    sc_html_tag(out, "<p class=\"note\">The card ran ");
    sc_html_int(out, "%lld", runs);
    sc_html_tag(out, " times. Each dot is one run's figure, in the order the runs ran; the line is "
                     "their median and the band its 95% interval (order statistics, "
                     "distribution-free). The summary and the comparison show these medians.</p>\n"
                     "<div class=\"plots\">\n");
    for (size_t k = 0; k < f->n_headline; k++) {
        const sc_metric *m = &f->headline[k];
        double *v = NULL;
        size_t n = sc_analysis_samples(f, m, &v);
        sc_stats s;
        if (n && sc_stats_describe(v, n, &s) == 0) {
            snprintf(title, sizeof(title), "%s over %zu runs (%s, %s is better)", m->name, n,
                     m->unit, m->better == SC_METRIC_HIGHER ? "higher" : "lower");
            sc_html_tag(out, "<div>");
            sc_svg_strip(out, title, m->unit, v, n, s.median, s.ci, s.ci_low, s.ci_high);
            sc_html_tag(out, "</div>\n");
        }
        free(v);
    }
    sc_html_tag(out, "</div>\n");
}

/*
 * The rate of every repetition of each function: bytes / its time, that is best rate * min
 * time / its time. The warm-up (repetition 0) is left out, as STREAM's statistics do.
 */
static void sc__rep_rates(sc_html *out, const sc_bundle_facts *f, const char *which)
{
    for (size_t i = 0; i < f->n_rates; i++) {
        const sc_fact_rate *r = &f->rates[i];
        if (r->n_rep < 2 || r->min_s <= 0)
            continue;
        double *x = calloc(r->n_rep, sizeof(double)), *y = calloc(r->n_rep, sizeof(double));
        size_t n = 0;
        for (size_t rep = 1; x && y && rep < r->n_rep; rep++) {
            if (r->rep_s[rep] <= 0)
                continue;
            x[n] = (double)rep;
            y[n++] = r->MBps * r->min_s / r->rep_s[rep];
        }
        char title[128];
        snprintf(title, sizeof(title), "%s: rate of every repetition of %s", r->name, which);
        if (n) {
            sc_html_tag(out, "<div>");
            sc_svg_xy(out, title, "repetition (the warm-up, 0, left out)", f->rate_unit, x, y, n);
            sc_html_tag(out, "</div>\n");
        }
        free(x);
        free(y);
    }
}

void sc_report_rates(sc_html *out, const sc_bundle_facts *f)
{
    sc_svg_bar bars[8];
    size_t runs = sc_report_runs_of(f);
    bool reps = false;
    char which[48], title[160];

    if (!f->n_rates)
        return;
    if (runs > 1)
        snprintf(which, sizeof(which), "run 1 of %zu", runs);
    else
        snprintf(which, sizeof(which), "the run");
    sc_html_tag(out, "<h3>Rates within ");
    sc_html_text(out, which);
    sc_html_tag(out, "</h3>\n<p class=\"note\">");
    if (runs > 1) {
        sc_html_tag(out, "The workload's own figures of its first run (run-1/): the best, average "
                         "and slowest of that run's repetitions. They are one run's, not the "
                         "median over the ");
        sc_html_int(out, "%lld", runs);
        sc_html_tag(out, " runs that the summary, the comparison and Runs show.</p>\n");
    } else {
        sc_html_tag(out, "The workload's own figures of the run: the best, average and slowest of "
                         "its repetitions.</p>\n");
    }
    sc_html_tag(out, "<table><tr><th>function</th><th>best ");
    sc_html_text(out, f->rate_unit);
    sc_html_tag(out, " in ");
    sc_html_text(out, which);
    sc_html_tag(out, "</th><th>avg s</th><th>min s</th><th>max s</th></tr>\n");
    for (size_t i = 0; i < f->n_rates; i++) {
        const sc_fact_rate *r = &f->rates[i];
        sc_html_tag(out, "<tr><td>");
        sc_html_text(out, r->name);
        sc_html_tag(out, "</td>");
        sc__td_sig(out, r->MBps);
        sc__td_sig(out, r->avg_s);
        sc__td_sig(out, r->min_s);
        sc__td_sig(out, r->max_s);
        sc_html_tag(out, "</tr>\n");
        /* Rate of an iteration = bytes / its time = best rate * min time / its time. */
        bars[i] = (sc_svg_bar){r->name, r->MBps, r->max_s > 0 ? r->MBps * r->min_s / r->max_s : 0,
                               r->avg_s > 0 ? r->MBps * r->min_s / r->avg_s : 0, false};
        reps |= r->n_rep >= 2;
    }
    sc_html_tag(out, "</table>\n<div class=\"plots\"><div>");
    snprintf(title, sizeof(title), "Best rate per function in %s; whisker: slowest to average",
             which);
    sc_svg_bars(out, title, f->rate_unit, bars, f->n_rates);
    sc_html_tag(out, "</div>\n");
    sc__rep_rates(out, f, which);
    sc_html_tag(out, "</div>\n");
    if (!reps)
        sc_html_tag(
            out,
            "<p class=\"note\">This bundle has no per-repetition times: the whisker above spans "
            "the rates of the slowest and the average repetition (from max and avg time).</p>\n");
}

/* The nodes to drain and suspect links of one metric of the matrix (the latency at the
   smallest size or the bandwidth at the largest): marked in drain (per node, when the
   passes' vote holds) and suspect (per cell), and said as health says them. Returns 0, 1
   (cannot judge: too few nodes) or -errno. */
static int sc__judge(sc_html *out, const sc_linkmatrix_data *d, const char *metric, bool latency,
                     const sc_card *card, bool *drain, bool *suspect, size_t *n_nodes)
{
    sc_linkmatrix_votes v;
    char why[512], vote[128];
    int rc = sc_analysis_matrix_votes(d, latency, card, &v);

    if (rc < 0)
        return rc;
    *n_nodes = v.n_nodes;
    for (size_t i = 0; i < v.n; i++) {
        const sc_linkmatrix_finding *f = &v.votes[i].f;
        bool holds = sc_linkmatrix_vote_holds(&v.votes[i], v.passes);
        sc_analysis_finding_text(f, metric, latency ? "us" : "MB/s", why, sizeof(why));
        sc_analysis_vote_text(&v.votes[i], v.passes, vote, sizeof(vote));
        sc_html_tag(out, "<li><span class=\"fail\">");
        if (f->kind == SC_LINKMATRIX_NODE) {
            drain[f->a] |= holds;
            if (holds)
                sc_html_tag(out, "drain ");
            else
                sc_html_tag(out, "suspect ");
            sc_html_text(out, d->nodes[f->a]);
        } else {
            suspect[f->a * d->n + f->b] = suspect[f->b * d->n + f->a] = true;
            sc_html_tag(out, "suspect link ");
            sc_html_text(out, d->nodes[f->a]);
            sc_html_tag(out, " ");
            sc_html_text(out, d->nodes[f->b]);
        }
        sc_html_tag(out, "</span>: ");
        if (!holds)
            sc_html_tag(out, "re-test: ");
        sc_html_text(out, why);
        sc_html_tag(out, " (");
        sc_html_text(out, vote);
        sc_html_tag(out, ")</li>\n");
    }
    rc = v.judged ? 0 : 1;
    sc_linkmatrix_votes_free(&v);
    return rc;
}

/* pairs: all: the latency at the smallest size and the bandwidth at the largest, per node
   pair, as heatmaps with health's verdict (doc/contracts/analysis.md, "Link matrix"). */
static void sc__link_matrix(sc_html *out, const sc_bundle_facts *f)
{
    sc_linkmatrix_data d;
    char why[256], metric[2][48], size[24];
    json_object *kernel = NULL;
    sc_card *card = sc_card_new();

    if (!card || sc_analysis_matrix_load(f, &d, why, sizeof(why)) != 0) {
        sc_card_free(card);
        return;
    }
    bool pingpong = !json_object_object_get_ex(f->results, "kernel", &kernel) ||
                    strcmp(json_object_get_string(kernel), "uniband") != 0;
    const double *grid[2] = {d.t_usec, d.MBps + (d.n_sizes - 1) * d.n * d.n};
    bool *drain = calloc(2 * d.n + 1, sizeof(bool)), *suspect = calloc(2 * d.n * d.n + 1, 1);
    size_t n_nodes = 0;
    int judged = 0;

    sc_metric_size_name(d.bytes[0], size, sizeof(size));
    snprintf(metric[0], sizeof(metric[0]), "latency_%s", size);
    sc_metric_size_name(d.bytes[d.n_sizes - 1], size, sizeof(size));
    snprintf(metric[1], sizeof(metric[1]), "bw_%s", size);
    sc_analysis_link_bounds(f, card);
    sc_html_tag(out, "<h3>Link matrix</h3>\n<p>");
    sc_html_int(out, "%lld", d.n);
    sc_html_tag(out, " nodes, every pair in ");
    sc_html_int(out, "%lld", d.rounds);
    sc_html_tag(out, " rounds of disjoint pairs, ");
    sc_html_num(out, "%.2f", d.total_seconds);
    sc_html_tag(out, " s in all. The verdict, as streamcard health gives it (outlier_mad ");
    sc_html_num(out, "%g", card->outlier_mad);
    sc_html_tag(out, ", outlier_min_pct ");
    sc_html_num(out, "%g", card->outlier_min_pct);
    sc_html_tag(out, "):</p>\n<ul class=\"verdict\">\n");
    for (int k = pingpong ? 0 : 1; drain && suspect && k < 2; k++) {
        int rc = sc__judge(out, &d, metric[k], k == 0, card, drain + k * d.n,
                           suspect + k * d.n * d.n, &n_nodes);
        judged = rc < 0 ? rc : judged > 0 ? judged : rc;
    }
    bool named = false;
    for (size_t i = 0; drain && suspect && i < 2 * d.n * d.n; i++)
        named |= (i < 2 * d.n && drain[i]) || suspect[i];
    if (judged == 1) {
        sc_html_tag(out, "<li><span class=\"na\">cannot judge</span>: ");
        sc_html_int(out, "%lld", n_nodes);
        sc_html_tag(out, " nodes measured (valid: 4 or more)</li>\n");
    } else if (judged == 0 && !named) {
        sc_html_tag(out, "<li><span class=\"ok\">ok</span>: no node to drain and no suspect "
                         "link</li>\n");
    }
    sc_html_tag(out, "</ul>\n<div class=\"plots\">\n");
    for (int k = pingpong ? 0 : 1; drain && suspect && k < 2; k++) {
        char title[192];
        snprintf(title, sizeof(title), "%s per node pair: %s (%s is better)",
                 k ? "Bandwidth" : "Latency", metric[k], k ? "higher" : "lower");
        sc_svg_heat h = {title,  k ? "MB/s" : "us", (const char *const *)d.nodes, d.n, grid[k],
                         k == 1, drain + k * d.n,   suspect + k * d.n * d.n};
        sc_html_tag(out, "<div>");
        sc_svg_heatmap(out, &h);
        sc_html_tag(out, "</div>\n");
    }
    sc_html_tag(out, "</div>\n");
    free(drain);
    free(suspect);
    sc_linkmatrix_data_free(&d);
    sc_card_free(card);
}

/* One metric of one message size: the statistics over runs, or the figure results.json
   gives for that size when the registry holds no runs of it (a single record). */
static bool sc__size_stats(const sc_bundle_facts *f, const char *family, unsigned long long bytes,
                           double fallback, sc_stats *s)
{
    char name[SC_METRIC_NAME_MAX], size[24];
    sc_metric m;

    sc_metric_size_name(bytes, size, sizeof(size));
    snprintf(name, sizeof(name), "%s_%s", family, size);
    if (sc_metric_lookup(name, &m) == 0 && sc_report_stats(f, &m, s) == 0)
        return true;
    return fallback > 0 && sc_stats_describe(&fallback, 1, s) == 0;
}

void sc_report_mpi(sc_html *out, const sc_bundle_facts *f)
{
    size_t n = f->n_sizes, runs = sc_report_runs_of(f), n_lat = 0;
    double *v = calloc(6 * (n ? n : 1), sizeof(double));
    sc_stats *lat = calloc(n ? n : 1, sizeof(*lat)), *bw = calloc(n ? n : 1, sizeof(*bw));
    bool *has = calloc(2 * (n ? n : 1), sizeof(bool));

    if (!n || !v || !lat || !bw || !has)
        goto out;
    double *x = v, *ly = v + n, *ll = v + 2 * n, *lh = v + 3 * n, *by = v + 4 * n, *bl = v + 5 * n;
    double *bh = calloc(n, sizeof(double));
    if (!bh)
        goto out;
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)f->sizes[i].bytes;
        has[i] = sc__size_stats(f, "latency", f->sizes[i].bytes, f->sizes[i].t_usec, &lat[i]);
        has[n + i] = sc__size_stats(f, "bw", f->sizes[i].bytes, f->sizes[i].MBps, &bw[i]);
        ly[n_lat] = has[i] ? lat[i].median : NAN;
        ll[n_lat] = has[i] && lat[i].ci ? lat[i].ci_low : NAN;
        lh[n_lat] = has[i] && lat[i].ci ? lat[i].ci_high : NAN;
        n_lat += has[i];
        by[i] = has[n + i] ? bw[i].median : NAN;
        bl[i] = has[n + i] && bw[i].ci ? bw[i].ci_low : NAN;
        bh[i] = has[n + i] && bw[i].ci ? bw[i].ci_high : NAN;
    }
    sc_html_tag(out, "<h3>Latency and bandwidth per message size</h3>\n<p class=\"note\">");
    if (runs > 1) {
        sc_html_tag(out, "The median over the ");
        sc_html_int(out, "%lld", runs);
        sc_html_tag(out, " runs at each size; the whisker its 95% interval (6 runs or more). ");
    } else {
        sc_html_tag(out, "The run's figure at each size (one run: no interval). ");
    }
    sc_html_tag(out, "Both axes are logarithmic; each point's figure is in its tooltip.</p>\n"
                     "<div class=\"plots\">\n");
    if (n_lat == n) {
        sc_svg_series s = {x, ly, ll, lh, n};
        sc_html_tag(out, "<div>");
        sc_svg_loglog(out, "MPI latency vs message size (lower is better)",
                      "message size (bytes, log scale)", "latency: half a round trip", "us", &s);
        sc_html_tag(out, "</div>\n");
    }
    sc_svg_series s = {x, by, bl, bh, n};
    sc_html_tag(out, "<div>");
    sc_svg_loglog(out, "MPI bandwidth vs message size (higher is better)",
                  "message size (bytes, log scale)", "bandwidth", "MB/s", &s);
    sc_html_tag(out, "</div>\n</div>\n<table><tr><th>bytes</th><th>size</th><th>latency us "
                     "(median)</th><th>95% interval</th><th>bandwidth MB/s (median)</th><th>95% "
                     "interval</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        char size[24];
        sc_metric_size_name(f->sizes[i].bytes, size, sizeof(size));
        sc_html_tag(out, "<tr><td>");
        sc_html_int(out, "%lld", f->sizes[i].bytes);
        sc_html_tag(out, "</td><td>");
        sc_html_text(out, size);
        sc_html_tag(out, "</td>");
        sc__td_sig(out, has[i] ? lat[i].median : NAN);
        sc__td_ci(out, &lat[i], has[i]);
        sc__td_sig(out, has[n + i] ? bw[i].median : NAN);
        sc__td_ci(out, &bw[i], has[n + i]);
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "</table>\n");
    free(bh);
out:
    free(v);
    free(lat);
    free(bw);
    free(has);
    sc__link_matrix(out, f);
}

void sc_report_compare_plots(sc_html *out, const sc_analysis_bundle *ab, size_t n,
                             const sc_metric *m, size_t nm, const sc_analysis_opts *ao)
{
    sc_svg_cmp_row *rows = calloc(n ? n : 1, sizeof(*rows));
    char(*labels)[300] = calloc(n ? n : 1, sizeof(*labels));
    char title[160];

    for (size_t k = 0; rows && labels && k < nm && k < 8; k++) {
        size_t shown = 0;
        for (size_t i = 0; i < n; i++) {
            sc_analysis_cmp c;
            if (sc_analysis_compare(&ab[0].facts, &ab[i].facts, &m[k], ao, &c) < 0)
                continue;
            snprintf(labels[shown], sizeof(labels[shown]), "%c: %s", (int)('A' + i % 26),
                     ab[i].facts.name);
            rows[shown] = (sc_svg_cmp_row){.label = labels[shown],
                                           .runs = c.sb.n,
                                           .median = c.sb.median,
                                           .ci = c.sb.ci,
                                           .lo = c.sb.ci_low,
                                           .hi = c.sb.ci_high,
                                           .has_ratio = i > 0 && c.r.ratio > 0,
                                           .ratio = c.r.ratio,
                                           .ratio_ci = c.r.ci,
                                           .ratio_lo = c.r.ci_low,
                                           .ratio_hi = c.r.ci_high,
                                           .verdict = c.verdict};
            shown++;
        }
        snprintf(title, sizeof(title), "%s: every bundle's runs against A's", m[k].name);
        if (shown > 1)
            sc_svg_compare(out, title, m[k].unit, m[k].better == SC_METRIC_HIGHER, rows, shown,
                           SC_ANALYSIS_NOISE_BOUND);
    }
    if (nm > 8)
        sc_html_tag(out, "<p class=\"note\">The first 8 metrics are drawn; the table above has "
                         "every one.</p>\n");
    free(rows);
    free(labels);
}
