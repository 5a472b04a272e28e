/*
 * html.h: text into HTML, for the report page (report_html.c) and its plots
 * (report_svg.c), which both write user-controlled text (bundle names, card values).
 */
#ifndef SC_HTML_H
#define SC_HTML_H

#include <stdio.h>

/* Writes text (NULL: nothing) with HTML's five escapes (& < > " '), its lines kept and
   each made safe text first (sc_text_escape: control characters, ESC, invalid UTF-8). */
void sc_html_escape(FILE *out, const char *text);

#endif
