#!/usr/bin/env bash
# The report's pages reach no raw text (doc/contracts/errors.md): wrapper/html.h is the one
# writer, and its guarantees hold at compile time. A page written through it builds under
# -Wall -Werror; markup from a variable, a %s number format, a string as a number do not;
# and the page code (report_html.c, report_figures.c, report_svg.c, svg_heatmap.c,
# svg_compare.c, svg_util.c, study_page.c, history_page.c, svg_trend.c) calls no stdio writer
# but to stderr, so nothing reaches a page past the writer.
# Usage: html_writer.sh SRC CC
set -euo pipefail
SRC=$1 CC=$2
WORK=$(mktemp -d /tmp/streamcard-html.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

cat >"$WORK/page.c" <<'C'
#include "html.h"
void page(sc_html *h, const char *user, double v, long n)
{
    sc_html_tag(h, "<p");
    sc_html_attr(h, "class", user);
    sc_html_tag(h, ">");
    sc_html_text(h, user);
    sc_html_num(h, "%.4g", v);
    sc_html_int(h, "%lld", n);
    sc_html_fixed(h, 2, v);
    const double d[] = {v, v};
    sc_html_path(h, "M# #", d, 2);
    sc_html_tag(h, "</p>");
#ifdef MARKUP_FROM_A_VARIABLE
    sc_html_tag(h, user);
#endif
#ifdef TEXT_AS_A_NUMBER_FORMAT
    sc_html_num(h, "%s", v);
#endif
#ifdef TEXT_AS_A_NUMBER
    sc_html_num(h, "%s", user);
#endif
#ifdef TEXT_AS_AN_INTEGER
    sc_html_int(h, "%s", user);
#endif
#ifdef ATTRIBUTE_NAME_FROM_A_VARIABLE
    sc_html_attr(h, user, user);
#endif
#ifdef PATH_FROM_A_VARIABLE
    sc_html_path(h, user, d, 2);
#endif
}
C
build() { "$CC" -std=gnu11 -Wall -Wextra -Werror -I"$SRC/wrapper" -c "$WORK/page.c" -o "$WORK/page.o" "$@"; }
build 2>"$WORK/err" || fail "a page written through the writer does not build: $(cat "$WORK/err")"
for misuse in MARKUP_FROM_A_VARIABLE TEXT_AS_A_NUMBER_FORMAT TEXT_AS_A_NUMBER TEXT_AS_AN_INTEGER \
    ATTRIBUTE_NAME_FROM_A_VARIABLE PATH_FROM_A_VARIABLE; do
    if build -D"$misuse" 2>/dev/null; then fail "$misuse builds: raw text could reach a page"; fi
done

for f in report_html.c report_figures.c report_svg.c svg_heatmap.c svg_compare.c svg_util.c \
    study_page.c history_page.c svg_trend.c; do
    if grep -nE '\b(v?fprintf|fputs|fputc|putc|putchar|fwrite|v?printf|puts)[[:space:]]*\(' \
        "$SRC/wrapper/$f" | grep -v 'stderr'; then
        fail "wrapper/$f writes past the page writer (html.h)"
    fi
done
echo "ok: html_writer"
