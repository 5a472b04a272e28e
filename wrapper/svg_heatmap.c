/*
 * svg_heatmap.c: a link matrix as a heatmap (see report_svg.h): rows and columns named,
 * each pair's value in its cell, shaded from worst (red) to best (green), the nodes to
 * drain and the suspect links of health's judgement marked, and a legend of the shades.
 */
#include "report_svg.h"
#include "svg_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__W 640.0
#define SC__CHAR 7.0 /* the width of a character of the labels, roughly (12px sans-serif) */

/* The lowest and highest finite cell (lo > hi when none). */
static void sc__range(const double *cells, size_t count, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < count; i++)
        if (isfinite(cells[i])) {
            *lo = fmin(*lo, cells[i]);
            *hi = fmax(*hi, cells[i]);
        }
}

/* A cell's rectangle, its fill (good: 0 worst to 1 best; < 0 not measured) and tooltip. */
static void sc__cell(sc_html *out, double x, double y, double size, double good, bool outlined,
                     const char *tip)
{
    sc_html_tag(out, "<rect");
    sc_html_attr(out, "class", outlined ? "cell suspect" : "cell");
    sc_html_tag(out, " x=\"");
    sc_html_num(out, "%.1f", x);
    sc_html_tag(out, "\" y=\"");
    sc_html_num(out, "%.1f", y);
    sc_html_tag(out, "\" width=\"");
    sc_html_num(out, "%.1f", size - 1);
    sc_html_tag(out, "\" height=\"");
    sc_html_num(out, "%.1f", size - 1);
    if (good >= 0) {
        sc_html_tag(out, "\" style=\"fill:hsl(");
        sc_html_num(out, "%.0f", 120 * good);
        sc_html_tag(out, ",60%,62%)\">");
    } else {
        sc_html_tag(out, "\" style=\"fill:#e2e8f0\">");
    }
    if (tip) {
        sc_html_tag(out, "<title>");
        sc_html_text(out, tip);
        sc_html_tag(out, "</title>");
    }
    sc_html_tag(out, "</rect>\n");
}

/* The legend under the grid: five shades from worst to best with their values, the grey of
   a pair not measured, and what the marks mean. */
static void sc__legend(sc_html *out, const sc_svg_heat *h, double x, double y, double lo, double hi,
                       bool any_drain, bool any_suspect)
{
    char buf[96], num[32];

    sc_svg_label(out, "legend", x, y + 11, "start",
                 h->higher_better ? "worst (low)" : "worst (high)");
    x += 84;
    for (int k = 0; k <= 4; k++) {
        double good = k / 4.0;
        double v = h->higher_better ? lo + (hi - lo) * good : hi - (hi - lo) * good;
        sc__cell(out, x, y, 16, good, false, NULL);
        sc_svg_label(out, "legend", x + 20, y + 12, "start", sc_svg_short(num, sizeof(num), v));
        x += 62;
    }
    sc_svg_label(out, "legend", x, y + 12, "start", "best");
    x += 40;
    sc__cell(out, x, y, 16, -1, false, NULL);
    sc_svg_label(out, "legend", x + 20, y + 12, "start", "not measured");
    snprintf(buf, sizeof(buf), "%s%s%s", any_suspect ? "outlined: a suspect link" : "",
             any_suspect && any_drain ? "; " : "", any_drain ? "red name: a node to drain" : "");
    if (any_drain || any_suspect)
        sc_svg_label(out, "legend", 0, y + 34, "start", buf);
}

void sc_svg_heatmap(sc_html *out, const sc_svg_heat *h)
{
    size_t n = h->n, longest = 1;
    bool any_drain = false, any_suspect = false;
    double lo, hi;
    char tip[640], num[64];

    if (n > SC_SVG_HEATMAP_MAX) {
        sc_html_tag(out, "<p>");
        sc_html_int(out, "%lld", n);
        sc_html_tag(out, " nodes: more than the ");
        sc_html_int(out, "%lld", SC_SVG_HEATMAP_MAX);
        sc_html_tag(out, " a heatmap draws; results.json holds the matrix.</p>\n");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(h->names[i]);
        longest = len > longest ? len : longest;
        any_drain |= h->drain && h->drain[i];
        for (size_t j = 0; j < n; j++)
            any_suspect |= h->suspect && h->suspect[i * n + j];
    }
    longest = longest > 24 ? 24 : longest;
    double left = 12 + SC__CHAR * (double)longest + (any_drain ? 42 : 0);
    double cell = n ? fmin(60, fmax(6, (SC__W - left - 8) / (double)n)) : 1;
    /* column names across when they fit a cell, else turned (they then need room above) */
    bool across = SC__CHAR * (double)longest + 6 <= cell;
    double top = across ? 44 : 34 + SC__CHAR * (double)longest * 0.72;
    bool values = n <= SC_SVG_HEATMAP_VALUES && cell >= 34;
    double height = top + cell * (double)n + (any_drain || any_suspect ? 64 : 44);

    sc__range(h->cells, n * n, &lo, &hi);
    sc_svg_begin(out, "plot fit heatmap", SC__W, height, h->title);
    for (size_t j = 0; j < n; j++) {
        double x = left + cell * ((double)j + 0.5);
        const char *cls = h->drain && h->drain[j] ? "col drain" : "col";
        if (across)
            sc_svg_label(out, cls, x, top - 8, "middle", h->names[j]);
        else
            sc_svg_label_turned(out, cls, x + 4, top - 6, -45, "start", h->names[j]);
    }
    for (size_t i = 0; i < n; i++) {
        double y = top + cell * (double)i;
        bool drain = h->drain && h->drain[i];
        snprintf(tip, sizeof(tip), "%s%s", h->names[i], drain ? " drain" : "");
        sc_svg_label(out, drain ? "row drain" : "row", left - 6, y + cell / 2 + 4, "end", tip);
        for (size_t j = 0; j < n; j++) {
            double v = h->cells[i * n + j], good = -1;
            bool suspect = h->suspect && h->suspect[i * n + j];
            if (isfinite(v))
                good = !(hi > lo)         ? 1
                       : h->higher_better ? (v - lo) / (hi - lo)
                                          : (hi - v) / (hi - lo);
            if (isfinite(v))
                snprintf(tip, sizeof(tip), "%s - %s: %.4g %s%s", h->names[i], h->names[j], v,
                         h->unit, suspect ? " (suspect link)" : "");
            else
                snprintf(tip, sizeof(tip), "%s - %s: not measured", h->names[i], h->names[j]);
            double x = left + cell * (double)j;
            sc__cell(out, x, y, cell, good, suspect, tip);
            if (values && isfinite(v))
                sc_svg_label(out, "cellv", x + cell / 2, y + cell / 2 + 4, "middle",
                             sc_svg_short(num, sizeof(num), v));
        }
    }
    if (hi >= lo)
        sc__legend(out, h, 0, top + cell * (double)n + 12, lo, hi, any_drain, any_suspect);
    else
        sc_svg_label(out, "legend", 0, top + cell * (double)n + 24, "start", "no pair measured");
    sc_svg_end(out);
}
