/*
 * history_page.c: `streamcard history report -o FILE`: one self-contained page (inline CSS
 * and SVG, no script, nothing from a network) with a trend per series: every bundle's
 * median and 95% interval, the change points marked (confirmed solid, suspect dashed) and
 * listed with the ratio across them and what differs. The plots take the window's width.
 * Written through the page's writer (html.h): every text escaped, a strict
 * Content-Security-Policy, the file whole or not at all (outfile.h).
 */
#include "cli.h"
#include "history_cli.h"
#include "outfile.h"
#include "svg_trend.h"

#include "sc_changepoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SC__CSS                                                                                    \
    "body{font:14px/1.4 sans-serif;margin:24px;color:#1a202c;max-width:none}"                      \
    "h1{font-size:22px}h2{font-size:17px;border-bottom:2px solid #cbd5e0;margin-top:32px}"         \
    "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #e2e8f0;padding:3px 8px;"  \
    "text-align:left;font-size:13px}.note{color:#4a5568;font-size:13px}"                           \
    "svg.wide{display:block;width:100%;height:auto;margin:8px 0}"                                  \
    "svg text{font:12px sans-serif;fill:#1a202c}svg text.ttl{font-weight:bold}"                    \
    ".grid{stroke:#e2e8f0}.series{fill:none;stroke:#90cdf4;stroke-width:1.5}"                      \
    ".pt{fill:#3182ce}.whisker{stroke:#1a202c;stroke-width:1}"                                     \
    ".cp{stroke-width:2}.cp.confirmed{stroke:#c53030}.cp.suspect{stroke:#dd6b20;"                  \
    "stroke-dasharray:6 4}text.cplabel.confirmed{fill:#c53030;font-weight:bold}"                   \
    "text.cplabel.suspect{fill:#dd6b20}.confirmed{color:#c53030;font-weight:bold}"                 \
    ".suspect{color:#dd6b20;font-weight:bold}"

