/*
 * svg_trend.h: the plots of a series over time and of a bundle's runs, as inline SVG that
 * takes the width of the page (viewBox, width 100%): the history's trend with each bundle's
 * median, its 95% interval and the change points marked (history_page.c), and the runs of
 * one metric as a strip plot with their median and its interval (the report). Written
 * through the page's writer (html.h): every text escaped, no raw markup.
 */
#ifndef SC_SVG_TREND_H
#define SC_SVG_TREND_H

#include "html.h"

#include <stdbool.h>
#include <stddef.h>

/* One point of a trend: a bundle's median and its interval (ci false: none). */
typedef struct sc_svg_point {
    const char *label; /* the bundle, for the point's tooltip */
    double median;
    bool ci;
    double lo, hi;
} sc_svg_point;

/* One change point: the first point after it, and its label ("confirmed: slower x0.902"). */
typedef struct sc_svg_change {
    size_t at;
    bool confirmed;
    const char *label;
} sc_svg_change;

/* The points oldest first; x from first to last names the time axis' ends. At most
   SC_SVG_TREND_MAX points are drawn (the newest): a line says so. */
#define SC_SVG_TREND_MAX 2000
void sc_svg_trend(sc_html *out, const char *title, const char *unit, const sc_svg_point *p,
                  size_t n, const sc_svg_change *c, size_t nc, const char *first, const char *last);

/* The runs of one metric, one dot each (runs of equal value side by side), with the median
   as a line and its 95% interval as a band (ci false: "interval unavailable"). */
void sc_svg_strip(sc_html *out, const char *title, const char *unit, const double *runs, size_t n,
                  double median, bool ci, double lo, double hi);

#endif
