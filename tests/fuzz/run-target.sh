#!/bin/sh
# run-target.sh: one bounded libFuzzer run of one target, for ctest and run-fuzz.sh.
# Usage: run-target.sh FUZZER CORPUS_DIR WORK_DIR SECONDS [extra libFuzzer flags]
#
# The checked-in corpus is read, never written: libFuzzer writes the inputs it finds to the
# first directory it is given, WORK_DIR/corpus (emptied first), and crashes, leaks and
# timeouts to WORK_DIR/crash-*, leak-*, timeout-*. A dictionary <target>.dict next to
# this script is used when there is one. Prints libFuzzer's final statistics (executions,
# coverage) and exits non-zero when it found anything.
set -eu
fuzzer=$1 corpus=$2 work=$3 seconds=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
target=$(basename "$fuzzer" | sed 's/^fuzz_//')

rm -rf "$work/corpus"
rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$work"/slow-unit-*
mkdir -p "$work/corpus"
set -- -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "$@"
[ -f "$here/$target.dict" ] && set -- -dict="$here/$target.dict" "$@"
# Leaks are real findings here (every target frees what it allocates); UBSan stops at the
# first report (the build uses -fno-sanitize-recover=undefined).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
    "$fuzzer" "$@" "$work/corpus" "$corpus" >"$work/log" 2>&1 && rc=0 || rc=$?
# The summary: the last status line (cov: ft: corp: exec/s) and the final statistics.
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/log" | tail -n 1 || true
grep -E '^stat::' "$work/log" || true
if [ "$rc" -ne 0 ]; then
    echo "run-target.sh: $target: libFuzzer exited with $rc; the log follows" >&2
    tail -n 60 "$work/log" >&2
    ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null >&2 || true
fi
exit "$rc"
