#!/usr/bin/env bash
# run-fuzz.sh: a longer libFuzzer run of every fuzz target (tests/fuzz/fuzz_*.c).
# Usage: tests/fuzz/run-fuzz.sh [--merge] [SECONDS]     (default 300 seconds per target)
#
# Configures and builds build-fuzz/ with clang and STREAMCARD_FUZZ=ON (only the fuzz
# targets are built), runs the targets nproc at a time for SECONDS each, and prints per
# target the executions, the speed and the coverage libFuzzer reached (cov: edges, ft:
# features, corp: inputs kept). Findings (crash-*, leak-*, timeout-*, oom-*) and each
# target's log stay in build-fuzz/tests/fuzz/long/<target>/; the exit status is non-zero
# when any target found something.
#
# --merge: afterwards, add to tests/fuzz/corpus/<target>/ the inputs of the run that reach
# coverage the corpus does not (libFuzzer -merge=1); review and commit them like code.
# Needs Debian's clang and libclang-rt-14-dev (and libomp-dev: the build finds OpenMP).
set -euo pipefail
cd "$(dirname "$0")/../.."
merge=0
if [ "${1:-}" = "--merge" ]; then merge=1; shift; fi
seconds=${1:-300}
build=build-fuzz

command -v clang >/dev/null || { echo "run-fuzz.sh: clang is missing (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang cmake -S . -B "$build" -DSTREAMCARD_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target fuzz >/dev/null

targets=()
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    targets+=("${name#fuzz_}")
done
work=$build/tests/fuzz/long
mkdir -p "$work"
echo "run-fuzz.sh: ${#targets[@]} targets, $seconds s each, $(nproc) at a time"

# One target per job, nproc jobs at a time.
printf '%s\n' "${targets[@]}" |
    xargs -P "$(nproc)" -I{} sh -c \
        'tests/fuzz/run-target.sh "$1/bin/fuzz_$2" "tests/fuzz/corpus/$2" "$3/$2" "$4" >/dev/null 2>&1; echo $? >"$3/$2/rc"' \
        sh "$build" {} "$work" "$seconds" || true

status=0
printf '%-10s %12s %9s %7s %7s %11s %s\n' target executions exec/s cov ft corpus result
for t in "${targets[@]}"; do
    log=$work/$t/log
    last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
    rc=$(cat "$work/$t/rc" 2>/dev/null || echo 1)
    found=$(ls "$work/$t"/crash-* "$work/$t"/leak-* "$work/$t"/timeout-* "$work/$t"/oom-* 2>/dev/null || true)
    result=ok
    if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
        result="FOUND: ${found:-exit $rc} (see $log)"
        status=1
    fi
    printf '%-10s %12s %9s %7s %7s %11s %s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
    if [ "$merge" -eq 1 ] && [ "$rc" -eq 0 ]; then
        "$build/bin/fuzz_$t" -merge=1 "tests/fuzz/corpus/$t" "$work/$t/corpus" >"$work/$t/merge.log" 2>&1 ||
            echo "run-fuzz.sh: $t: merge failed (see $work/$t/merge.log)" >&2
    fi
done
exit "$status"
