/*
 * report_svg.c: the report's plots as inline SVG (see report_svg.h): bars with whiskers, a
 * line over a log2 axis, a grid of CPUs and the heatmap of a link matrix. Fixed sizes, no script;
 * colours come from the classes the page's CSS defines (report_html.c). Everything goes
 * through the page's writer (html.h): markup as literals, numbers as numbers, text escaped.
 */
#include "report_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__W 720 /* plot width in px */

static void sc__open_w(sc_html *out, int width, int height, const char *title)
{
    sc_html_tag(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"");
    sc_html_int(out, "%lld", width);
    sc_html_tag(out, "\" height=\"");
    sc_html_int(out, "%lld", height);
    sc_html_tag(out, "\" viewBox=\"0 0 ");
    sc_html_int(out, "%lld", width);
    sc_html_tag(out, " ");
    sc_html_int(out, "%lld", height);
    sc_html_tag(out, "\" role=\"img\"><title>");
    sc_html_text(out, title);
    sc_html_tag(out, "</title><text class=\"ttl\" x=\"0\" y=\"16\">");
    sc_html_text(out, title);
    sc_html_tag(out, "</text>\n");
}

static void sc__open(sc_html *out, int height, const char *title)
{
    sc__open_w(out, SC__W, height, title);
}

/* A number of a coordinate: one decimal. */
static void sc__num1(sc_html *out, double v)
{
    sc_html_num(out, "%.1f", v);
}

/* x="..." y="..." (one decimal). */
static void sc__xy(sc_html *out, double vx, double vy)
{
    sc_html_tag(out, " x=\"");
    sc_html_num(out, "%.1f", vx);
    sc_html_tag(out, "\" y=\"");
    sc_html_num(out, "%.1f", vy);
    sc_html_tag(out, "\"");
}

/* <text> at (x, y), anchored start, middle or end. */
static void sc__text(sc_html *out, double x, double y, const char *anchor, const char *text)
{
    sc_html_tag(out, "<text");
    sc__xy(out, x, y);
    sc_html_attr(out, "text-anchor", anchor);
    sc_html_tag(out, ">");
    sc_html_text(out, text);
    sc_html_tag(out, "</text>\n");
}

/* Bars in a plot of width px (left: the labels' room); ref >= 0 draws a reference line;
   sig: the values' printed form (%.1f, or %.4g for small figures). */
static void sc__bars(sc_html *out, int plot_w, double left, const char *title, const char *unit,
                     const sc_svg_bar *bars, size_t n, double ref, bool sig)
{
    const double width = plot_w - left - 120, row = 26, top = 30;
    double max = ref > 0 ? ref : 0;
    char buf[64];

    for (size_t i = 0; i < n; i++) {
        max = fmax(max, fmax(bars[i].value, bars[i].hi));
    }
    if (max <= 0)
        max = 1;
    sc__open_w(out, plot_w, (int)(top + row * (double)n + 10), title);
    for (size_t i = 0; i < n; i++) {
        double y = top + row * (double)i, w = width * bars[i].value / max;
        sc__text(out, left - 8, y + 16, "end", bars[i].label);
        sc_html_tag(out, "<rect");
        sc_html_attr(out, "class", bars[i].worse ? "bar worse" : "bar");
        sc__xy(out, left, y + 3);
        sc_html_tag(out, " width=\"");
        sc__num1(out, w > 0 ? w : 0);
        sc_html_tag(out, "\" height=\"18\"/>\n");
        if (bars[i].hi > 0) {
            double x0 = left + width * bars[i].lo / max, x1 = left + width * bars[i].hi / max;
            const double d[] = {x0, y + 12, x1, x0, y + 6, y + 18, x1, y + 6, y + 18};
            sc_html_tag(out, "<path class=\"whisker\" d=\"");
            sc_html_path(out, "M# #H#M# #V#M# #V#", d, 9);
            sc_html_tag(out, "\"/>\n");
        }
        if (sig)
            snprintf(buf, sizeof(buf), "%.4g %s", bars[i].value, unit);
        else
            snprintf(buf, sizeof(buf), "%.1f %s", bars[i].value, unit);
        sc__text(out, left + fmax(w, bars[i].hi > 0 ? width * bars[i].hi / max : 0) + 6, y + 16,
                 "start", buf);
    }
    if (ref > 0) {
        const double d[] = {left + width * ref / max, top, top + row * (double)n};
        sc_html_tag(out, "<path class=\"ref\" d=\"");
        sc_html_path(out, "M# #V#", d, 3);
        sc_html_tag(out, "\"/>\n");
    }
    sc_html_tag(out, "</svg>\n");
}

