/* html.c: text into HTML (see html.h). */
#include "html.h"
#include "sc_text.h"

#include <string.h>

/* One line (no newline in it) with HTML's escapes. */
static void sc__html_line(FILE *out, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (p[i]) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(p[i], out);
        }
    }
}

void sc_html_escape(FILE *out, const char *text)
{
    char buf[4096];

    /* Line by line (a <pre> keeps its lines), each first made safe text: no control
       character or invalid UTF-8 reaches the page; a printable line (text escaped already)
       is not escaped twice. */
    for (const char *p = text ? text : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (sc_text_is_printable(p, n)) {
            sc__html_line(out, p, n);
        } else {
            for (size_t done = 0; done < n;) { /* in pieces, never inside a character */
                size_t piece = sc_text_cut(p + done, n - done, sizeof(buf) / 6);
                if (piece == 0)
                    piece = 1;
                size_t len = sc_text_escape(buf, sizeof(buf), p + done, piece);
                sc__html_line(out, buf, len);
                done += piece;
            }
        }
        p += n;
        if (*p == '\n') {
            fputc('\n', out);
            p++;
        }
    }
}
