/*
 * report_svg.c: the report's plots as inline SVG (see report_svg.h): bars with whiskers, a
 * line over repetitions, a log-log plot of message sizes and a grid of CPUs. No script;
 * colours come from the classes the page's CSS defines (report_html.c). Everything goes
 * through the page's writer (html.h): markup as literals, numbers as numbers, text escaped.
 */
#include "report_svg.h"
#include "svg_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__W 640 /* a plot's viewBox width: two side by side in a window 1400 px wide */

/* Bars in a plot of width plot_w (left: the labels' room); ref >= 0 draws a reference line;
   fit: scaled to its container, else of fixed size. */
static void sc__bars(sc_html *out, int plot_w, double left, const char *title, const char *unit,
                     const sc_svg_bar *bars, size_t n, double ref, bool fit)
{
    const double width = plot_w - left - 130, row = 26, top = 30;
    double max = ref > 0 ? ref : 0, h = top + row * (double)n + 10;
    char buf[96], num[64];

    for (size_t i = 0; i < n; i++)
        max = fmax(max, fmax(bars[i].value, bars[i].hi));
    if (max <= 0)
        max = 1;
    if (fit)
        sc_svg_begin(out, "plot fit", plot_w, h, title);
    else
        sc_svg_begin_fixed(out, plot_w, h, title);
    for (size_t i = 0; i < n; i++) {
        double y = top + row * (double)i, w = width * bars[i].value / max;
        sc_svg_label(out, NULL, left - 8, y + 16, "end", bars[i].label);
        sc_svg_rect(out, bars[i].worse ? "bar worse" : "bar", left, y + 3, w, 18);
        if (bars[i].hi > 0) {
            double x0 = left + width * bars[i].lo / max, x1 = left + width * bars[i].hi / max;
            const double d[] = {x0, y + 12, x1, x0, y + 6, y + 18, x1, y + 6, y + 18};
            sc_svg_path(out, "whisker", "M# #H#M# #V#M# #V#", d, 9);
        }
        snprintf(buf, sizeof(buf), "%s %s", sc_fmt_sig(num, sizeof(num), bars[i].value, 4), unit);
        sc_svg_label(out, NULL, left + fmax(w, bars[i].hi > 0 ? width * bars[i].hi / max : 0) + 6,
                     y + 16, "start", buf);
    }
    if (ref > 0) {
        const double d[] = {left + width * ref / max, top, top + row * (double)n};
        sc_svg_path(out, "ref", "M# #V#", d, 3);
    }
    sc_svg_end(out);
}

void sc_svg_bars(sc_html *out, const char *title, const char *unit, const sc_svg_bar *bars,
                 size_t n)
{
    sc__bars(out, SC__W, 110, title, unit, bars, n, -1, true);
}

void sc_svg_bars_ref(sc_html *out, const char *title, const char *unit, const sc_svg_bar *bars,
                     size_t n, double ref)
{
    sc__bars(out, 540, 200, title, unit, bars, n, ref, false);
}

