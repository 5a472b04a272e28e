/*
 * study_page.c: `streamcard report STUDY -o page.html`: a study drawn (doc/contracts/card.md,
 * "Ablation studies"): one bar per row with its 95% interval as whiskers, the baseline as a
 * dashed line, each step alone and the steps in sequence side by side, then the table.
 * The record is checked first (sc_study_load()); a record that fails is shown REFUSED with
 * its problems and no bars.
 */
#include "cli.h"
#include "outfile.h"
#include "report_html.h"
#include "report_svg.h"
#include "sc_num.h"
#include "study.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC__PAGE_ROWS 64 /* 2 x SC_ABLATION_MAX_STEPS */

static const char *sc__str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* A figure of the record (sc_num.h), 0 when there is none. */
static double sc__num(json_object *o, const char *key)
{
    double v;
    return sc_num_get(o, key, &v) == 0 ? v : 0;
}

/* Whether row o is worse than the baseline or, in sequence, than the row before. */
static bool sc__worse(json_object *o)
{
    json_object *c, *w;
    bool worse = false;

    for (int i = 0; i < 2; i++)
        if (json_object_object_get_ex(o, i ? "vs_previous" : "vs_baseline", &c) &&
            json_object_object_get_ex(c, "worse", &w))
            worse = worse || json_object_get_boolean(w);
    return worse;
}

/* The bars of the rows of kind (and the baseline first): median, interval. */
static size_t sc__bars(json_object *rows, const char *kind, sc_svg_bar *bars)
{
    size_t n = 0;

    for (size_t i = 0; i < json_object_array_length(rows) && n < SC__PAGE_ROWS; i++) {
        json_object *o = json_object_array_get_idx(rows, i);
        const char *k = sc__str(o, "kind"), *label = sc__str(o, "label");
        if (!k || !label ||
            (strcmp(k, "baseline") && strcmp(k, kind) &&
             !(!strcmp(kind, "sequence") && !strcmp(k, "alone") && sc__num(o, "step") == 1)))
            continue;
        bars[n] = (sc_svg_bar){label, sc__num(o, "median"), sc__num(o, "ci_low"),
                               sc__num(o, "ci_high"), sc__worse(o)};
        n++;
    }
    return n;
}

/* One figure of a cell: 4 significant digits, no exponent ("82655", "0.01230"). */
static void sc__g(sc_html *out, double v)
{
    sc_html_sig(out, 4, v);
}

/* The table of rows: label, verdict (and why), median, interval, change, bundle. */
static void sc__rows(sc_html *out, json_object *rows)
{
    sc_html_tag(out, "<h2>Rows</h2>\n<table><tr><th>row</th><th>verdict</th><th>median</th>"
                     "<th>95% interval</th><th>vs baseline</th><th>bundle</th></tr>\n");
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        json_object *o = json_object_array_get_idx(rows, i), *c;
        const char *verdict = sc__str(o, "verdict");
        sc_html_tag(out, "<tr><td>");
        sc_html_text(out, sc__str(o, "label"));
        sc_html_tag(out, "</td><td");
        sc_html_attr(out, "class", verdict && !strcmp(verdict, "ok") ? "ok" : "fail");
        sc_html_tag(out, ">");
        sc_html_text(out, verdict);
        if (sc__str(o, "why")) {
            sc_html_tag(out, ": ");
            sc_html_text(out, sc__str(o, "why"));
        }
        sc_html_tag(out, "</td><td>");
        if (json_object_object_get_ex(o, "median", &c)) {
            sc__g(out, sc__num(o, "median"));
            sc_html_tag(out, "</td><td>");
            if (json_object_object_get_ex(o, "ci_low", &c)) {
                sc_html_tag(out, "[");
                sc__g(out, sc__num(o, "ci_low"));
                sc_html_tag(out, ", ");
                sc__g(out, sc__num(o, "ci_high"));
                sc_html_tag(out, "]");
            } else {
                sc_html_tag(out, "none (fewer than 6 runs)");
            }
        } else {
            sc_html_tag(out, "-</td><td>-");
        }
        sc_html_tag(out, "</td><td>");
        if (json_object_object_get_ex(o, "vs_baseline", &c) && sc__str(c, "verdict")) {
            sc_html_num(out, "%+.1f", sc__num(c, "change_pct"));
            sc_html_tag(out, "%, ");
            sc_html_text(out, sc__str(c, "verdict"));
        }
        sc_html_tag(out, "</td><td class=\"mono\">");
        sc_html_text(out, sc__str(o, "bundle"));
        sc_html_tag(out, "</td></tr>\n");
    }
    sc_html_tag(out, "</table>\n");
}

