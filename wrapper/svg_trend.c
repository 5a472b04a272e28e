/* svg_trend.c: trend and strip plots (see svg_trend.h), through the page's writer (html.h). */
#include "svg_trend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__TW 1000.0 /* the viewBox's width: the plot scales to the page's */
#define SC__LEFT 80.0
#define SC__RIGHT 20.0

/* <path class="CLS" d="..."/>: cls and shape literals, the numbers v[0..n) (html.h). */
#define sc__path(out, cls, shape, v, n)                                                            \
    do {                                                                                           \
        sc_html_tag((out), "<path class=\"" cls "\" d=\"");                                        \
        sc_html_path((out), shape, (v), (n));                                                      \
        sc_html_tag((out), "\"/>\n");                                                              \
    } while (0)

static void sc__svg_open(sc_html *out, const char *cls, double h, const char *title)
{
    sc_html_tag(out, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
    sc_html_attr(out, "class", cls);
    sc_html_tag(out, " viewBox=\"0 0 ");
    sc_html_num(out, "%.0f", SC__TW);
    sc_html_tag(out, " ");
    sc_html_num(out, "%.0f", h);
    sc_html_tag(out, "\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\"><title>");
    sc_html_text(out, title);
    sc_html_tag(out, "</title><text class=\"ttl\" x=\"0\" y=\"16\">");
    sc_html_text(out, title);
    sc_html_tag(out, "</text>\n");
}

/* cx="X" cy="Y" (one decimal). */
static void sc__centre(sc_html *out, double x, double y)
{
    sc_html_tag(out, " cx=\"");
    sc_html_num(out, "%.1f", x);
    sc_html_tag(out, "\" cy=\"");
    sc_html_num(out, "%.1f", y);
    sc_html_tag(out, "\"");
}

static void sc__label(sc_html *out, const char *cls, double x, double y, const char *anchor,
                      const char *text)
{
    sc_html_tag(out, "<text");
    sc_html_attr(out, "class", cls);
    sc_html_tag(out, " x=\"");
    sc_html_num(out, "%.1f", x);
    sc_html_tag(out, "\" y=\"");
    sc_html_num(out, "%.1f", y);
    sc_html_tag(out, "\"");
    sc_html_attr(out, "text-anchor", anchor);
    sc_html_tag(out, ">");
    sc_html_text(out, text);
    sc_html_tag(out, "</text>\n");
}

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
        sc__path(out, "grid", "M# #H#", d, 3);
        snprintf(buf, sizeof(buf), "%.4g", v);
        sc__label(out, "tick", SC__LEFT - 6, y + 4, "end", buf);
    }
    sc_html_tag(out, "<text class=\"axis\" transform=\"translate(14 ");
    sc_html_num(out, "%.1f", (y0 + y1) / 2);
    sc_html_tag(out, ") rotate(-90)\" text-anchor=\"middle\">");
    sc_html_text(out, unit);
    sc_html_tag(out, "</text>\n");
}

void sc_svg_trend(sc_html *out, const char *title, const char *unit, const sc_svg_point *p,
                  size_t n, const sc_svg_change *c, size_t nc, const char *first, const char *last)
{
    const double top = 48, bottom = 230, h = 270;
    size_t skip = n > SC_SVG_TREND_MAX ? n - SC_SVG_TREND_MAX : 0;
    double lo = INFINITY, hi = -INFINITY;
    char buf[256];

    for (size_t i = skip; i < n; i++) {
        lo = fmin(lo, p[i].ci ? fmin(p[i].lo, p[i].median) : p[i].median);
        hi = fmax(hi, p[i].ci ? fmax(p[i].hi, p[i].median) : p[i].median);
    }
    if (n == 0)
        lo = hi = 0;
    sc__range(&lo, &hi);
    sc__svg_open(out, "plot wide trend", h, title);
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
            sc__path(out, "cp confirmed", "M# #V#", d, 3);
        else
            sc__path(out, "cp suspect", "M# #V#", d, 3);
        sc__label(out, c[k].confirmed ? "cplabel confirmed" : "cplabel suspect", x + 4,
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
            sc__path(out, "whisker", "M# #V#", d, 3);
        sc_html_tag(out, "<circle class=\"pt\"");
        sc__centre(out, x, SC__Y(p[i].median));
        sc_html_tag(out, " r=\"3\"><title>");
        if (p[i].ci)
            snprintf(buf, sizeof(buf), ": median %.6g %s, 95%% interval [%.6g, %.6g]", p[i].median,
                     unit, p[i].lo, p[i].hi);
        else
            snprintf(buf, sizeof(buf), ": median %.6g %s, interval unavailable", p[i].median, unit);
        sc_html_text(out, p[i].label);
        sc_html_text(out, buf);
        sc_html_tag(out, "</title></circle>\n");
    }
#undef SC__X
#undef SC__Y
    snprintf(buf, sizeof(buf), "bundles, oldest to newest: %s to %s%s", first, last,
             skip ? " (the newest 2000 drawn)" : "");
    sc__label(out, "axis", (SC__LEFT + SC__TW) / 2, h - 12, "middle", buf);
    sc_html_tag(out, "</svg>\n");
}