void sc_svg_bars(sc_html *out, const char *title, const char *unit, const sc_svg_bar *bars,
                 size_t n)
{
    sc__bars(out, SC__W, 160, title, unit, bars, n, -1, false);
}

void sc_svg_bars_ref(sc_html *out, const char *title, const char *unit, const sc_svg_bar *bars,
                     size_t n, double ref)
{
    sc__bars(out, 540, 200, title, unit, bars, n, ref, true);
}

/* "512", "4K", "1M": a power of two as a size label. */
static void sc__size_label(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"", "K", "M", "G"};
    int u = 0;

    while (bytes >= 1024 && u < 3) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, len, "%g%s", bytes, units[u]);
}

/* x in plot units: log2 for message sizes, as is for repetitions. */
static double sc__xv(double x, bool log2x)
{
    return log2x ? log2(x > 1 ? x : 1) : x;
}

void sc_svg_xy(sc_html *out, const char *title, const char *xlabel, const char *yunit,
               const double *x, const double *y, size_t n, bool log2x)
{
    const double left = 70, right = SC__W - 20, top = 44, bottom = 264;
    double lx0 = INFINITY, lx1 = -INFINITY, ymax = 0;
    char buf[64];

    for (size_t i = 0; i < n; i++) {
        double lx = sc__xv(x[i], log2x);
        lx0 = fmin(lx0, lx);
        lx1 = fmax(lx1, lx);
        ymax = fmax(ymax, y[i]);
    }
    if (!(lx1 > lx0))
        lx1 = lx0 + 1;
    if (ymax <= 0)
        ymax = 1;
    sc__open(out, (int)bottom + 40, title);
    const double axis[] = {left, top, bottom, right};
    sc_html_tag(out, "<path class=\"axis\" d=\"");
    sc_html_path(out, "M# #V#H#", axis, 4);
    sc_html_tag(out, "\"/>\n");
    for (int t = 0; t <= 4; t++) {
        double v = ymax * t / 4, py = bottom - (bottom - top) * t / 4;
        snprintf(buf, sizeof(buf), "%.0f", v);
        sc__text(out, left - 6, py + 4, "end", buf);
        const double grid[] = {left, py, right};
        sc_html_tag(out, "<path class=\"grid\" d=\"");
        sc_html_path(out, "M# #H#", grid, 3);
        sc_html_tag(out, "\"/>\n");
    }
    int step = (int)ceil((lx1 - lx0) / 10);
    for (int e = (int)ceil(lx0); e <= (int)lx1; e += step > 0 ? step : 1) {
        double px = left + (right - left) * (e - lx0) / (lx1 - lx0);
        if (log2x)
            sc__size_label(pow(2, e), buf, sizeof(buf));
        else
            snprintf(buf, sizeof(buf), "%d", e);
        sc__text(out, px, bottom + 16, "middle", buf);
    }
    sc__text(out, (left + right) / 2, bottom + 34, "middle", xlabel);
    sc__text(out, left - 6, top - 14, "end", yunit);
    sc_html_tag(out, "<polyline class=\"line\" points=\"");
    for (size_t i = 0; i < n; i++) {
        const double pt[] = {left + (right - left) * (sc__xv(x[i], log2x) - lx0) / (lx1 - lx0),
                             bottom - (bottom - top) * y[i] / ymax};
        sc_html_path(out, "#,# ", pt, 2);
    }
    sc_html_tag(out, "\"/>\n");
    for (size_t i = 0; i < n; i++) {
        sc_html_tag(out, "<circle class=\"dot\" cx=\"");
        sc__num1(out, left + (right - left) * (sc__xv(x[i], log2x) - lx0) / (lx1 - lx0));
        sc_html_tag(out, "\" cy=\"");
        sc__num1(out, bottom - (bottom - top) * y[i] / ymax);
        sc_html_tag(out, "\" r=\"3\"/>\n");
    }
    sc_html_tag(out, "</svg>\n");
}