void sc_svg_xy(sc_html *out, const char *title, const char *xlabel, const char *yunit,
               const double *x, const double *y, size_t n)
{
    const double left = 74, right = SC__W - 16, top = 44, bottom = 214;
    double x0 = INFINITY, x1 = -INFINITY, ymax = 0, t[8];
    char buf[64];

    for (size_t i = 0; i < n; i++) {
        x0 = fmin(x0, x[i]);
        x1 = fmax(x1, x[i]);
        ymax = fmax(ymax, y[i]);
    }
    if (!(x1 > x0))
        x1 = x0 + 1;
    ymax = ymax > 0 ? ymax * 1.08 : 1;
    sc_svg_begin(out, "plot fit", SC__W, bottom + 44, title);
#define SC__PX(v) (left + (right - left) * ((v)-x0) / (x1 - x0))
#define SC__PY(v) (bottom - (bottom - top) * (v) / ymax)
    size_t nt = sc_svg_lin_ticks(0, ymax, t, 5);
    for (size_t k = 0; k < nt; k++) {
        const double grid[] = {left, SC__PY(t[k]), right};
        sc_svg_path(out, "grid", "M# #H#", grid, 3);
        sc_svg_label(out, "tick", left - 6, SC__PY(t[k]) + 4, "end",
                     sc_svg_short(buf, sizeof(buf), t[k]));
    }
    const double axis[] = {left, top - 6, bottom, right};
    sc_svg_path(out, "axis", "M# #V#H#", axis, 4);
    nt = sc_svg_lin_ticks(x0, x1, t, 8);
    for (size_t k = 0; k < nt; k++) {
        if (t[k] != floor(t[k])) /* repetitions are counted: whole ticks only */
            continue;
        snprintf(buf, sizeof(buf), "%g", t[k]);
        sc_svg_label(out, "tick", SC__PX(t[k]), bottom + 16, "middle", buf);
    }
    sc_svg_label(out, "axis", (left + right) / 2, bottom + 36, "middle", xlabel);
    sc_svg_label_turned(out, "axis", 14, (top + bottom) / 2, -90, "middle", yunit);
    sc_html_tag(out, "<polyline class=\"line\" points=\"");
    for (size_t i = 0; i < n; i++) {
        const double pt[] = {SC__PX(x[i]), SC__PY(y[i])};
        sc_html_path(out, "#,# ", pt, 2);
    }
    sc_html_tag(out, "\"/>\n");
    for (size_t i = 0; i < n; i++) {
        snprintf(buf, sizeof(buf), "%g: %.6g %s", x[i], y[i], yunit);
        sc_svg_dot(out, "dot", SC__PX(x[i]), SC__PY(y[i]), 3, buf);
    }
#undef SC__PX
#undef SC__PY
    sc_svg_end(out);
}

/* "512", "4K", "1M": a size in bytes as an axis label. */
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

/* The y range of a log plot: the points and their intervals, padded to whole steps. */
static void sc__log_range(const sc_svg_series *s, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        double a = s->y[i], b = s->y[i];
        if (s->lo && isfinite(s->lo[i]) && s->lo[i] > 0)
            a = fmin(a, s->lo[i]);
        if (s->hi && isfinite(s->hi[i]))
            b = fmax(b, s->hi[i]);
        if (a > 0)
            *lo = fmin(*lo, a);
        *hi = fmax(*hi, b);
    }
    if (!(*lo > 0) || !(*hi >= *lo)) {
        *lo = 1;
        *hi = 10;
    }
    /* at least a factor of 4, and a margin of a tenth of it each way */
    double span = fmax(log10(*hi / *lo), log10(4.0));
    double mid = (log10(*lo) + log10(*hi)) / 2;
    *lo = pow(10, mid - span * 0.6);
    *hi = pow(10, mid + span * 0.6);
}

