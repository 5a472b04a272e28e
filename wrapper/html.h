/*
 * html.h: the one writer of the report's pages (report_html.c, the plots of report_svg.c,
 * a study's page in study_page.c), which show text from bundles and study records: users'
 * files (doc/contracts/errors.md).
 *
 * A page is written through an sc_html and nothing else, and nothing can reach it raw:
 * - markup only as string literals: sc_html_tag() compiles with nothing else (a literal is
 *   pasted between two empty literals), so no variable can be passed as markup;
 * - text and attribute values escaped (sc_html_text(), sc_html_attr());
 * - numbers formatted from numbers (sc_html_num(), sc_html_int(): the value is cast to
 *   double or long long and the compiler checks the literal format against it, so a %s
 *   does not build under -Werror; sc_html_fixed()).
 * The stream under the writer is private to html.c (an opaque type), so a page's code has
 * no FILE to print to. Every page starts with sc_html_head(): a strict Content-Security-
 * Policy (no script, no fetch, inline style and data: images only), then its style.
 */
#ifndef SC_HTML_H
#define SC_HTML_H

#include <stdio.h>

typedef struct sc_html sc_html;

/* A writer over out (flushed by sc_html_close(), never closed); NULL when out of memory. */
sc_html *sc_html_open(FILE *out);
/* A writer over an unnamed temporary file, a section to append to a page later; NULL with
   errno set when it cannot be made. */
sc_html *sc_html_tmp(void);
/* Copies everything written to section so far to the end of h. 0 or -errno. */
int sc_html_append(sc_html *h, sc_html *section);
/* Frees h (a temporary file goes with it). Returns 0, or -errno of the first write of h
   that failed (-EIO when the stream did not say). NULL: 0. */
int sc_html_close(sc_html *h);

/* Markup: a string literal only. */
#define sc_html_tag(h, markup) sc__html_markup((h), "" markup "")
/* Text content (NULL: nothing), escaped: each line made safe text first (sc_text_escape():
   control characters, ESC, invalid UTF-8), then HTML's five escapes (& < > " '). */
void sc_html_text(sc_html *h, const char *text);
/* A space and name="value": name a literal, value (NULL: "") escaped as text is. */
#define sc_html_attr(h, name, value) sc__html_attr((h), "" name "", (value))
/* A number through a literal printf format of one conversion ("%.4g", "%.1f"). */
#define sc_html_num(h, format, value) sc__html_num((h), "" format "", (double)(value))
/* An integer through a literal printf format of one long long conversion ("%lld"). */
#define sc_html_int(h, format, value) sc__html_int((h), "" format "", (long long)(value))
/* v with decimals digits after the point ("%.*f"). */
void sc_html_fixed(sc_html *h, int decimals, double v);
/* v with at least digits significant digits and no exponent: 19815, 1.800, 0.01230 (a
   figure never shows as 0.0 because it is small). */
void sc_html_sig(sc_html *h, int digits, double v);
/* The same into buf ("nan", "inf" as printf says them); returns buf. */
char *sc_fmt_sig(char *buf, size_t len, double v, int digits);
/* An SVG path's d or a polyline's points: shape a literal of the path letters M L H V Z,
   spaces and commas, each '#' one number of v[0..n) with one decimal ("M# #H#" over three
   numbers); a '#' without a number left writes 0. */
#define sc_html_path(h, shape, v, n) sc__html_path((h), "" shape "", (v), (n))

/*
 * The start of every page: the doctype, the Content-Security-Policy <meta>
 * (SC_HTML_CSP), the title and the style sheet (a literal), then <body> and title again
 * as the page's <h1>.
 */
#define SC_HTML_CSP "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
#define sc_html_head(h, title, css) sc__html_head((h), (title), "" css "")
/* The end of every page: the note that it is self-contained, </body></html>. */
void sc_html_tail(sc_html *h);

/* The functions behind the macros above; call the macros. */
void sc__html_markup(sc_html *h, const char *markup);
void sc__html_attr(sc_html *h, const char *name, const char *value);
void sc__html_num(sc_html *h, const char *format, ...) __attribute__((format(printf, 2, 3)));
void sc__html_int(sc_html *h, const char *format, ...) __attribute__((format(printf, 2, 3)));
void sc__html_head(sc_html *h, const char *title, const char *css);
void sc__html_path(sc_html *h, const char *shape, const double *v, size_t n);

#endif
