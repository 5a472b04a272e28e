/*
 * svg_util.h: what the report's plots share (report_svg.c, svg_heatmap.c, svg_compare.c,
 * svg_trend.c): an <svg> that scales to its container, labels, rectangles and numbers for
 * axes, all through the page's writer (html.h): markup literals, text escaped.
 */
#ifndef SC_SVG_UTIL_H
#define SC_SVG_UTIL_H

#include "html.h"

#include <stdbool.h>
#include <stddef.h>

/* <path class="CLS" d="..."/>: cls and shape literals, the numbers v[0..n) (html.h). */
#define sc_svg_path(out, cls, shape, v, n)                                                         \
    do {                                                                                           \
        sc_html_tag((out), "<path class=\"" cls "\" d=\"");                                        \
        sc_html_path((out), shape, (v), (n));                                                      \
        sc_html_tag((out), "\"/>\n");                                                              \
    } while (0)

/*
 * The start of a plot that takes its container's width: <svg class=cls viewBox="0 0 w h">
 * (the page's CSS gives it width 100%, height auto), its <title> (what a screen reader and
 * a tooltip say) and the same title in bold at the top left. End it with sc_svg_end().
 */
void sc_svg_begin(sc_html *out, const char *cls, double w, double h, const char *title);
/* The same of a fixed size, w x h px (class "plot"): a plot that keeps its size in a row of
   others (a study's bars side by side). */
void sc_svg_begin_fixed(sc_html *out, double w, double h, const char *title);
void sc_svg_end(sc_html *out);

/* <text class=cls x y text-anchor=anchor>text</text>; cls NULL: no class. */
void sc_svg_label(sc_html *out, const char *cls, double x, double y, const char *anchor,
                  const char *text);
/* The same turned by deg degrees about (x, y) (-90: a y axis' name). */
void sc_svg_label_turned(sc_html *out, const char *cls, double x, double y, double deg,
                         const char *anchor, const char *text);
/* <rect class=cls x y width height/> (a negative size drawn as 0). */
void sc_svg_rect(sc_html *out, const char *cls, double x, double y, double w, double h);
/* <circle class=cls cx cy r> with a tooltip (text, may be NULL) </circle>. */
void sc_svg_dot(sc_html *out, const char *cls, double x, double y, double r, const char *tip);

/* A figure in at most 5 characters for a cell or a tick: 3 significant digits, k and M
   above 1000 ("995", "1.03k", "12.5M", "0.0123"); returns buf. */
char *sc_svg_short(char *buf, size_t len, double v);

/*
 * Ticks of a log10 axis over [lo, hi] (both > 0): the decades, and 2 and 5 times them
 * when the range spans less than 2 decades; into t (at most max), returns how many.
 */
size_t sc_svg_log_ticks(double lo, double hi, double *t, size_t max);
/* Up to max "nice" ticks (1, 2, 5 times a power of ten) of a linear axis over [lo, hi]. */
size_t sc_svg_lin_ticks(double lo, double hi, double *t, size_t max);

#endif
