/*
 * history_page.c: `streamcard history report -o FILE`: one self-contained page (inline CSS
 * and SVG, no script, nothing from a network) with a trend per series: every bundle's
 * median and 95% interval, the change points marked (confirmed solid, suspect dashed) and
 * listed with the ratio across them and what differs. The plots take the window's width.
 * Every text goes through sc_html_escape().
 */
#include "cli.h"
#include "history_cli.h"
#include "html.h"
#include "svg_trend.h"

#include "sc_changepoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char sc__css[] =
    "body{font:14px/1.4 sans-serif;margin:24px;color:#1a202c;max-width:none}"
    "h1{font-size:22px}h2{font-size:17px;border-bottom:2px solid #cbd5e0;margin-top:32px}"
    "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #e2e8f0;padding:3px 8px;"
    "text-align:left;font-size:13px}.note{color:#4a5568;font-size:13px}"
    "svg.wide{display:block;width:100%;height:auto;margin:8px 0}"
    "svg text{font:12px sans-serif;fill:#1a202c}svg text.ttl{font-weight:bold}"
    ".grid{stroke:#e2e8f0}.series{fill:none;stroke:#90cdf4;stroke-width:1.5}"
    ".pt{fill:#3182ce}.whisker{stroke:#1a202c;stroke-width:1}"
    ".cp{stroke-width:2}.cp.confirmed{stroke:#c53030}.cp.suspect{stroke:#dd6b20;"
    "stroke-dasharray:6 4}text.cplabel.confirmed{fill:#c53030;font-weight:bold}"
    "text.cplabel.suspect{fill:#dd6b20}.confirmed{color:#c53030;font-weight:bold}"
    ".suspect{color:#dd6b20;font-weight:bold}";

static void sc__series(FILE *out, const sc_history_series *s, const sc_history_check_opts *o,
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
    fprintf(out, "<h2 id=\"s%zu\">", index);
    sc_html_escape(out, key);
    fprintf(out, "</h2>\n<p class=\"note\">%zu bundles; ", s->n);
    fprintf(out,
            "%d change point%s (Pettitt's test, level %g; confirmed: 6 bundles a side and "
            "the ratio's interval beyond +-%g%%)</p>\n",
            n < 0 ? 0 : n, n == 1 ? "" : "s", o->alpha, o->bound_pct);
    sc_svg_trend(out, title, s->unit, pts, s->n, marks, n > 0 ? (size_t)n : 0, first, last);
    if (n > 0) {
        fputs("<table class=\"changes\"><tr><th>status</th><th>first after</th><th>ended</th>"
              "<th>verdict</th><th>after/before</th><th>95% interval</th><th>bundles before, "
              "after</th></tr>\n",
              out);
        for (int k = 0; k < n; k++) {
            char when[32], buf[128];
            sc_history_time(s->p[ch[k].at].ended_at, when, sizeof(when));
            fprintf(out, "<tr><td class=\"%s\">%s</td><td>",
                    ch[k].confirmed ? "confirmed" : "suspect",
                    ch[k].confirmed ? "confirmed" : "suspect");
            sc_html_escape(out, s->p[ch[k].at].name);
            fprintf(out, "</td><td>%s</td><td>", when);
            sc_html_escape(out, ch[k].verdict);
            if (ch[k].ci)
                snprintf(buf, sizeof(buf), "[%.4g, %.4g]", ch[k].ci_low, ch[k].ci_high);
            else
                snprintf(buf, sizeof(buf), "unavailable");
            fprintf(out, "</td><td>%.4g</td><td>%s</td><td>%zu, %zu</td></tr>\n", ch[k].ratio, buf,
                    ch[k].at - ch[k].lo, ch[k].hi - ch[k].at);
        }
        fputs("</table>\n<p class=\"note\">What differs between the bundles on the two sides: "
              "streamcard history check --all.</p>\n",
              out);
    }
    free(title);
    free(key);
    free(pts);
}

int sc_history_report(sc_history *h, const sc_history_set *set, const sc_history_check_opts *o,
                      const char *output)
{
    char *tmp = NULL;
    FILE *out;

    (void)h;
    if (asprintf(&tmp, "%s.tmp", output) < 0)
        return SC_EXIT_ERROR;
    if (!(out = fopen(tmp, "w"))) {
        fprintf(stderr, "streamcard: history report: %s: %s (valid: a writable folder)\n", tmp,
                strerror(errno));
        free(tmp);
        return SC_EXIT_ERROR;
    }
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\">"
            "<title>streamcard history</title><style>%s</style></head><body>\n"
            "<h1>streamcard history</h1>\n<p class=\"note\">%zu series. Each point is a "
            "bundle's median over its runs, its whisker the 95%% interval of that median; a "
            "vertical line marks a change point.</p>\n",
            sc__css, set->n);
    for (size_t i = 0; i < set->n; i++)
        sc__series(out, &set->s[i], o, i);
    fputs("</body></html>\n", out);
    if (fclose(out) != 0 || rename(tmp, output) < 0) {
        fprintf(stderr, "streamcard: history report: %s: %s\n", output, strerror(errno));
        unlink(tmp);
        free(tmp);
        return SC_EXIT_ERROR;
    }
    free(tmp);
    return SC_EXIT_OK;
}
