/* svg_util.c: what the report's plots share (see svg_util.h). */
#include "svg_util.h"

#include <math.h>
#include <stdio.h>

/* <svg ...>: class cls, viewBox w x h (and that size in px when fixed), its title. */
static void sc__begin(sc_html *out, const char *cls, double w, double h, bool fixed,
                      const char *title)
{
    sc_html_tag(out, "<svg xmlns=\"http://www.w3.org/2000/svg\"");
    sc_html_attr(out, "class", cls);
    if (fixed) {
        sc_html_tag(out, " width=\"");
        sc_html_num(out, "%.0f", w);
        sc_html_tag(out, "\" height=\"");
        sc_html_num(out, "%.0f", h);
        sc_html_tag(out, "\"");
    }
    sc_html_tag(out, " viewBox=\"0 0 ");
    sc_html_num(out, "%.0f", w);
    sc_html_tag(out, " ");
    sc_html_num(out, "%.0f", h);
    sc_html_tag(out, "\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\"><title>");
    sc_html_text(out, title);
    sc_html_tag(out, "</title><text class=\"ttl\" x=\"0\" y=\"16\">");
    sc_html_text(out, title);
    sc_html_tag(out, "</text>\n");
}

void sc_svg_begin(sc_html *out, const char *cls, double w, double h, const char *title)
{
    sc__begin(out, cls, w, h, false, title);
}

void sc_svg_begin_fixed(sc_html *out, double w, double h, const char *title)
{
    sc__begin(out, "plot", w, h, true, title);
}

void sc_svg_end(sc_html *out)
{
    sc_html_tag(out, "</svg>\n");
}

/* x="X" y="Y" (one decimal). */
static void sc__at(sc_html *out, double x, double y)
{
    sc_html_tag(out, " x=\"");
    sc_html_num(out, "%.1f", x);
    sc_html_tag(out, "\" y=\"");
    sc_html_num(out, "%.1f", y);
    sc_html_tag(out, "\"");
}

/* "<text class=cls" (cls NULL: no class); its position comes next. */
static void sc__text_start(sc_html *out, const char *cls)
{
    sc_html_tag(out, "<text");
    if (cls)
        sc_html_attr(out, "class", cls);
}

/* " text-anchor=anchor>text</text>". */
static void sc__text_end(sc_html *out, const char *anchor, const char *text)
{
    sc_html_attr(out, "text-anchor", anchor);
    sc_html_tag(out, ">");
    sc_html_text(out, text);
    sc_html_tag(out, "</text>\n");
}

void sc_svg_label(sc_html *out, const char *cls, double x, double y, const char *anchor,
                  const char *text)
{
    sc__text_start(out, cls);
    sc__at(out, x, y);
    sc__text_end(out, anchor, text);
}

void sc_svg_label_turned(sc_html *out, const char *cls, double x, double y, double deg,
                         const char *anchor, const char *text)
{
    const double at[] = {x, y};

    sc__text_start(out, cls);
    sc_html_tag(out, " transform=\"translate(");
    sc_html_path(out, "# #", at, 2);
    sc_html_tag(out, ") rotate(");
    sc_html_num(out, "%.0f", deg);
    sc_html_tag(out, ")\"");
    sc__text_end(out, anchor, text);
}

void sc_svg_rect(sc_html *out, const char *cls, double x, double y, double w, double h)
{
    sc_html_tag(out, "<rect");
    sc_html_attr(out, "class", cls);
    sc__at(out, x, y);
    sc_html_tag(out, " width=\"");
    sc_html_num(out, "%.1f", w > 0 ? w : 0);
    sc_html_tag(out, "\" height=\"");
    sc_html_num(out, "%.1f", h > 0 ? h : 0);
    sc_html_tag(out, "\"/>\n");
}

void sc_svg_dot(sc_html *out, const char *cls, double x, double y, double r, const char *tip)
{
    sc_html_tag(out, "<circle");
    sc_html_attr(out, "class", cls);
    sc_html_tag(out, " cx=\"");
    sc_html_num(out, "%.1f", x);
    sc_html_tag(out, "\" cy=\"");
    sc_html_num(out, "%.1f", y);
    sc_html_tag(out, "\" r=\"");
    sc_html_num(out, "%.1f", r);
    sc_html_tag(out, "\">");
    if (tip) {
        sc_html_tag(out, "<title>");
        sc_html_text(out, tip);
        sc_html_tag(out, "</title>");
    }
    sc_html_tag(out, "</circle>\n");
}

char *sc_svg_short(char *buf, size_t len, double v)
{
    double a = fabs(v);
    const char *suffix = "";

    if (a >= 999.5e3) {
        v /= 1e6;
        suffix = "M";
    } else if (a >= 999.5) {
        v /= 1e3;
        suffix = "k";
    }
    snprintf(buf, len, "%.3g%s", v, suffix);
    return buf;
}

size_t sc_svg_log_ticks(double lo, double hi, double *t, size_t max)
{
    static const double steps[] = {1, 2, 5};
    bool fine = hi / lo < 100;
    size_t n = 0;

    if (!(lo > 0) || !(hi >= lo))
        return 0;
    for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)) && n < max; e++)
        for (size_t k = 0; k < (fine ? 3u : 1u) && n < max; k++) {
            double v = steps[k] * pow(10, e);
            if (v >= lo * 0.999 && v <= hi * 1.001)
                t[n++] = v;
        }
    return n;
}

size_t sc_svg_lin_ticks(double lo, double hi, double *t, size_t max)
{
    double span = hi - lo, step, mag;
    size_t n = 0;

    if (!(span > 0) || max < 2)
        return 0;
    mag = pow(10, floor(log10(span / (double)(max - 1))));
    step = mag;
    for (int k = 0; k < 4 && span / step > (double)(max - 1); k++)
        step = mag * (k == 0 ? 2 : k == 1 ? 5 : 10);
    /* a multiple of step, not a sum of them: 2, not 2.0000000000000004 */
    for (long long i = (long long)ceil(lo / step); (double)i * step <= hi + step * 1e-9 && n < max;
         i++)
        t[n++] = (double)i * step;
    return n;
}