void sc_svg_strip(sc_html *out, const char *title, const char *unit, const double *runs, size_t n,
                  double median, bool ci, double lo, double hi)
{
    const double top = 36, bottom = 150, h = 190;
    double ylo = ci ? fmin(lo, median) : median, yhi = ci ? fmax(hi, median) : median;
    char buf[160];

    for (size_t i = 0; i < n; i++) {
        ylo = fmin(ylo, runs[i]);
        yhi = fmax(yhi, runs[i]);
    }
    sc__range(&ylo, &yhi);
    sc__svg_open(out, "plot wide strip", h, title);
    sc__yaxis(out, top, bottom, ylo, yhi, unit);
#define SC__Y(v) (bottom - (bottom - top) * ((v)-ylo) / (yhi - ylo))
    double x0 = SC__LEFT + 40, x1 = SC__TW - SC__RIGHT - 260;
    if (ci) {
        sc_html_tag(out, "<rect class=\"band\" x=\"");
        sc_html_num(out, "%.1f", x0);
        sc_html_tag(out, "\" y=\"");
        sc_html_num(out, "%.1f", SC__Y(hi));
        sc_html_tag(out, "\" width=\"");
        sc_html_num(out, "%.1f", x1 - x0);
        sc_html_tag(out, "\" height=\"");
        sc_html_num(out, "%.1f", fmax(SC__Y(lo) - SC__Y(hi), 1));
        sc_html_tag(out, "\"/>\n");
    }
    const double m[] = {x0, SC__Y(median), x1};
    sc__path(out, "median", "M# #H#", m, 3);
    for (size_t i = 0; i < n; i++) {
        /* runs spread across in their order, so equal values stay apart */
        double x = n > 1 ? x0 + 10 + (x1 - x0 - 20) * (double)i / (double)(n - 1) : (x0 + x1) / 2;
        snprintf(buf, sizeof(buf), "run %zu: %.6g ", i + 1, runs[i]);
        sc_html_tag(out, "<circle class=\"run\"");
        sc__centre(out, x, SC__Y(runs[i]));
        sc_html_tag(out, " r=\"4\"><title>");
        sc_html_text(out, buf);
        sc_html_text(out, unit);
        sc_html_tag(out, "</title></circle>\n");
    }
#undef SC__Y
    snprintf(buf, sizeof(buf), "median %.6g", median);
    sc__label(out, "legend", x1 + 12, top + 14, "start", buf);
    if (ci)
        snprintf(buf, sizeof(buf), "95%% interval [%.6g, %.6g]", lo, hi);
    else
        snprintf(buf, sizeof(buf), "interval unavailable (%zu runs; 6 give one)", n);
    sc__label(out, "legend", x1 + 12, top + 32, "start", buf);
    snprintf(buf, sizeof(buf), "%zu runs, in order", n);
    sc__label(out, "axis", (x0 + x1) / 2, h - 12, "middle", buf);
    sc_html_tag(out, "</svg>\n");
}
