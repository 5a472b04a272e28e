#!/usr/bin/env bash
# test_stream_cli.sh: streamcard-stream as the wrapper sees it: its exit codes, trace
# lines, table, validation lines, JSON and error messages.
#
# usage: test_stream_cli.sh BINARY CASE
# One ctest test per CASE (see tests/kernels/CMakeLists.txt). SC_PYTHON3 names the
# interpreter used to parse the JSON. Small arrays, odd sizes (unaligned heads and tails
# for the streaming stores), no timing assertions.
set -u

BIN=$1
CASE=$2
PY=${SC_PYTHON3:-python3}
N=100003 # odd, not a multiple of any vector width or of the 512-element chunk granule
# shellcheck source=../workload_cli_lib.sh
. "$(dirname "$0")/../workload_cli_lib.sh"
unset STREAMCARD_FAULT

# check_run THREADS KERNEL CONTRACT ROWS...: the trace protocol and the result of a good run.
check_run() {
    local threads=$1 kernel=$2 contract=$3
    shift 3
    [ "$RC" -eq 0 ] || fail "exit $RC, expected 0"
    [ ! -s "$TMP/err" ] || fail "unexpected stderr"
    grep -qx "Number of Threads requested = $threads" "$TMP/out" || fail "requested != $threads"
    grep -qx "Number of Threads counted = $threads" "$TMP/out" || fail "counted != $threads"
    [ "$(count '^TRACE_THREAD_BINDING ')" -eq "$threads" ] || fail "binding lines != $threads"
    local ids
    ids=$(sed -n 's/^TRACE_THREAD_BINDING thread=\([0-9]*\) cpu=[0-9]*$/\1/p' "$TMP/out" |
        sort -n | tr '\n' ' ')
    [ "$ids" = "$(seq 0 $((threads - 1)) | tr '\n' ' ')" ] || fail "binding thread ids: $ids"
    [ "$(count '^TRACE_WORKLOAD_PHASE=main_loop_begin$')" -eq 1 ] || fail "main_loop_begin"
    [ "$(count '^TRACE_WORKLOAD_PHASE=main_loop_end$')" -eq 1 ] || fail "main_loop_end"
    # Order: requested, bindings, counted, begin, end, table, verdict.
    local order
    order=$(grep -n -e '^Number of Threads requested' -e '^TRACE_THREAD_BINDING' \
        -e '^Number of Threads counted' -e '^TRACE_WORKLOAD_PHASE' -e '^Function ' \
        -e '^Solution Validates' "$TMP/out" | cut -d: -f2- | sed 's/ thread=.*//;s/ = .*//' |
        uniq | tr '\n' '|')
    [ "$order" = "Number of Threads requested|TRACE_THREAD_BINDING|Number of Threads counted|TRACE_WORKLOAD_PHASE=main_loop_begin|TRACE_WORKLOAD_PHASE=main_loop_end|Function    Best Rate MB/s  Avg time     Min time     Max time|Solution Validates ($contract)|" ] ||
        fail "line order: $order"
    grep -q 'Failed Validation' "$TMP/out" && fail "Failed Validation printed"
    # Exactly the rows of the kernels that ran, in STREAM's order.
    local rows
    rows=$(grep -E '^(Copy|Scale|Add|Triad):' "$TMP/out" | cut -d: -f1 | tr '\n' ' ')
    [ "$rows" = "$* " ] || fail "table rows '$rows', expected '$* '"
    grep -Eq '^(Copy|Scale|Add|Triad): +[0-9]+\.[0-9] +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6}$' \
        "$TMP/out" || fail "table row format"
    : "$kernel"
}

# check_json PATH KERNEL THREADS STORES VALIDATION: the results file parses and says so.
check_json() {
    "$PY" - "$@" <<'EOF' || fail "JSON check failed"
import json, sys
path, kernel, threads, stores, validation = sys.argv[1:6]
with open(path) as f:
    d = json.load(f)
names = ["copy", "scale", "add", "triad"] if kernel == "all" else [kernel]
assert d["schema"] == 1 and d["workload"] == "stream", d
assert d["kernel"] == kernel, d["kernel"]
assert d["array_size"] == 100003 and d["iterations"] == 3, d
assert d["threads"] == int(threads), d["threads"]
assert d["nt_stores"] == stores, d["nt_stores"]
assert d["validation"] == validation, d["validation"]
m = d["metrics"]
assert list(m["rates"]) == names, m["rates"]
assert list(m["times"]) == names, m["times"]
for k in names:
    t = m["times"][k]
    assert m["rates"][k] > 0, m["rates"]
    assert 0 < t["min_time_s"] <= t["avg_time_s"] <= t["max_time_s"], t
if kernel != "all":
    assert m["best_rate_MBps"] == m["rates"][kernel], m
    for key in ("avg_time_s", "min_time_s", "max_time_s"):
        assert m[key] == m["times"][kernel][key], key
else:
    assert "best_rate_MBps" not in m, m
EOF
}

