#!/usr/bin/env bash
# analysis_cost.sh: what verify, compare and report cost over bundles of many runs: one pass
# over a bundle's files per command (doc/contracts/bundle.md, "One pass"). Two
# bundles of a small STREAM card with runs: N (default 30) are made once; then verify A,
# compare A B and report A B run R times each, interleaved (each round runs every command of
# every build once, in turn), with each build (--old: another build, e.g. the one before the
# one-pass reader, for a side-by-side ratio). Prints each command's openat calls (strace -f
# -c, when strace is installed) and its median wall time [min-max], and compare/verify. A
# benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/analysis_cost.sh [--bin DIR] [--old DIR] [--runs-per-bundle N] [--rounds R]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
OLD="" N=30 R=5
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --old) OLD=$2; shift 2 ;;
    --runs-per-bundle) N=$2; shift 2 ;;
    --rounds) R=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "analysis_cost: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] || { echo "analysis_cost: build first; looked in $BIN" >&2; exit 2; }
[ -z "$OLD" ] || [ -x "$OLD/streamcard" ] || { echo "analysis_cost: no streamcard in $OLD" >&2; exit 2; }
WORK=$(mktemp -d /tmp/streamcard-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}

bundle() { # bundle NAME: a bundle of N runs of a small STREAM card
    "$BIN/streamcard" run --workload stream --kernel copy --cpu-list 0-1 --threads 2 \
        --array-size 100000 --iterations 3 --cache-resident accept \
        --expect-max-interference 100 --runs "$N" --run-name "$1" --output "$WORK/runs" \
        --quiet 2>/dev/null | sed -n 's/^BUNDLE=//p'
}
A=$(bundle a)
B=$(bundle b)
[ -d "$A" ] && [ -d "$B" ] || { echo "analysis_cost: the runs made no bundles" >&2; exit 1; }
echo "bundles: $N runs each, $(find "$A" -type f | wc -l) files, $(du -sk "$A" | cut -f1) KiB"

builds=(new)
[ -z "$OLD" ] || builds=(old new)
bin_of() { [ "$1" = new ] && echo "$BIN" || echo "$OLD"; }
cmds=(verify compare report)
# argv_of BUILD CMD: the command line into argv
argv_of() {
    local sc
    sc="$(bin_of "$1")/streamcard"
    case $2 in
    verify) argv=("$sc" verify "$A") ;;
    compare) argv=("$sc" compare "$A" "$B") ;;
    report) argv=("$sc" report "$A" "$B" -o "$WORK/page.html") ;;
    esac
}
# run_cmd BUILD CMD [PREFIX...]: one command over the bundles, its output discarded (a
# refusal is said: its figure is not the cost of an analysis)
run_cmd() {
    local b=$1 c=$2
    shift 2
    argv_of "$b" "$c"
    "$@" "${argv[@]}" >/dev/null 2>"$WORK/err" ||
        echo "  ($b $c: exit status $?: $(head -c 200 "$WORK/err"))" >&2
}

# Opens: strace -c's openat calls (the whole process, its libraries included).
declare -A opens
if command -v strace >/dev/null; then
    for b in "${builds[@]}"; do
        for c in "${cmds[@]}"; do
            run_cmd "$b" "$c" strace -f -c -e trace=openat -o "$WORK/sc.txt"
            opens[$b.$c]=$(awk '$NF == "openat" { print $4 }' "$WORK/sc.txt")
        done
    done
fi

# Wall time: R rounds, each command of each build once per round, in turn.
declare -A times
for ((r = 0; r < R; r++)); do
    for c in "${cmds[@]}"; do
        for b in "${builds[@]}"; do
            t0=$(date +%s%N)
            run_cmd "$b" "$c"
            t1=$(date +%s%N)
            times[$b.$c]+="$(((t1 - t0) / 1000)) "
        done
    done
done
# stats "US US ...": "median [min-max]" in ms
stats() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.1f [%.1f-%.1f]", m / 1000, v[1] / 1000, v[NR] / 1000 }'; }
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END {
    print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-6s %-8s %8s  %s\n' build command openat "wall ms, median [min-max] of $R"
for b in "${builds[@]}"; do
    for c in "${cmds[@]}"; do
        printf '%-6s %-8s %8s  %s\n' "$b" "$c" "${opens[$b.$c]:-n/a}" "$(stats <<<"${times[$b.$c]}")"
    done
    v=$(median <<<"${times[$b.verify]}") k=$(median <<<"${times[$b.compare]}")
    awk -v v="$v" -v k="$k" -v b="$b" 'BEGIN { printf "%-6s compare/verify %.2f\n", b, k / v }'
done
if [ -n "$OLD" ]; then
    for c in "${cmds[@]}"; do
        o=$(median <<<"${times[old.$c]}") n=$(median <<<"${times[new.$c]}")
        awk -v o="$o" -v n="$n" -v c="$c" 'BEGIN { printf "new/old %-8s %.2f\n", c, n / o }'
    done
fi
