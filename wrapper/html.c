/* html.c: the writer of the report's pages (see html.h). */
#include "html.h"
#include "sc_text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct sc_html {
    FILE *out;
    bool owned; /* a temporary file of ours: closed with the writer */
    int error;  /* the first write that failed: -errno */
};

sc_html *sc_html_open(FILE *out)
{
    sc_html *h = calloc(1, sizeof(*h));

    if (h)
        h->out = out;
    return h;
}

sc_html *sc_html_tmp(void)
{
    FILE *f = tmpfile();
    sc_html *h = f ? sc_html_open(f) : NULL;

    if (!h) {
        int e = f ? ENOMEM : errno;
        if (f)
            fclose(f);
        errno = e;
        return NULL;
    }
    h->owned = true;
    return h;
}

/* Notes the first failed write of h. */
static void sc__check(sc_html *h, bool ok)
{
    if (!ok && !h->error)
        h->error = errno ? -errno : -EIO;
}

static void sc__put(sc_html *h, const char *s, size_t n)
{
    if (n)
        sc__check(h, fwrite(s, 1, n, h->out) == n);
}

int sc_html_append(sc_html *h, sc_html *section)
{
    char buf[65536];
    size_t got;

    if (fflush(section->out) != 0 || fseek(section->out, 0, SEEK_SET) != 0)
        return -errno;
    while ((got = fread(buf, 1, sizeof(buf), section->out)) > 0)
        sc__put(h, buf, got);
    if (ferror(section->out))
        return -EIO;
    return fseek(section->out, 0, SEEK_END) == 0 ? h->error : -errno;
}

int sc_html_close(sc_html *h)
{
    int rc;

    if (!h)
        return 0;
    sc__check(h, fflush(h->out) == 0);
    rc = h->error;
    if (h->owned)
        fclose(h->out);
    free(h);
    return rc;
}

void sc__html_markup(sc_html *h, const char *markup)
{
    sc__put(h, markup, strlen(markup));
}

/* One line (no newline in it) with HTML's escapes. */
static void sc__line(sc_html *h, const char *p, size_t n)
{
    size_t start = 0;

    for (size_t i = 0; i < n; i++) {
        const char *esc = p[i] == '&'    ? "&amp;"
                          : p[i] == '<'  ? "&lt;"
                          : p[i] == '>'  ? "&gt;"
                          : p[i] == '"'  ? "&quot;"
                          : p[i] == '\'' ? "&#39;"
                                         : NULL;
        if (!esc)
            continue;
        sc__put(h, p + start, i - start);
        sc__put(h, esc, strlen(esc));
        start = i + 1;
    }
    sc__put(h, p + start, n - start);
}

void sc_html_text(sc_html *h, const char *text)
{
    char buf[4096];

    /* Line by line (a <pre> keeps its lines), each first made safe text: no control
       character or invalid UTF-8 reaches the page; a printable line (text escaped already)
       is not escaped twice. */
    for (const char *p = text ? text : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (sc_text_is_printable(p, n)) {
            sc__line(h, p, n);
        } else {
            for (size_t done = 0; done < n;) { /* in pieces, never inside a character */
                size_t piece = sc_text_cut(p + done, n - done, sizeof(buf) / 6);
                if (piece == 0)
                    piece = 1;
                size_t len = sc_text_escape(buf, sizeof(buf), p + done, piece);
                sc__line(h, buf, len);
                done += piece;
            }
        }
        p += n;
        if (*p == '\n') {
            sc__put(h, "\n", 1);
            p++;
        }
    }
}

void sc__html_attr(sc_html *h, const char *name, const char *value)
{
    sc__put(h, " ", 1);
    sc__html_markup(h, name);
    sc__put(h, "=\"", 2);
    sc_html_text(h, value); /* a newline in it stays a newline: harmless inside quotes */
    sc__put(h, "\"", 1);
}

/* printf of one number into the page. */
__attribute__((format(printf, 2, 0))) static void sc__vnum(sc_html *h, const char *format, va_list ap)
{
    char buf[512];
    int n = vsnprintf(buf, sizeof(buf), format, ap);

    if (n > 0)
        sc__put(h, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void sc__html_num(sc_html *h, const char *format, ...)
{
    va_list ap;

    va_start(ap, format);
    sc__vnum(h, format, ap);
    va_end(ap);
}

void sc__html_int(sc_html *h, const char *format, ...)
{
    va_list ap;

    va_start(ap, format);
    sc__vnum(h, format, ap);
    va_end(ap);
}

void sc_html_fixed(sc_html *h, int decimals, double v)
{
    char buf[512];
    int n = snprintf(buf, sizeof(buf), "%.*f", decimals < 0 ? 0 : decimals > 17 ? 17 : decimals, v);

    if (n > 0)
        sc__put(h, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

char *sc_fmt_sig(char *buf, size_t len, double v, int digits)
{
    int decimals = 0;

    if (isfinite(v) && v != 0) {
        decimals = digits - 1 - (int)floor(log10(fabs(v)));
        decimals = decimals < 0 ? 0 : decimals > 12 ? 12 : decimals;
    }
    snprintf(buf, len, "%.*f", decimals, v);
    return buf;
}

void sc_html_sig(sc_html *h, int digits, double v)
{
    char buf[512];

    sc_fmt_sig(buf, sizeof(buf), v, digits);
    sc__put(h, buf, strlen(buf));
}

void sc__html_path(sc_html *h, const char *shape, const double *v, size_t n)
{
    size_t used = 0;

    for (const char *p = shape; *p; p++) {
        if (*p == '#')
            sc_html_fixed(h, 1, used < n ? v[used++] : 0);
        else if (strchr("MLHVZ ,", *p)) /* a literal of path letters only, even if misused */
            sc__put(h, p, 1);
    }
}

void sc__html_head(sc_html *h, const char *title, const char *css)
{
    sc_html_tag(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"" SC_HTML_CSP "\">"
                   "<meta name=\"viewport\" content=\"width=device-width\">"
                   "<title>");
    sc_html_text(h, title);
    sc_html_tag(h, "</title><style>");
    sc__html_markup(h, css);
    sc_html_tag(h, "</style></head><body>\n<h1>");
    sc_html_text(h, title);
    sc_html_tag(h, "</h1>\n");
}

void sc_html_tail(sc_html *h)
{
    sc_html_tag(h, "<p class=\"note\">Written by streamcard " STREAMCARD_VERSION
                   "; self-contained: no script, nothing loaded from a network.</p>\n"
                   "</body></html>\n");
}
