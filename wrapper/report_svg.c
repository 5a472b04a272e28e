/*
 * report_svg.c: the report's plots as inline SVG (see report_svg.h): bars with whiskers, a
 * line over a log2 axis, a grid of CPUs and the heatmap of a link matrix. Fixed sizes, no script;
 * colours come from the classes the page's CSS defines (report_html.c).
 */
#include "report_svg.h"
#include "html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__W 720 /* plot width in px */

static void sc__open_w(FILE *out, int width, int height, const char *title)
{
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
            width, height, width, height);
    sc_html_escape(out, title);
    fprintf(out, "</title><text class=\"ttl\" x=\"0\" y=\"16\">");
    sc_html_escape(out, title);
    fprintf(out, "</text>\n");
}

static void sc__open(FILE *out, int height, const char *title)
{
    sc__open_w(out, SC__W, height, title);
}

static void sc__text(FILE *out, double x, double y, const char *anchor, const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
    sc_html_escape(out, text);
    fprintf(out, "</text>\n");
}

/* Bars in a plot of width px (left: the labels' room); ref >= 0 draws a reference line;
   sig: the values' printed form (%.1f, or %.4g for small figures). */
static void sc__bars(FILE *out, int plot_w, double left, const char *title, const char *unit,
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
        fprintf(out, "<rect class=\"bar%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"18\"/>\n",
                bars[i].worse ? " worse" : "", left, y + 3, w > 0 ? w : 0);
        if (bars[i].hi > 0) {
            double x0 = left + width * bars[i].lo / max, x1 = left + width * bars[i].hi / max;
            fprintf(
                out,
                "<path class=\"whisker\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>\n",
                x0, y + 12, x1, x0, y + 6, y + 18, x1, y + 6, y + 18);
        }
        if (sig)
            snprintf(buf, sizeof(buf), "%.4g %s", bars[i].value, unit);
        else
            snprintf(buf, sizeof(buf), "%.1f %s", bars[i].value, unit);
        sc__text(out, left + fmax(w, bars[i].hi > 0 ? width * bars[i].hi / max : 0) + 6, y + 16,
                 "start", buf);
    }
    if (ref > 0) {
        double x = left + width * ref / max;
        fprintf(out, "<path class=\"ref\" d=\"M%.1f %.1fV%.1f\"/>\n", x, top,
                top + row * (double)n);
    }
    fprintf(out, "</svg>\n");
}

void sc_svg_bars(FILE *out, const char *title, const char *unit, const sc_svg_bar *bars, size_t n)
{
    sc__bars(out, SC__W, 160, title, unit, bars, n, -1, false);
}

void sc_svg_bars_ref(FILE *out, const char *title, const char *unit, const sc_svg_bar *bars,
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

void sc_svg_xy(FILE *out, const char *title, const char *xlabel, const char *yunit,
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
    fprintf(out, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", left, top, bottom, right);
    for (int t = 0; t <= 4; t++) {
        double v = ymax * t / 4, py = bottom - (bottom - top) * t / 4;
        snprintf(buf, sizeof(buf), "%.0f", v);
        sc__text(out, left - 6, py + 4, "end", buf);
        fprintf(out, "<path class=\"grid\" d=\"M%.1f %.1fH%.1f\"/>\n", left, py, right);
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
    fprintf(out, "<polyline class=\"line\" points=\"");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%.1f,%.1f ", left + (right - left) * (sc__xv(x[i], log2x) - lx0) / (lx1 - lx0),
                bottom - (bottom - top) * y[i] / ymax);
    fprintf(out, "\"/>\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n",
                left + (right - left) * (sc__xv(x[i], log2x) - lx0) / (lx1 - lx0),
                bottom - (bottom - top) * y[i] / ymax);
    fprintf(out, "</svg>\n");
}

void sc_svg_cpus(FILE *out, const char *title, size_t ncpus, const bool *in_list,
                 const char *const *label)
{
    const int per_row = 12, bw = 56, bh = 40, gap = 4, top = 28;
    size_t rows = (ncpus + per_row - 1) / per_row;
    char buf[32];

    sc__open(out, top + (int)rows * (bh + gap) + 4, title);
    for (size_t cpu = 0; cpu < ncpus; cpu++) {
        int x = (int)(cpu % per_row) * (bw + gap), y = top + (int)(cpu / per_row) * (bh + gap);
        const char *cls = label && label[cpu] ? "cpu busy" : in_list[cpu] ? "cpu listed" : "cpu";
        fprintf(out, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", cls, x,
                y, bw, bh);
        snprintf(buf, sizeof(buf), "cpu%zu", cpu);
        sc__text(out, x + bw / 2.0, y + 15, "middle", buf);
        if (label && label[cpu])
            sc__text(out, x + bw / 2.0, y + 32, "middle", label[cpu]);
    }
    fprintf(out, "</svg>\n");
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

void sc_svg_heatmap(FILE *out, const char *title, const char *unit, const char *const *names,
                    size_t n, const double *cells, bool higher_better)
{
    const int left = 110, top = 40;
    double lo, hi;
    char buf[64];

    if (n > SC_SVG_HEATMAP_MAX) {
        fprintf(
            out,
            "<p>%zu nodes: more than the %d a heatmap draws; results.json holds the matrix.</p>\n",
            n, SC_SVG_HEATMAP_MAX);
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
            fprintf(out, "<rect x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\" ",
                    left + j * (size_t)cell, top + i * (size_t)cell, cell - 1, cell - 1);
            if (isfinite(v))
                fprintf(out, "style=\"fill:hsl(%.0f,65%%,55%%)\"><title>", 120 * good);
            else
                fputs("style=\"fill:#ddd\"><title>", out);
            if (isfinite(v))
                snprintf(buf, sizeof(buf), "%.4g %s", v, unit);
            else
                snprintf(buf, sizeof(buf), "not measured");
            sc_html_escape(out, names[i]);
            fputs(" - ", out);
            sc_html_escape(out, names[j]);
            fputs(": ", out);
            sc_html_escape(out, buf);
            fputs("</title></rect>\n", out);
        }
    }
    snprintf(buf, sizeof(buf), "green: best %.4g %s, red: worst %.4g %s", higher_better ? hi : lo,
             unit, higher_better ? lo : hi, unit);
    sc__text(out, left, top + (double)n * cell + 16, "start", hi >= lo ? buf : "no pair measured");
    fprintf(out, "</svg>\n");
}
