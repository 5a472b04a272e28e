#!/usr/bin/env bash
# What `streamcard run` loads (a run may add at most 10 ms of wall time): the command links no
# OpenSSL (its relocations and pages cost every process 1.5 ms on a 2-core VM) and no SQLite
# (0.45 ms; the history loads it), a run
# outside the plugin signs nothing and so never loads libcrypto, and verify, which checks
# signatures, still loads it when a bundle holds a signed statement (wrapper.attest checks
# the signatures themselves). The bundle's SHA256SUMS, made with Nettle, is what sha256sum
# computes.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

if readelf -d "$BIN/streamcard" | grep -F NEEDED | grep -F libcrypto >"$WORK/needed"; then
    fail "streamcard links libcrypto: $(cat "$WORK/needed")"
fi
LD_DEBUG=libs expect_status 0 "$BIN/streamcard" run --workload ipsearch --cpu-list 0 \
    --threads 1 --nb 2000 --nq 4 --dim 32 --k 5 --iterations 2 --expect-max-interference 100 \
    --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
# LD_DEBUG=libs names every library a process of the run loads; the run's own process is
# the first pid (the workload, a process of its own, loads what it links).
first=$(grep -m1 -oE '^ *[0-9]+:' "$WORK/err" | tr -d ' :')
[ -n "$first" ] || fail "LD_DEBUG=libs printed nothing: cannot tell what the run loaded"
grep -E "^ *$first:.*(calling init|find library)" "$WORK/err" >"$WORK/loads"
grep -qF "libnettle" "$WORK/loads" || fail "no libnettle among streamcard's libraries"
if grep -F libcrypto "$WORK/loads" >"$WORK/crypto"; then
    fail "streamcard run loaded libcrypto: $(head -n 2 "$WORK/crypto")"
fi
# No SQLite: only a history command loads it, when it opens its store
# (wrapper/history_sqlite.c); analysis.history checks that it still does.
if grep -F libsqlite3 "$WORK/loads" >"$WORK/sqlite"; then
    fail "streamcard run loaded libsqlite3: $(head -n 2 "$WORK/sqlite")"
fi
if readelf -d "$BIN/streamcard" | grep -F NEEDED | grep -F libsqlite3 >"$WORK/needed"; then
    fail "streamcard links libsqlite3: $(cat "$WORK/needed")"
fi
(cd "$B" && sha256sum --quiet -c SHA256SUMS) >"$WORK/sums" 2>&1 ||
    fail "sha256sum disagrees with the bundle's SHA256SUMS: $(head -n 3 "$WORK/sums")"
echo "ok: lean_run"
