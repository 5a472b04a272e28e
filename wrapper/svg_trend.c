/* svg_trend.c: trend and strip plots (see svg_trend.h), through the page's writer (html.h). */
#include "svg_trend.h"
#include "svg_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__TW 1000.0 /* the viewBox's width: the plot scales to the page's */
#define SC__LEFT 80.0
#define SC__RIGHT 20.0

/* The y range of values lo..hi, padded by 8% (a flat series gets +-1% of its value). */
static void sc__range(double *lo, double *hi)
{
    double span = *hi - *lo;

    if (!(span > 0))
        span = fabs(*hi) > 0 ? fabs(*hi) * 0.02 : 1;
    *lo -= span * 0.08;
    *hi += span * 0.08;
}

/* Three ticks on the y axis with their values and grid lines. */
static void sc__yaxis(sc_html *out, double y0, double y1, double lo, double hi, const char *unit)
{
    char buf[64];

    for (int k = 0; k <= 2; k++) {
        double v = lo + (hi - lo) * k / 2, y = y1 - (y1 - y0) * k / 2;
        const double d[] = {SC__LEFT, y, SC__TW - SC__RIGHT};
        sc_svg_path(out, "grid", "M# #H#", d, 3);
        snprintf(buf, sizeof(buf), "%.4g", v);
        sc_svg_label(out, "tick", SC__LEFT - 6, y + 4, "end", buf);
    }
    sc_svg_label_turned(out, "axis", 14, (y0 + y1) / 2, -90, "middle", unit);
}

void sc_svg_trend(sc_html *out, const char *title, const char *unit, const sc_svg_point *p,
                  size_t n, const sc_svg_change *c, size_t nc, const char *first, const char *last)
{
    const double top = 48, bottom = 230, h = 270;
    size_t skip = n > SC_SVG_TREND_MAX ? n - SC_SVG_TREND_MAX : 0;
    double lo = INFINITY, hi = -INFINITY;
    char buf[640];

    for (size_t i = skip; i < n; i++) {
        lo = fmin(lo, p[i].ci ? fmin(p[i].lo, p[i].median) : p[i].median);
        hi = fmax(hi, p[i].ci ? fmax(p[i].hi, p[i].median) : p[i].median);
    }
    if (n == 0)
        lo = hi = 0;
    sc__range(&lo, &hi);
    sc_svg_begin(out, "plot wide trend", SC__TW, h, title);
    sc__yaxis(out, top, bottom, lo, hi, unit);
    double step = n - skip > 1 ? (SC__TW - SC__LEFT - SC__RIGHT - 10) / (double)(n - skip - 1) : 0;
#define SC__X(i) (SC__LEFT + 5 + step * (double)((i)-skip))
#define SC__Y(v) (bottom - (bottom - top) * ((v)-lo) / (hi - lo))
    for (size_t k = 0; k < nc; k++) {
        if (c[k].at <= skip || c[k].at >= n)
            continue;
        double x = (SC__X(c[k].at - 1) + SC__X(c[k].at)) / 2;
        const double d[] = {x, top - 8, bottom};
        if (c[k].confirmed)
            sc_svg_path(out, "cp confirmed", "M# #V#", d, 3);
        else
            sc_svg_path(out, "cp suspect", "M# #V#", d, 3);
        sc_svg_label(out, c[k].confirmed ? "cplabel confirmed" : "cplabel suspect", x + 4,
                     top - 10 + 12.0 * (double)(k % 2), "start", c[k].label);
    }
    sc_html_tag(out, "<path class=\"series\" d=\"");
    for (size_t i = skip; i < n; i++) {
        const double d[] = {SC__X(i), SC__Y(p[i].median)};
        if (i == skip)
            sc_html_path(out, "M# #", d, 2);
        else
            sc_html_path(out, "L# #", d, 2);
    }
    sc_html_tag(out, "\"/>\n");
    for (size_t i = skip; i < n; i++) {
        double x = SC__X(i);
        const double d[] = {x, SC__Y(p[i].lo), SC__Y(p[i].hi)};
        if (p[i].ci)
            sc_svg_path(out, "whisker", "M# #V#", d, 3);
        if (p[i].ci)
            snprintf(buf, sizeof(buf), "%s: median %.6g %s, 95%% interval [%.6g, %.6g]", p[i].label,
                     p[i].median, unit, p[i].lo, p[i].hi);
        else
            snprintf(buf, sizeof(buf), "%s: median %.6g %s, interval unavailable", p[i].label,
                     p[i].median, unit);
        sc_svg_dot(out, "pt", x, SC__Y(p[i].median), 3, buf);
    }
#undef SC__X
#undef SC__Y
    snprintf(buf, sizeof(buf), "bundles, oldest to newest: %s to %s%s", first, last,
             skip ? " (the newest 2000 drawn)" : "");
    sc_svg_label(out, "axis", (SC__LEFT + SC__TW) / 2, h - 12, "middle", buf);
    sc_svg_end(out);
}