# The store path each --nt-stores mode must report, and the JSON value for it.
stores_for() {
    local best
    best=$("$BIN" --build-info | sed -n 's/^nt_stores_available=//p')
    case $1 in
    off) echo "off" ;;
    *) if [ "$best" = none ]; then echo off; else echo "$best"; fi ;;
    esac
}

nt_modes() {
    if [ "$(uname -m)" = x86_64 ]; then echo "off on auto"; else echo "off auto"; fi
}

# run_kernel KERNEL CONTRACT ROWS...: every store mode, 2 threads, JSON checked.
run_kernel() {
    local kernel=$1 contract=$2
    shift 2
    for nt in $(nt_modes); do
        OMP_NUM_THREADS=2 run --kernel "$kernel" --array-size $N --iterations 3 \
            --nt-stores "$nt" --json "$TMP/r.json"
        check_run 2 "$kernel" "$contract" "$@"
        local stores
        stores=$(stores_for "$nt")
        if [ "$stores" = off ]; then
            grep -q '^Stores: plain' "$TMP/out" || fail "--nt-stores $nt: Stores line"
        else
            grep -qx "Stores: non-temporal ($stores)" "$TMP/out" || fail "--nt-stores $nt: Stores line"
        fi
        check_json "$TMP/r.json" "$kernel" 2 "$stores" ok
    done
}

# expect_usage_error ARGS...: exit 2, nothing on stdout, one line on stderr in house form.
expect_usage_error() {
    run "$@"
    [ "$RC" -eq 2 ] || fail "'$*': exit $RC, expected 2"
    [ ! -s "$TMP/out" ] || fail "'$*': printed on stdout"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "'$*': stderr is not one line"
    grep -Eq '^streamcard-stream: [^:]+: .+ \(.+\)$' "$TMP/err" || fail "'$*': message form: $(cat "$TMP/err")"
}

case $CASE in
run-copy) run_kernel copy "Copy-only single kernel contract" Copy ;;
run-scale) run_kernel scale "Scale-only single kernel contract" Scale ;;
run-add) run_kernel add "Add-only single kernel contract" Add ;;
run-triad) run_kernel triad "Triad-only single kernel contract" Triad ;;
run-all) run_kernel all "all four kernels" Copy Scale Add Triad ;;

threads)
    # Thread counts follow OMP_NUM_THREADS, also oversubscribed; tiny and odd sizes leave
    # some threads with empty or partial chunks.
    for t in 1 3; do
        for n in 1 7 1025; do
            OMP_NUM_THREADS=$t run --array-size $n --iterations 2 --json "$TMP/t.json"
            check_run $t all "all four kernels" Copy Scale Add Triad
            "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["threads"]==int(sys.argv[2]), d' \
                "$TMP/t.json" $t || fail "JSON threads != $t"
        done
    done
    ;;

defaults)
    # No options: all four kernels, 10,000,000 elements, 10 iterations.
    OMP_NUM_THREADS=2 run
    check_run 2 all "all four kernels" Copy Scale Add Triad
    grep -qx 'Array size = 10000000 (elements), Offset = 0 (elements)' "$TMP/out" || fail "default size"
    grep -qx 'Each kernel will be executed 10 times.' "$TMP/out" || fail "default iterations"
    ;;