void sc_svg_loglog(sc_html *out, const char *title, const char *xlabel, const char *ylabel,
                   const char *unit, const sc_svg_series *s)
{
    const double left = 78, right = SC__W - 16, top = 40, bottom = 250;
    double lx0 = INFINITY, lx1 = -INFINITY, ylo, yhi, t[32];
    char buf[160], num[3][64];

    for (size_t i = 0; i < s->n; i++) {
        lx0 = fmin(lx0, log2(fmax(s->x[i], 1)));
        lx1 = fmax(lx1, log2(fmax(s->x[i], 1)));
    }
    if (!(lx1 > lx0)) {
        lx0 = s->n ? lx0 - 1 : 0;
        lx1 = lx0 + 2;
    }
    lx0 -= 0.5;
    lx1 += 0.5;
    sc__log_range(s, &ylo, &yhi);
    sc_svg_begin(out, "plot fit loglog", SC__W, bottom + 46, title);
#define SC__PX(v) (left + (right - left) * (log2(fmax((v), 1)) - lx0) / (lx1 - lx0))
#define SC__PY(v) (bottom - (bottom - top) * (log10(v) - log10(ylo)) / (log10(yhi) - log10(ylo)))
    size_t nt = sc_svg_log_ticks(ylo, yhi, t, 32);
    for (size_t k = 0; k < nt; k++) {
        const double grid[] = {left, SC__PY(t[k]), right};
        sc_svg_path(out, "grid", "M# #H#", grid, 3);
        sc_svg_label(out, "tick", left - 6, SC__PY(t[k]) + 4, "end",
                     sc_svg_short(buf, sizeof(buf), t[k]));
    }
    /* x: a tick every 2^step bytes, at most 9 of them */
    int first = (int)ceil(lx0), last = (int)floor(lx1), step = (last - first) / 8 + 1;
    for (int e = first; e <= last; e += step) {
        double px = left + (right - left) * (e - lx0) / (lx1 - lx0);
        const double grid[] = {px, top, bottom};
        sc_svg_path(out, "grid", "M# #V#", grid, 3);
        sc__size_label(pow(2, e), buf, sizeof(buf));
        sc_svg_label(out, "tick", px, bottom + 16, "middle", buf);
    }
    const double axis[] = {left, top - 6, bottom, right};
    sc_svg_path(out, "axis", "M# #V#H#", axis, 4);
    sc_svg_label(out, "axis", (left + right) / 2, bottom + 38, "middle", xlabel);
    snprintf(buf, sizeof(buf), "%s (%s, log scale)", ylabel, unit);
    sc_svg_label_turned(out, "axis", 14, (top + bottom) / 2, -90, "middle", buf);
    sc_html_tag(out, "<polyline class=\"line\" points=\"");
    for (size_t i = 0; i < s->n; i++)
        if (s->y[i] > 0) {
            const double pt[] = {SC__PX(s->x[i]), SC__PY(s->y[i])};
            sc_html_path(out, "#,# ", pt, 2);
        }
    sc_html_tag(out, "\"/>\n");
    for (size_t i = 0; i < s->n; i++) {
        if (!(s->y[i] > 0))
            continue;
        double x = SC__PX(s->x[i]);
        bool ci = s->lo && s->hi && isfinite(s->lo[i]) && isfinite(s->hi[i]) && s->lo[i] > 0;
        if (ci) {
            const double d[] = {x,     SC__PY(s->lo[i]), SC__PY(s->hi[i]),
                                x - 4, SC__PY(s->lo[i]), x + 4,
                                x - 4, SC__PY(s->hi[i]), x + 4};
            sc_svg_path(out, "whisker", "M# #V#M# #H#M# #H#", d, 9);
            snprintf(buf, sizeof(buf), "%.0f bytes: %s %s, 95%% interval [%s, %s]", s->x[i],
                     sc_fmt_sig(num[0], sizeof(num[0]), s->y[i], 4), unit,
                     sc_fmt_sig(num[1], sizeof(num[1]), s->lo[i], 4),
                     sc_fmt_sig(num[2], sizeof(num[2]), s->hi[i], 4));
        } else {
            snprintf(buf, sizeof(buf), "%.0f bytes: %s %s", s->x[i],
                     sc_fmt_sig(num[0], sizeof(num[0]), s->y[i], 4), unit);
        }
        sc_svg_dot(out, "dot", x, SC__PY(s->y[i]), 3.5, buf);
    }
#undef SC__PX
#undef SC__PY
    sc_svg_end(out);
}

void sc_svg_cpus(sc_html *out, const char *title, size_t ncpus, const bool *in_list,
                 const char *const *label)
{
    const int per_row = 12, bw = 50, bh = 40, gap = 3, top = 28;
    size_t rows = (ncpus + per_row - 1) / per_row;
    char buf[32];

    sc_svg_begin(out, "plot fit", SC__W, top + (int)rows * (bh + gap) + 4, title);
    for (size_t cpu = 0; cpu < ncpus; cpu++) {
        int x = (int)(cpu % per_row) * (bw + gap), y = top + (int)(cpu / per_row) * (bh + gap);
        sc_svg_rect(out,
                    label && label[cpu] ? "cpu busy"
                    : in_list[cpu]      ? "cpu listed"
                                        : "cpu",
                    x, y, bw, bh);
        snprintf(buf, sizeof(buf), "cpu%zu", cpu);
        sc_svg_label(out, NULL, x + bw / 2.0, y + 15, "middle", buf);
        if (label && label[cpu])
            sc_svg_label(out, NULL, x + bw / 2.0, y + 32, "middle", label[cpu]);
    }
    sc_svg_end(out);
}