void sc_svg_strip(sc_html *out, const char *title, const char *unit, const double *runs, size_t n,
                  double median, bool ci, double lo, double hi)
{
    const double w = 640, left = 74, right = 620, top = 54, bottom = 178, h = 226;
    double ylo = ci ? fmin(lo, median) : median, yhi = ci ? fmax(hi, median) : median, t[8];
    char buf[160], num[3][64];

    for (size_t i = 0; i < n; i++) {
        ylo = fmin(ylo, runs[i]);
        yhi = fmax(yhi, runs[i]);
    }
    sc__range(&ylo, &yhi);
    sc_svg_begin(out, "plot fit strip", w, h, title);
#define SC__Y(v) (bottom - (bottom - top) * ((v)-ylo) / (yhi - ylo))
    /* The legend: what the line, the band and a dot are. */
    const double key[] = {left, 33, left + 22};
    sc_svg_path(out, "median", "M# #H#", key, 3);
    snprintf(buf, sizeof(buf), "median %s", sc_fmt_sig(num[0], sizeof(num[0]), median, 4));
    sc_svg_label(out, "legend", left + 28, 37, "start", buf);
    if (ci) {
        sc_svg_rect(out, "band", left + 180, 27, 22, 12);
        snprintf(buf, sizeof(buf), "its 95%% interval [%s, %s]",
                 sc_fmt_sig(num[1], sizeof(num[1]), lo, 4),
                 sc_fmt_sig(num[2], sizeof(num[2]), hi, 4));
    } else {
        snprintf(buf, sizeof(buf), "interval unavailable (%zu run%s; %d give one)", n,
                 n == 1 ? "" : "s", 6);
    }
    sc_svg_label(out, "legend", left + (ci ? 208 : 180), 37, "start", buf);
    sc_svg_dot(out, "run", right - 70, 33, 4, NULL);
    sc_svg_label(out, "legend", right - 62, 37, "start", "one run");
    size_t nt = sc_svg_lin_ticks(ylo, yhi, t, 5);
    for (size_t k = 0; k < nt; k++) {
        const double d[] = {left, SC__Y(t[k]), right};
        sc_svg_path(out, "grid", "M# #H#", d, 3);
        snprintf(buf, sizeof(buf), "%.6g", t[k]);
        sc_svg_label(out, "tick", left - 6, SC__Y(t[k]) + 4, "end", buf);
    }
    sc_svg_label_turned(out, "axis", 14, (top + bottom) / 2, -90, "middle", unit);
    if (ci)
        sc_svg_rect(out, "band", left, SC__Y(hi), right - left, fmax(SC__Y(lo) - SC__Y(hi), 1));
    const double m[] = {left, SC__Y(median), right};
    sc_svg_path(out, "median", "M# #H#", m, 3);
    const double axis[] = {left, top - 4, bottom, right};
    sc_svg_path(out, "axis", "M# #V#H#", axis, 4);
    size_t every = n > 20 ? (n + 19) / 20 : 1;
    for (size_t i = 0; i < n; i++) {
        /* the runs in the order they ran: a drift shows as a slope */
        double x = n > 1 ? left + 16 + (right - left - 32) * (double)i / (double)(n - 1)
                         : (left + right) / 2;
        snprintf(buf, sizeof(buf), "run %zu: %s %s", i + 1,
                 sc_fmt_sig(num[0], sizeof(num[0]), runs[i], 6), unit);
        sc_svg_dot(out, "run", x, SC__Y(runs[i]), 4.5, buf);
        if (i % every == 0 || i + 1 == n) {
            snprintf(buf, sizeof(buf), "%zu", i + 1);
            sc_svg_label(out, "tick", x, bottom + 16, "middle", buf);
        }
    }
#undef SC__Y
    sc_svg_label(out, "axis", (left + right) / 2, h - 10, "middle",
                 "run, in the order the runs ran");
    sc_svg_end(out);
}