corrupt)
    for kernel in copy all; do
        STREAMCARD_FAULT=corrupt OMP_NUM_THREADS=2 run --kernel $kernel --array-size $N \
            --iterations 3 --json "$TMP/c.json"
        [ "$RC" -eq 1 ] || fail "$kernel: exit $RC, expected 1"
        grep -q '^Solution Validates' "$TMP/out" && fail "$kernel: validated a corrupt array"
        [ "$(count '^Failed Validation: ')" -eq 1 ] || fail "$kernel: expected one Failed Validation line"
        # copy writes c, all ends with triad writing a; the fault hits element N/2.
        arr=c
        [ $kernel = all ] && arr=a
        grep -Eq "^Failed Validation: $arr 1 elements wrong, first at index $((N / 2)): expected [0-9.e+]+ got [0-9.e+]+$" \
            "$TMP/out" || fail "$kernel: Failed Validation line"
        grep -qx 'TRACE_WORKLOAD_PHASE=main_loop_end' "$TMP/out" || fail "$kernel: main_loop_end"
        check_json "$TMP/c.json" $kernel 2 "$(stores_for auto)" failed
    done
    ;;

crash)
    expect_crash --kernel copy --array-size $N --iterations 4
    ;;

hang)
    expect_hang --kernel copy --array-size $N --iterations 4
    ;;

bad-options)
    expect_usage_error --kernel foo
    expect_usage_error --kernel
    expect_usage_error --array-size 0
    expect_usage_error --array-size -5
    expect_usage_error --array-size 12abc
    expect_usage_error --array-size ''
    expect_usage_error --array-size 99999999999999999999999
    expect_usage_error --iterations 1
    expect_usage_error --iterations ten
    expect_usage_error --nt-stores maybe
    expect_usage_error --json ''
    expect_usage_error --json "$TMP/no/such/dir/r.json"
    expect_usage_error --bogus
    expect_usage_error extra-argument
    expect_usage_error --kernel all --iterations 300 # the recurrence overflows doubles
    STREAMCARD_FAULT=boom expect_usage_error --array-size 10
    grep -q 'STREAMCARD_FAULT' "$TMP/err" || fail "fault message does not name the variable"
    ;;

build-info)
    run --build-info
    [ "$RC" -eq 0 ] || fail "exit $RC"
    for key in compiler compiler_version compiler_path compiler_sha256 flags source_sha256 \
        source_files source_git_commit source_git_dirty openmp_runtime openmp_version \
        nt_stores_available element_bytes; do
        [ "$(grep -c "^$key=" "$TMP/out")" -eq 1 ] || fail "key $key"
    done
    # What it was built from: the compiler that ran, by its hash; its sources' manifest.
    cc=$(sed -n 's/^compiler_path=//p' "$TMP/out")
    [ -x "$cc" ] && [ ! -L "$cc" ] || fail "compiler_path $cc is not the compiler's file"
    grep -qx "compiler_sha256=$(sha256sum "$cc" | cut -d' ' -f1)" "$TMP/out" || fail "compiler_sha256"
    grep -Eq '^source_sha256=[0-9a-f]{64}$' "$TMP/out" || fail "source_sha256"
    grep -Eq '^source_files=[1-9][0-9]*$' "$TMP/out" || fail "source_files"
    grep -Eq '^source_git_commit=([0-9a-f]{40}|none)$' "$TMP/out" || fail "source_git_commit"
    grep -Eq '^source_git_dirty=(yes|no|unknown)$' "$TMP/out" || fail "source_git_dirty"
    grep -Eq '^compiler=.+' "$TMP/out" || fail "empty compiler"
    grep -Eq '^flags=.*-fopenmp' "$TMP/out" || fail "flags without OpenMP"
    grep -Eq '^openmp_version=[0-9]{6}$' "$TMP/out" || fail "openmp_version"
    grep -Eq '^nt_stores_available=(avx512f|avx|sse2|none)$' "$TMP/out" || fail "nt_stores_available"
    grep -qx 'element_bytes=8' "$TMP/out" || fail "element_bytes"
    rt=$(sed -n 's/^openmp_runtime=//p' "$TMP/out")
    case $rt in /*) ;; *) fail "openmp_runtime not absolute: $rt" ;; esac
    [ -f "$rt" ] || fail "openmp_runtime $rt is not a file"
    grep -q TRACE "$TMP/out" && fail "--build-info ran the benchmark"
    ;;

help)
    run --help
    [ "$RC" -eq 0 ] || fail "exit $RC"
    for word in --kernel --array-size --iterations --nt-stores --json --build-info \
        STREAMCARD_FAULT Test-only; do
        grep -q -- "$word" "$TMP/out" || fail "help lacks $word"
    done
    ;;

*)
    echo "test_stream_cli.sh: $CASE: unknown case" >&2
    exit 1
    ;;
esac
exit 0
