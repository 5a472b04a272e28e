#!/usr/bin/env bash
# hostile_log_cost.sh: what verify, report and export cost on padded logs, the budget of
# doc/contracts/limits.md ("Bounded work"). A real small STREAM run, then its stream.log
# padded to MIB MiB (re-sealed, as a forger would) in three ways: padding lines after the
# table, a million copies of its table row, and (a bundle of 6 runs) every run's log padded
# to MIB6 MiB; and a bundle at every cap at once (the padded log, 4 MiB JSON files). Each
# command runs R times on each bundle with each build (--old: another build, e.g. main's, for
# a side-by-side ratio); prints the median CPU time (user + system) and the peak memory (RSS)
# of each, and old/new. A benchmark, not a test: it asserts nothing and is not
# run by ctest.
#
# usage: tests/bench/hostile_log_cost.sh [--bin DIR] [--old DIR] [--mib N] [--mib6 N] [--runs R]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
OLD="" MIB=60 MIB6=40 R=3
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --old) OLD=$2; shift 2 ;;
    --mib) MIB=$2; shift 2 ;;
    --mib6) MIB6=$2; shift 2 ;;
    --runs) R=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "hostile_log_cost: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] || { echo "hostile_log_cost: build first; looked in $BIN" >&2; exit 2; }
WORK=$(mktemp -d /tmp/streamcard-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}

run() { # run NAME [FLAGS...]: a small real run; prints its bundle
    local name=$1
    shift
    "$BIN/streamcard" run --workload stream --kernel copy --cpu-list 0-1 --threads 2 \
        --array-size 100000 --iterations 3 --cache-resident accept \
        --expect-max-interference 100 --run-name "$name" --output "$WORK/runs" --quiet "$@" \
        2>/dev/null | sed -n 's/^BUNDLE=//p'
}
reseal() {
    (cd "$1" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
        xargs sha256sum >SHA256SUMS)
}
pad() { # pad LOG MIB KIND: appends lines of KIND (padding, rows) until LOG is MIB MiB
    python3 - "$1" "$2" "$3" <<'PY'
import re, sys
path, mib, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
log = open(path).read()
if kind == "rows":
    line = re.search(r"(?m)^Copy:.*$", log).group(0) + "\n"
else:
    line = "padding line %07d: the workload said nothing like this\n"
out, need, i = [log], mib * 1048576 - len(log), 0
while need > 0:
    text = line % i if "%" in line else line
    out.append(text)
    need -= len(text)
    i += 1
open(path, "w").write("".join(out))
PY
}

base=$(run base)
six=$(run six --runs 6)
cp -r "$base" "$WORK/padding" && pad "$WORK/padding/stream.log" "$MIB" padding && reseal "$WORK/padding"
cp -r "$base" "$WORK/rows" && pad "$WORK/rows/stream.log" "$MIB" rows && reseal "$WORK/rows"
# every cap at once: the padded log, and results.json and build.json of 4 MiB each, two
# million numbers (json-c holds about 40 bytes per byte of such a file)
cp -r "$WORK/padding" "$WORK/caps"
for f in results.json build.json; do
    python3 - "$WORK/caps/$f" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
r["pad"] = [0] * ((4 * 1048576 - len(open(p).read()) - 100) // 2)
open(p, "w").write(json.dumps(r, separators=(",", ":")))
PY
done
reseal "$WORK/caps"
cp -r "$six" "$WORK/six"
for i in 1 2 3 4 5 6; do pad "$WORK/six/run-$i/stream.log" "$MIB6" padding; done
reseal "$WORK/six"

# measure BIN CMD...: the median CPU seconds (user + system: what the command itself costs,
# whatever else loads the machine) and the largest peak RSS (MB) of R runs.
measure() {
    local bin=$1 cpus=() rss=0 r
    shift
    for ((r = 0; r < R; r++)); do
        /usr/bin/time -o "$WORK/t" -f "%U %S %M" "$bin/streamcard" "$@" >/dev/null 2>&1 || true
        read -r user sys kb < <(tail -n 1 "$WORK/t") # after "Command exited ..." when it failed
        cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
        [ "$kb" -le "$rss" ] || rss=$kb
    done
    printf '%s %s\n' "$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "$(((R + 1) / 2))p")" \
        "$((rss / 1024))"
}

printf '%-8s %-8s %10s %8s' bundle command "new cpu s" "new MB"
[ -z "$OLD" ] || printf ' %10s %8s %9s %9s' "old cpu s" "old MB" "old/new s" "old/new MB"
echo
for b in padding rows six caps; do
    for cmd in verify report export; do
        case $cmd in
        verify) args=(verify "$WORK/$b") ;;
        report) args=(report "$WORK/$b" -o "$WORK/page.html") ;;
        export) args=(export --prometheus "$WORK/$b") ;;
        esac
        read -r ns nm < <(measure "$BIN" "${args[@]}")
        printf '%-8s %-8s %10s %8s' "$b" "$cmd" "$ns" "$nm"
        if [ -n "$OLD" ]; then
            read -r os om < <(measure "$OLD" "${args[@]}")
            printf ' %10s %8s %9.1f %9.1f' "$os" "$om" \
                "$(awk -v a="$os" -v b="$ns" 'BEGIN { print a / (b > 0.005 ? b : 0.005) }')" \
                "$(awk -v a="$om" -v b="$nm" 'BEGIN { print a / (b > 0 ? b : 1) }')"
        fi
        echo
    done
done
echo "(padding, rows: stream.log of $MIB MiB; six: 6 runs, each stream.log of $MIB6 MiB; caps: the"
echo " padded log, results.json and build.json of 4 MiB; $R tries each, median CPU time (user +"
echo " system), largest peak RSS)"
