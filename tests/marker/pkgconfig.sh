#!/usr/bin/env bash
# The installed marker library: `cmake --install` into a temporary prefix, then a program of
# a user's built with `cc prog.c $(pkg-config --cflags --libs streamcard-marker)` against
# it (shared, and --static), run with and without STREAMCARD_TRACE_FD.
# Usage: pkgconfig.sh BIN SRC CMAKE BUILD CC [FLAGS]
# FLAGS: what a program needs beside pkg-config's (a sanitized build's -fsanitize=...).
BIN=$1 SRC=$2 CMAKE=$3 BUILD=$4 CC=$5 FLAGS=${6:-}
. "$SRC/tests/lib.sh"
command -v pkg-config >/dev/null || { echo "skip: no pkg-config"; exit 77; }
PREFIX="$WORK/prefix"

"$CMAKE" --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "cmake --install into $PREFIX failed"; }
PC=$(find "$PREFIX" -name streamcard-marker.pc)
[ -n "$PC" ] || fail "no streamcard-marker.pc under $PREFIX"
[ -f "$PREFIX/include/streamcard/marker.h" ] || fail "no include/streamcard/marker.h under $PREFIX"
export PKG_CONFIG_PATH=$(dirname "$PC")
LIBDIR=$(pkg-config --variable=libdir streamcard-marker)
[ "$LIBDIR" = "$(dirname "$(dirname "$PC")")" ] || fail "the .pc's libdir $LIBDIR is not the install's"

cat >"$WORK/prog.c" <<'C'
#include <streamcard/marker.h>
#include <stdio.h>
int main(void)
{
    int rc = sc_marker_begin(SC_MARKER_MAIN_LOOP) | sc_marker_end(SC_MARKER_MAIN_LOOP) |
             sc_marker_figure("answer", 42, "1");
    printf("active=%d rc=%d\n", sc_marker_active(), rc);
    return rc != 0;
}
C
# As a user would type it (word splitting of pkg-config's output wanted here).
# shellcheck disable=SC2046
"$CC" $FLAGS "$WORK/prog.c" -o "$WORK/prog" $(pkg-config --cflags --libs streamcard-marker) ||
    fail "cc prog.c \$(pkg-config --cflags --libs streamcard-marker) failed"
# The static archive, with what --static adds (-pthread -lm).
# shellcheck disable=SC2046
"$CC" $FLAGS "$WORK/prog.c" -o "$WORK/prog-static" $(pkg-config --cflags streamcard-marker) \
    "$LIBDIR/libstreamcard-marker.a" $(pkg-config --libs-only-other --libs-only-l --static streamcard-marker | sed 's/-lstreamcard-marker//') ||
    fail "cc prog.c with libstreamcard-marker.a failed"
grep -q streamcard-marker <<<"$(ldd "$WORK/prog-static")" && fail "prog-static links the shared library"

for prog in prog prog-static; do
    LD_LIBRARY_PATH="$LIBDIR" "$WORK/$prog" >"$WORK/$prog.out" || fail "$prog without an observer failed"
    expect_contains "$WORK/$prog.out" "active=0 rc=0"
    STREAMCARD_TRACE_FD=3 LD_LIBRARY_PATH="$LIBDIR" "$WORK/$prog" >"$WORK/$prog.out" 3>"$WORK/$prog.trace" ||
        fail "$prog with STREAMCARD_TRACE_FD failed"
    expect_contains "$WORK/$prog.out" "active=1 rc=0"
    printf 'TRACE_WORKLOAD_PHASE=main_loop_begin\nTRACE_WORKLOAD_PHASE=main_loop_end\nTRACE_FIGURE name=answer value=42 unit=1\n' >"$WORK/want"
    cmp "$WORK/want" "$WORK/$prog.trace" || fail "$prog wrote other lines: $(cat "$WORK/$prog.trace")"
done
echo "ok: the installed marker library through pkg-config (shared and static)"