/* The page of a record that holds (checked by sc_study_load()): its metric's name, unit and
   direction are the registry's (sc_metric.h), never the record's own words. */
static void sc__page(sc_html *out, const char *path, json_object *record, const sc_diag *problems)
{
    json_object *rows = NULL;
    sc_svg_bar alone[SC__PAGE_ROWS], seq[SC__PAGE_ROWS];
    sc_metric m;
    char title[512];

    sc_report_html_open(out, "streamcard study");
    sc_html_tag(out, "<p class=\"note\">");
    sc_html_text(out, path);
    sc_html_tag(out, "</p>\n");
    if (problems->count || !record || sc_study_record_metric(path, sc__str(record, "metric"), &m) < 0) {
        sc_html_tag(out, "<p class=\"fail\">REFUSED: the record does not verify</p>\n<pre>");
        for (size_t i = 0; i < problems->count; i++) {
            sc_html_text(out, problems->lines[i]);
            sc_html_tag(out, "\n");
        }
        sc_html_tag(out, "</pre>\n");
        return;
    }
    json_object_object_get_ex(record, "rows", &rows);
    const char *better = m.better == SC_METRIC_HIGHER ? "higher" : "lower";
    size_t na = sc__bars(rows, "alone", alone), ns = sc__bars(rows, "sequence", seq);
    double base = na ? alone[0].value : -1;
    snprintf(title, sizeof(title), "%s (%s, %s is better)", m.name, m.unit, better);
    sc_html_tag(out, "<h2>");
    sc_html_text(out, title);
    sc_html_tag(out, "</h2>\n");
    sc_html_tag(out, "<p class=\"note\">Bars: the median over the row's runs; whiskers: its 95% "
                     "interval; dashed line: the baseline's median; red: worse than the baseline "
                     "or the row before.</p>\n<div class=\"side\">");
    snprintf(title, sizeof(title), "Each step alone (%s)", m.name);
    sc_svg_bars_ref(out, title, m.unit, alone, na, base);
    snprintf(title, sizeof(title), "The steps in sequence (%s)", m.name);
    sc_svg_bars_ref(out, title, m.unit, seq, ns, base);
    sc_html_tag(out, "</div>\n");
    sc__rows(out, rows);
}

int sc_study_report(const char *path, const char *output)
{
    sc_diag problems;
    json_object *record = NULL;
    int status;

    sc_diag_init(&problems);
    if (sc_study_load(path, NULL, &problems, &record) < 0) {
        fprintf(stderr, "streamcard: report: %s: cannot open the study\n", path);
        sc_diag_free(&problems);
        return SC_EXIT_USAGE;
    }
    status = problems.count ? SC_EXIT_FAILED : SC_EXIT_OK;
    if (problems.count)
        sc_diag_print(&problems, "streamcard: report: ", stderr);
    sc_outfile out;
    char why[4096 + 256];
    sc_html *page = NULL;
    if (sc_outfile_open(&out, output, why, sizeof(why)) < 0 || !(page = sc_html_open(out.f))) {
        if (out.f)
            snprintf(why, sizeof(why), "%s: %s", output, strerror(ENOMEM));
        fprintf(stderr, "streamcard: report: %s\n", why);
        sc_outfile_abort(&out);
        status = SC_EXIT_ERROR;
    } else {
        sc__page(page, path, record, &problems);
        sc_report_html_tail(page);
        int rc = sc_html_close(page);
        if (rc < 0) {
            fprintf(stderr, "streamcard: report: %s: %s\n", output, strerror(-rc));
            sc_outfile_abort(&out);
            status = SC_EXIT_ERROR;
        } else if (sc_outfile_commit(&out, why, sizeof(why)) < 0) {
            fprintf(stderr, "streamcard: report: %s\n", why);
            status = SC_EXIT_ERROR;
        }
    }
    json_object_put(record);
    sc_diag_free(&problems);
    return status;
}
