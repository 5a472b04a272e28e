#!/usr/bin/env bash
# SQLite is loaded by the history's first open of a store, not linked (wrapper/history_sqlite.c,
# doc/contracts/analysis.md, "The store"): `history add` loads libsqlite3.so.0 and works
# (analysis.history checks the store itself); `streamcard run` never loads it
# (wrapper.lean_run). Without the library (hidden in a mount namespace of its own: root
# only, else that part is skipped) a history command fails with exit 3 and one line naming
# the library and the Debian package, and makes no store.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

expect_status 0 "$BIN/streamcard" run --workload ipsearch --cpu-list 0 --threads 1 --nb 2000 \
    --nq 4 --dim 32 --k 5 --iterations 2 --expect-max-interference 100 --output "$WORK/runs" \
    --quiet
B=$(bundle_of "$WORK/out")

LD_DEBUG=libs expect_status 0 "$BIN/streamcard" history add --db "$WORK/h.db" "$B"
grep -E "calling init: .*libsqlite3\.so\.0" "$WORK/err" >/dev/null ||
    fail "history add did not load libsqlite3.so.0: $(grep -m 3 sqlite "$WORK/err" || true)"
[ -s "$WORK/h.db" ] || fail "history add made no store at $WORK/h.db"

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
    echo "ok: history_lazy (without the library: skipped, it needs root for a mount namespace)"
    exit 0
fi
lib=$(LD_DEBUG=libs "$BIN/streamcard" history add --db "$WORK/h2.db" "$B" 2>&1 >/dev/null |
    sed -n 's/.*calling init: \(.*libsqlite3\.so\.0[^ ]*\)$/\1/p' | head -n 1)
[ -n "$lib" ] && [ -f "$lib" ] || fail "no path of libsqlite3.so.0 in LD_DEBUG's lines"
# bind-mounting /dev/null over the library: dlopen finds a file too short to be one.
expect_status 3 unshare -m sh -c 'mount --bind /dev/null "$1" && exec "$2" history add --db "$3" "$4"' \
    sh "$lib" "$BIN/streamcard" "$WORK/h3.db" "$B"
expect_contains "$WORK/err" "streamcard: history add: $WORK/h3.db: the history needs SQLite's libsqlite3.so.0 (Debian: libsqlite3-0): "
expect_line_count "$WORK/err" 1
[ ! -e "$WORK/h3.db" ] || fail "a store was made without SQLite: $WORK/h3.db"
echo "ok: history_lazy"
