#!/usr/bin/env bash
# history_scale.sh BUILD_DIR: the history store at 1,000 and 100,000 bundles
# (doc/contracts/analysis.md, "History"). The bundles are synthetic records
# (tests/wrapper/history_synth.c) put in through the same write as `streamcard history add`
# (sc_history_put()), spread over 100 cards (one a day each), one metric with 6 runs each: what
# verify and the bundle's files cost is not measured here, only the store. Reports per size: the
# ingest rate (one transaction per bundle, as add does, and 1000 per transaction), the store's size
# per bundle, and the time of `history show` of one card, of `history show` of everything, and of
# `history check` over every series. Times are wall clock on this machine: compare the two
# sizes, not the numbers across machines.
set -euo pipefail
BIN=$(cd "${1:?usage: history_scale.sh BUILD_DIR}" && pwd)/bin
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

now() { date +%s.%N; }
secs() { python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }

printf '%-9s %-22s %12s %10s\n' bundles what seconds per_bundle
for n in 1000 100000; do
    db="$W/h$n.db"
    # one transaction a bundle, as `history add` writes: the first 1000 only (the rate)
    rm -f "$W/one.db"*
    t0=$(now); "$BIN/history_synth" "$W/one.db" 1000 --cards 100; t1=$(now)
    printf '%-9s %-22s %12s %10s\n' "$n" "ingest 1000, 1/tx" "$(secs "$t0" "$t1")" \
        "$(python3 -c "print('%.2f ms' % ((float('$t1') - float('$t0')) * 1000 / 1000))")"
    t0=$(now); "$BIN/history_synth" "$db" "$n" --cards 100 --batch 1000 --step $((n / 100 * 60 / 100 * 100)) 0.9; t1=$(now)
    printf '%-9s %-22s %12s %10s\n' "$n" "ingest, 1000/tx" "$(secs "$t0" "$t1")" \
        "$(python3 -c "print('%.3f ms' % ((float('$t1') - float('$t0')) * 1000 / $n))")"
    size=$(stat -c %s "$db")
    [ -e "$db-wal" ] && size=$((size + $(stat -c %s "$db-wal")))
    printf '%-9s %-22s %12s %10s\n' "$n" "store size (bytes)" "$size" "$((size / n)) B"
    t0=$(now); "$BIN/streamcard" history show --db "$db" --card synthetic-7 >/dev/null; t1=$(now)
    printf '%-9s %-22s %12s\n' "$n" "show one card" "$(secs "$t0" "$t1")"
    t0=$(now); "$BIN/streamcard" history show --db "$db" --csv >/dev/null; t1=$(now)
    printf '%-9s %-22s %12s\n' "$n" "show all (csv)" "$(secs "$t0" "$t1")"
    t0=$(now); "$BIN/streamcard" history check --db "$db" --no-record >"$W/check.out" || true; t1=$(now)
    printf '%-9s %-22s %12s   (%s change points in 100 series)\n' "$n" "check all series" \
        "$(secs "$t0" "$t1")" "$(wc -l <"$W/check.out")"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
