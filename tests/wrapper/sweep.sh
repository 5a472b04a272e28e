#!/usr/bin/env bash
# A two-value sweep runs each value as its own verified bundle and writes the table; the
# two runs compare as a valid single-variable comparison (they name their independent
# variable); a bad value stops the sweep before anything runs.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
cat >"$WORK/sweep.yaml" <<'CARD'
version: 1
experiment:
  workload: stream
  kernel: copy
  cpu_list: 0-1
  threads: [1, 2]
  array_size: 200000
  iterations: 4
CARD
expect_status 0 "$BIN/streamcard" run "$WORK/sweep.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/out" "streamcard sweep: threads over 2 values"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/out")
[ -f "$table" ] || fail "no sweep table file"
bundles=()
for t in 1 2; do
    row=$(grep "^| $t | " "$table") || fail "no row for threads=$t"
    case $row in *"| ok |"*) ;; *) fail "threads=$t not ok: $row" ;; esac
    b=$(awk -F'|' '{gsub(/ /, "", $6); print $6}' <<<"$row")
    [ -d "$b" ] || fail "row names no bundle: $row"
    expect_contains "$b/run.conf" "sweep_variable=threads"
    expect_contains "$b/card.yaml" "threads: $t"
    "$BIN/streamcard" verify "$b" >/dev/null 2>&1 || fail "verify rejects $b"
    bundles+=("$b")
done
expect_status 0 "$BIN/streamcard" compare "${bundles[@]}"
expect_contains "$WORK/out" "independent variable: threads (the sweep both runs belong to)"

# The dry run shows every run and writes nothing.
expect_status 0 "$BIN/streamcard" run "$WORK/sweep.yaml" --output "$WORK/dry" --dry-run
expect_contains "$WORK/out" "--- run 2 of 2: threads=2"
[ ! -e "$WORK/dry" ] || fail "a dry sweep wrote files"

# A bad value: the whole sweep is refused before its first run.
sed -i 's/threads: \[1, 2\]/threads: [1, 3]/' "$WORK/sweep.yaml"
expect_status 2 "$BIN/streamcard" run "$WORK/sweep.yaml" --output "$WORK/bad" --quiet
expect_contains "$WORK/err" "(sweep value 2): threads: 3 is more than the 2 CPUs"
[ ! -e "$WORK/bad" ] || fail "a refused sweep ran"
echo "ok: sweep"