void sc_svg_cpus(sc_html *out, const char *title, size_t ncpus, const bool *in_list,
                 const char *const *label)
{
    const int per_row = 12, bw = 56, bh = 40, gap = 4, top = 28;
    size_t rows = (ncpus + per_row - 1) / per_row;
    char buf[32];

    sc__open(out, top + (int)rows * (bh + gap) + 4, title);
    for (size_t cpu = 0; cpu < ncpus; cpu++) {
        int x = (int)(cpu % per_row) * (bw + gap), y = top + (int)(cpu / per_row) * (bh + gap);
        sc_html_tag(out, "<rect");
        sc_html_attr(out, "class",
                     label && label[cpu] ? "cpu busy"
                     : in_list[cpu]      ? "cpu listed"
                                         : "cpu");
        sc__xy(out, x, y);
        sc_html_tag(out, " width=\"");
        sc_html_int(out, "%lld", bw);
        sc_html_tag(out, "\" height=\"");
        sc_html_int(out, "%lld", bh);
        sc_html_tag(out, "\"/>\n");
        snprintf(buf, sizeof(buf), "cpu%zu", cpu);
        sc__text(out, x + bw / 2.0, y + 15, "middle", buf);
        if (label && label[cpu])
            sc__text(out, x + bw / 2.0, y + 32, "middle", label[cpu]);
    }
    sc_html_tag(out, "</svg>\n");
}

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

void sc_svg_heatmap(sc_html *out, const char *title, const char *unit, const char *const *names,
                    size_t n, const double *cells, bool higher_better)
{
    const int left = 110, top = 40;
    double lo, hi;
    char buf[64];

    if (n > SC_SVG_HEATMAP_MAX) {
        sc_html_tag(out, "<p>");
        sc_html_int(out, "%lld", n);
        sc_html_tag(out, " nodes: more than the ");
        sc_html_int(out, "%lld", SC_SVG_HEATMAP_MAX);
        sc_html_tag(out, " a heatmap draws; results.json holds the matrix.</p>\n");
        return;
    }
    int cell = n ? (SC__W - left) / (int)n : 1;
    cell = cell > 48 ? 48 : cell;
    sc__range(cells, n * n, &lo, &hi);
    sc__open(out, top + (int)n * cell + 24, title);
    for (size_t i = 0; i < n; i++) {
        sc__text(out, left - 6, top + (double)i * cell + cell / 2.0 + 4, "end", names[i]);
        for (size_t j = 0; j < n; j++) {
            double v = cells[i * n + j], good = 0.5;
            if (isfinite(v) && hi > lo)
                good = higher_better ? (v - lo) / (hi - lo) : (hi - v) / (hi - lo);
            sc_html_tag(out, "<rect x=\"");
            sc_html_int(out, "%lld", left + j * (size_t)cell);
            sc_html_tag(out, "\" y=\"");
            sc_html_int(out, "%lld", top + i * (size_t)cell);
            sc_html_tag(out, "\" width=\"");
            sc_html_int(out, "%lld", cell - 1);
            sc_html_tag(out, "\" height=\"");
            sc_html_int(out, "%lld", cell - 1);
            if (isfinite(v)) {
                sc_html_tag(out, "\" style=\"fill:hsl(");
                sc_html_num(out, "%.0f", 120 * good);
                sc_html_tag(out, ",65%,55%)\"><title>");
                snprintf(buf, sizeof(buf), "%.4g %s", v, unit);
            } else {
                sc_html_tag(out, "\" style=\"fill:#ddd\"><title>");
                snprintf(buf, sizeof(buf), "not measured");
            }
            sc_html_text(out, names[i]);
            sc_html_tag(out, " - ");
            sc_html_text(out, names[j]);
            sc_html_tag(out, ": ");
            sc_html_text(out, buf);
            sc_html_tag(out, "</title></rect>\n");
        }
    }
    snprintf(buf, sizeof(buf), "green: best %.4g %s, red: worst %.4g %s", higher_better ? hi : lo,
             unit, higher_better ? lo : hi, unit);
    sc__text(out, left, top + (double)n * cell + 16, "start", hi >= lo ? buf : "no pair measured");
    sc_html_tag(out, "</svg>\n");
}
