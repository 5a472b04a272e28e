/*
 * study_page.c: `streamcard report STUDY -o page.html`: a study drawn (doc/design.md,
 * "Ablation studies"): one bar per row with its 95% interval as whiskers, the baseline as a
 * dashed line, each step alone and the steps in sequence side by side, then the table.
 * The record is checked first (sc_study_load()); a record that fails is shown REFUSED with
 * its problems and no bars.
 */
#include "cli.h"
#include "html.h"
#include "report_html.h"
#include "report_svg.h"
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

static double sc__num(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
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

static void sc__page(FILE *out, const char *path, json_object *record, const sc_diag *problems)
{
    json_object *rows = NULL;
    sc_svg_bar alone[SC__PAGE_ROWS], seq[SC__PAGE_ROWS];
    char title[512];

    sc_report_html_open(out, "streamcard study");
    fputs("<p class=\"note\">", out);
    sc_html_escape(out, path);
    fputs("</p>\n", out);
    if (problems->count) {
        fputs("<p class=\"fail\">REFUSED: the record does not verify</p>\n<pre>", out);
        for (size_t i = 0; i < problems->count; i++) {
            sc_html_escape(out, problems->lines[i]);
            fputc('\n', out);
        }
        fputs("</pre>\n", out);
        return;
    }
    json_object_object_get_ex(record, "rows", &rows);
    const char *metric = sc__str(record, "metric"), *unit = sc__str(record, "unit");
    const char *better = sc__str(record, "better");
    size_t na = sc__bars(rows, "alone", alone), ns = sc__bars(rows, "sequence", seq);
    double base = na ? alone[0].value : -1;
    fprintf(out, "<h2>%s (%s, %s is better)</h2>\n", metric ? metric : "?", unit ? unit : "?",
            better ? better : "?");
    fputs("<p class=\"note\">Bars: the median over the row's runs; whiskers: its 95% interval; "
          "dashed line: the baseline's median; red: worse than the baseline or the row "
          "before.</p>\n<div class=\"side\">",
          out);
    snprintf(title, sizeof(title), "Each step alone (%s)", metric ? metric : "");
    sc_svg_bars_ref(out, title, unit ? unit : "", alone, na, base);
    snprintf(title, sizeof(title), "The steps in sequence (%s)", metric ? metric : "");
    sc_svg_bars_ref(out, title, unit ? unit : "", seq, ns, base);
    fputs("</div>\n<h2>Rows</h2>\n<table><tr><th>row</th><th>verdict</th><th>median</th>"
          "<th>95% interval</th><th>vs baseline</th><th>bundle</th></tr>\n",
          out);
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        json_object *o = json_object_array_get_idx(rows, i), *c;
        const char *verdict = sc__str(o, "verdict");
        fputs("<tr><td>", out);
        sc_html_escape(out, sc__str(o, "label"));
        fprintf(out, "</td><td class=\"%s\">", verdict && !strcmp(verdict, "ok") ? "ok" : "fail");
        sc_html_escape(out, verdict);
        if (sc__str(o, "why")) {
            fputs(": ", out);
            sc_html_escape(out, sc__str(o, "why"));
        }
        if (json_object_object_get_ex(o, "ci_low", &c))
            fprintf(out, "</td><td>%.4g</td><td>[%.4g, %.4g]</td><td>", sc__num(o, "median"),
                    sc__num(o, "ci_low"), sc__num(o, "ci_high"));
        else if (json_object_object_get_ex(o, "median", &c))
            fprintf(out, "</td><td>%.4g</td><td>none (fewer than 6 runs)</td><td>",
                    sc__num(o, "median"));
        else
            fputs("</td><td>-</td><td>-</td><td>", out);
        if (json_object_object_get_ex(o, "vs_baseline", &c) && sc__str(c, "verdict")) {
            fprintf(out, "%+.1f%%, ", sc__num(c, "change_pct"));
            sc_html_escape(out, sc__str(c, "verdict"));
        }
        fputs("</td><td class=\"mono\">", out);
        sc_html_escape(out, sc__str(o, "bundle"));
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
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
    FILE *out = strcmp(output, "-") == 0 ? stdout : fopen(output, "w");
    if (!out) {
        fprintf(stderr, "streamcard: report: %s: %s (valid: a writable file)\n", output,
                strerror(errno));
        status = SC_EXIT_ERROR;
    } else {
        sc__page(out, path, record, &problems);
        sc_report_html_tail(out);
        if ((out == stdout ? fflush(out) : fclose(out)) != 0)
            status = SC_EXIT_ERROR;
    }
    json_object_put(record);
    sc_diag_free(&problems);
    return status;
}