static void sc__series(sc_html *out, const sc_history_series *s, const sc_history_check_opts *o,
                       size_t index)
{
    sc_history_change ch[SC_CHANGEPOINT_MAX];
    sc_svg_change marks[SC_CHANGEPOINT_MAX];
    char labels[SC_CHANGEPOINT_MAX][96], first[32], last[32], *title = NULL;
    sc_svg_point *pts = calloc(s->n ? s->n : 1, sizeof(*pts));
    int n = sc_history_changes(s, o->alpha, o->bound_pct, ch, SC_CHANGEPOINT_MAX);
    char *key = sc_history_series_key(s);

    if (!pts || !key || asprintf(&title, "%s (%s, %s is better)", key, s->unit, s->better) < 0) {
        free(pts);
        free(key);
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        pts[i] = (sc_svg_point){s->p[i].name, s->p[i].median, s->p[i].ci, s->p[i].ci_low,
                                s->p[i].ci_high};
    for (int k = 0; k < n; k++) {
        snprintf(labels[k], sizeof(labels[k]), "%s: %s x%.3g",
                 ch[k].confirmed ? "confirmed" : "suspect", ch[k].verdict, ch[k].ratio);
        marks[k] = (sc_svg_change){ch[k].at, ch[k].confirmed, labels[k]};
    }
    sc_history_time(s->n ? s->p[0].ended_at : -1, first, sizeof(first));
    sc_history_time(s->n ? s->p[s->n - 1].ended_at : -1, last, sizeof(last));
    char note[256];
    snprintf(note, sizeof(note),
             "%zu bundles; %d change point%s (Pettitt's test, level %g; confirmed: 6 bundles a "
             "side and the ratio's interval beyond +-%g%%)",
             s->n, n < 0 ? 0 : n, n == 1 ? "" : "s", o->alpha, o->bound_pct);
    sc_html_tag(out, "<h2 id=\"s");
    sc_html_int(out, "%lld", index);
    sc_html_tag(out, "\">");
    sc_html_text(out, key);
    sc_html_tag(out, "</h2>\n<p class=\"note\">");
    sc_html_text(out, note);
    sc_html_tag(out, "</p>\n");
    sc_svg_trend(out, title, s->unit, pts, s->n, marks, n > 0 ? (size_t)n : 0, first, last);
    if (n > 0) {
        sc_html_tag(out, "<table class=\"changes\"><tr><th>status</th><th>first after</th>"
                         "<th>ended</th><th>verdict</th><th>after/before</th><th>95% interval</th>"
                         "<th>bundles before, after</th></tr>\n");
        for (int k = 0; k < n; k++) {
            char when[32], buf[128];
            sc_history_time(s->p[ch[k].at].ended_at, when, sizeof(when));
            const char *status = ch[k].confirmed ? "confirmed" : "suspect";
            sc_html_tag(out, "<tr><td");
            sc_html_attr(out, "class", status);
            sc_html_tag(out, ">");
            sc_html_text(out, status);
            sc_html_tag(out, "</td><td>");
            sc_html_text(out, s->p[ch[k].at].name);
            sc_html_tag(out, "</td><td>");
            sc_html_text(out, when);
            sc_html_tag(out, "</td><td>");
            sc_html_text(out, ch[k].verdict);
            if (ch[k].ci)
                snprintf(buf, sizeof(buf), "[%.4g, %.4g]", ch[k].ci_low, ch[k].ci_high);
            else
                snprintf(buf, sizeof(buf), "unavailable");
            sc_html_tag(out, "</td><td>");
            sc_html_num(out, "%.4g", ch[k].ratio);
            sc_html_tag(out, "</td><td>");
            sc_html_text(out, buf);
            sc_html_tag(out, "</td><td>");
            sc_html_int(out, "%lld", ch[k].at - ch[k].lo);
            sc_html_tag(out, ", ");
            sc_html_int(out, "%lld", ch[k].hi - ch[k].at);
            sc_html_tag(out, "</td></tr>\n");
        }
        sc_html_tag(out, "</table>\n<p class=\"note\">What differs between the bundles on the "
                         "two sides: streamcard history check --all.</p>\n");
    }
    free(title);
    free(key);
    free(pts);
}

int sc_history_report(sc_history *h, const sc_history_set *set, const sc_history_check_opts *o,
                      const char *output)
{
    sc_outfile file;
    sc_html *out = NULL;
    char why[4096 + 256], note[256];
    int rc;

    (void)h;
    if (sc_outfile_open(&file, output, why, sizeof(why)) < 0 || !(out = sc_html_open(file.f))) {
        if (file.f)
            snprintf(why, sizeof(why), "%s: %s", output, strerror(ENOMEM));
        fprintf(stderr, "streamcard: history report: %s\n", why);
        sc_outfile_abort(&file);
        return SC_EXIT_ERROR;
    }
    sc_html_head(out, "streamcard history", SC__CSS);
    snprintf(note, sizeof(note),
             "%zu series. Each point is a bundle's median over its runs, its whisker the 95%% "
             "interval of that median; a vertical line marks a change point.",
             set->n);
    sc_html_tag(out, "<p class=\"note\">");
    sc_html_text(out, note);
    sc_html_tag(out, "</p>\n");
    for (size_t i = 0; i < set->n; i++)
        sc__series(out, &set->s[i], o, i);
    sc_html_tail(out);
    if ((rc = sc_html_close(out)) < 0) {
        fprintf(stderr, "streamcard: history report: %s: %s\n", output, strerror(-rc));
        sc_outfile_abort(&file);
        return SC_EXIT_ERROR;
    }
    if (sc_outfile_commit(&file, why, sizeof(why)) < 0) {
        fprintf(stderr, "streamcard: history report: %s\n", why);
        return SC_EXIT_ERROR;
    }
    return SC_EXIT_OK;
}
