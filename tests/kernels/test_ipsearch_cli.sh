#!/usr/bin/env bash
# test_ipsearch_cli.sh: streamcard-ipsearch as the wrapper sees it: exit codes, trace lines,
# pool lines, validation lines, evidence, JSON and error messages.
#
# usage: test_ipsearch_cli.sh BINARY CASE [STREAMCARD_BIN_DIR]
# One ctest test per CASE (see tests/kernels/CMakeLists.txt). SC_PYTHON3 names the
# interpreter used to parse the JSON. Small, odd sizes (not multiples of the 16-wide SIMD
# groups or of the tiles), no timing assertions.
set -u

BIN=$1
CASE=$2
PY=${SC_PYTHON3:-python3}
SIZES=(--nb 5003 --nq 37 --dim 24 --k 7 --iterations 3)
# shellcheck source=../workload_cli_lib.sh
. "$(dirname "$0")/../workload_cli_lib.sh"
# The test sets the threading environment itself; inherited values would change the runs.
for v in $(env | sed -n 's/^\(\(OMP\|GOMP\|KMP\|OPENBLAS\|GOTO\|MKL\|BLIS\)[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
unset STREAMCARD_FAULT

# check_trace THREADS COMPUTE: the trace protocol of a finished run with THREADS OpenMP
# threads and COMPUTE compute threads (pool lines).
check_trace() {
    local threads=$1 compute=$2 ids order
    grep -qx "Number of Threads requested = $threads" "$TMP/out" || fail "requested != $threads"
    grep -qx "Number of Threads counted = $threads" "$TMP/out" || fail "counted != $threads"
    [ "$(count '^TRACE_THREAD_BINDING ')" -eq "$threads" ] || fail "binding lines != $threads"
    ids=$(sed -n 's/^TRACE_THREAD_BINDING thread=\([0-9]*\) cpu=[0-9]*$/\1/p' "$TMP/out" |
        sort -n | tr '\n' ' ')
    [ "$ids" = "$(seq 0 $((threads - 1)) | tr '\n' ' ')" ] || fail "binding thread ids: $ids"
    [ "$(count '^TRACE_POOL_THREAD pool=[0-9]* thread=[0-9]* cpu=[0-9]* pin=ok$')" -eq "$compute" ] ||
        fail "TRACE_POOL_THREAD lines != $compute"
    [ "$(count '^TRACE_WORKLOAD_PHASE=main_loop_begin$')" -eq 1 ] || fail "main_loop_begin"
    [ "$(count '^TRACE_WORKLOAD_PHASE=main_loop_end$')" -eq 1 ] || fail "main_loop_end"
    # Order: requested, bindings, counted, pool lines, begin, end, table.
    order=$(grep -e '^Number of Threads' -e '^TRACE_' -e '^Search ' "$TMP/out" |
        sed 's/ thread=.*//;s/ pool=.*//;s/ = .*//;s/ .*//' | uniq | tr '\n' '|')
    [ "$order" = "Number|TRACE_THREAD_BINDING|Number|TRACE_POOL_THREAD|TRACE_WORKLOAD_PHASE=main_loop_begin|TRACE_WORKLOAD_PHASE=main_loop_end|Search|" ] ||
        fail "line order: $order"
}

# check_ok THREADS COMPUTE SAMPLES: a validated run.
check_ok() {
    [ "$RC" -eq 0 ] || fail "exit $RC, expected 0"
    [ ! -s "$TMP/err" ] || fail "unexpected stderr"
    check_trace "$1" "$2"
    grep -qx "Solution Validates (ipsearch top-k, $3 sampled queries, recall@k=1.000)" \
        "$TMP/out" || fail "no Solution Validates line for $3 samples"
    grep -q 'Failed Validation' "$TMP/out" && fail "Failed Validation printed"
    grep -Eq '^ipsearch +[0-9]+\.[0-9] +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} +[0-9]+\.[0-9]{6} +1\.000$' \
        "$TMP/out" || fail "table row format"
    grep -Eq '^qps=[0-9.]+ wall_seconds=[0-9.]+ total_thread_seconds=[0-9.]+ total_thread_cpu_seconds=[0-9.]+ gflops=[0-9.]+ recall_at_k=1\.000$' \
        "$TMP/out" || fail "summary line"
    grep -q '^model: ' "$TMP/out" || fail "no model line"
    grep -Eq '^counters: (cycles=[0-9]+ instructions=[0-9]+ ipc=|unavailable: .+)' "$TMP/out" ||
        fail "counters line"
    grep -Eiq '(^|[^a-z0-9_])(nan|inf|infinity)([^a-z0-9_]|$)' "$TMP/out" &&
        fail "a NaN/Inf word in the log would fail the wrapper's validation gate"
    return 0
}

# check_json PATH PY-ASSERTIONS: the results file parses; d is the document.
check_json() {
    "$PY" - "$1" "$2" <<'EOF' || fail "JSON check failed: $2"
import json, sys
d = json.load(open(sys.argv[1]))
m, e = d["metrics"], d["evidence"]
assert d["schema"] == 1 and d["workload"] == "ipsearch", d
for key in ("qps", "gflops", "total_thread_seconds", "wall_seconds", "recall_at_k",
            "total_thread_cpu_seconds"):
    assert isinstance(m[key], (int, float)) and m[key] >= 0, (key, m)
for key in ("blas", "env", "pool_threads", "omp_threads", "counters", "team_threads",
            "compute_thread_bindings", "cpu_seconds_main_loop", "blas_threads"):
    assert key in e, key
assert e["blas"]["library"].startswith("/"), e["blas"]
assert e["blas"]["parallel"] in ("sequential", "pthread", "openmp"), e["blas"]
assert e["counters"]["status"] == "ok" or e["counters"]["status"].startswith("unavailable: ")
s = e["simd_share"]["status"]
assert (s == "ok" and 0 <= e["simd_share"]["share"] <= 1) or s.startswith("unavailable: "), s
assert d["validation"] in ("ok", "failed")
exec(sys.argv[2])
EOF
}

# expect_usage_error ARGS...: exit 2, nothing on stdout, one line on stderr in house form.
expect_usage_error() {
    run "$@"
    [ "$RC" -eq 2 ] || fail "'$*': exit $RC, expected 2"
    [ ! -s "$TMP/out" ] || fail "'$*': printed on stdout"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "'$*': stderr is not one line"
    grep -Eq '^streamcard-ipsearch: [^:]+: .+ \(.+\)$' "$TMP/err" ||
        fail "'$*': message form: $(cat "$TMP/err")"
}

case $CASE in
run)
    OMP_NUM_THREADS=2 run "${SIZES[@]}" --json "$TMP/r.json"
    check_ok 2 2 16
    grep -qx 'Database nb = 5003 vectors, dim = 24, float32 (0.5 MiB)' "$TMP/out" || fail "header"
    grep -qx 'Queries nq = 37, k = 7' "$TMP/out" || fail "header queries"
    grep -Eq '^blas: blas_library=/' "$TMP/out" || fail "blas library line"
    grep -Eq '^blas: blas_num_threads=1$' "$TMP/out" || fail "BLAS is not serial by default"
    grep -qx 'env: OMP_NUM_THREADS=2' "$TMP/out" || fail "env line"
    grep -q '^mismatch:' "$TMP/out" && fail "mismatch reported for pool = threads"
    grep -q '^warning: oversubscribed' "$TMP/out" && fail "oversubscribed by default"
    check_json "$TMP/r.json" '
assert (d["nb"], d["nq"], d["dim"], d["k"], d["iterations"]) == (5003, 37, 24, 7, 3), d
assert d["validation"] == "ok" and m["recall_at_k"] == 1, d
assert d["threads"] == 2 and d["pool_threads"] == 2, d
assert e["pool_threads"] == 2 and e["omp_threads"] == 2 and e["team_threads"] == 1, e
assert e["pool_threads_match_omp_threads"] is True and e["oversubscribed"] is False, e
assert e["blas_threads"] == 1 and e["env"] == {"OMP_NUM_THREADS": "2"}, e
assert len(e["compute_thread_bindings"]) == 2, e
assert m["qps"] > 0 and m["wall_seconds"] > 0 and m["total_thread_seconds"] > 0, m'
    # The same seed gives the same data and results, also with another thread count.
    sum2=$(grep '^results_checksum=' "$TMP/out")
    OMP_NUM_THREADS=1 run "${SIZES[@]}"
    check_ok 1 1 16
    [ "$(grep '^results_checksum=' "$TMP/out")" = "$sum2" ] || fail "results depend on threads"
    ;;

shapes)
    # Edge sizes: k = nb, one query, fewer queries than samples, dim 1, tails of every kind.
    for args in "--nb 7 --nq 3 --dim 5 --k 7" "--nb 1 --nq 1 --dim 1 --k 1" \
        "--nb 4099 --nq 5 --dim 1 --k 3" "--nb 1500 --nq 1030 --dim 17 --k 64"; do
        OMP_NUM_THREADS=3 run $args --iterations 2
        nq=$(echo "$args" | sed 's/.*--nq \([0-9]*\).*/\1/')
        samples=$((nq < 16 ? nq : 16))
        check_ok 3 3 $samples
    done
    ;;

corrupt)
    STREAMCARD_FAULT=corrupt OMP_NUM_THREADS=2 run "${SIZES[@]}" --json "$TMP/c.json"
    [ "$RC" -eq 1 ] || fail "exit $RC, expected 1"
    grep -q '^Solution Validates' "$TMP/out" && fail "validated a corrupt result"
    grep -Eq '^Failed Validation: query 0 rank 0: ' "$TMP/out" || fail "no failure for query 0"
    grep -qx 'TRACE_WORKLOAD_PHASE=main_loop_end' "$TMP/out" || fail "main_loop_end"
    check_json "$TMP/c.json" 'assert d["validation"] == "failed", d'
    ;;

crash)
    expect_crash "${SIZES[@]}" --iterations 4
    ;;

hang)
    expect_hang "${SIZES[@]}" --iterations 4
    ;;

layout)
    # The default layout splits the database for a batch smaller than the handlers can share:
    # both compute threads search (two pool lines), each its own rows for all 3 queries, by the
    # scan (3 queries <= 4: the rule); the same ids as every other layout and path.
    OMP_NUM_THREADS=2 run --nb 5003 --nq 3 --dim 24 --k 7 --iterations 3 --json "$TMP/l.json"
    check_ok 2 2 3
    grep -Eqx 'search_path=scan search_simd=(scalar|avx2-fma|avx512f) search_layout=split-database' \
        "$TMP/out" || fail "search line: $(grep '^search' "$TMP/out")"
    grep -q '^search: scan path for 3 queries per pass (rule: 3 queries per pass <= 4)' "$TMP/out" ||
        fail "search reason"
    check_json "$TMP/l.json" '
s = e["search"]
assert (s["path"], s["layout"], s["layout_source"]) == ("scan", "split-database", "default"), s
assert s["queries_per_pass"] == 3 and e["requests"] == 1, s
assert s["simd"] in ("scalar", "avx2-fma", "avx512f"), s'
    sum=$(grep '^results_checksum=' "$TMP/out")
    # pool_threads given: handlers take whole requests, one idle here (the card's choice).
    OMP_NUM_THREADS=2 run --nb 5003 --nq 3 --dim 24 --k 7 --iterations 3 --pool-threads 2 \
        --json "$TMP/p.json"
    check_ok 2 2 3
    grep -q '^search_path=scan .* search_layout=split-queries$' "$TMP/out" || fail "pool layout"
    check_json "$TMP/p.json" '
assert (e["search"]["layout"], e["search"]["layout_source"]) == ("split-queries", "pool_threads")'
    [ "$(grep '^results_checksum=' "$TMP/out")" = "$sum" ] || fail "ids differ by layout"
    # Forced paths: sgemm for the small batch, the scan for one the rule would measure.
    OMP_NUM_THREADS=2 run --nb 5003 --nq 3 --dim 24 --k 7 --iterations 3 --search-path sgemm \
        --json "$TMP/g.json"
    check_ok 2 2 3
    grep -q '^search: sgemm path for 3 queries per pass (forced by --search-path sgemm)' \
        "$TMP/out" || fail "forced sgemm"
    # The tile (4096 rows at most for 3 queries) and the top-k filter's variant are stated.
    grep -Eq '^search: sgemm path .*, score tiles of [1-9][0-9]* rows x [1-9][0-9]* queries per sgemm call \([0-9]+ KiB\), top-k filter SIMD (scalar|avx2-fma|avx512f)$' \
        "$TMP/out" || fail "sgemm tile line: $(grep '^search:' "$TMP/out")"
    check_json "$TMP/g.json" '
t = e["search"]["tile_rows"]
assert 64 <= t <= 4096 and t % 16 == 0, t'
    [ "$(grep '^results_checksum=' "$TMP/out")" = "$sum" ] || fail "ids differ by path"
    OMP_NUM_THREADS=2 run "${SIZES[@]}" --json "$TMP/m.json"
    check_ok 2 2 16
    # 37 queries: the scan with a SIMD variant (their vectors fit the L1d), sgemm with the
    # portable one: the rule's inputs are stated.
    grep -Eq '^search: (scan path for 37 queries per pass \(rule: 37 queries per pass <= 64 with (avx2-fma|avx512f), their [0-9]+ KiB within the [0-9]+ KiB L1d\)|sgemm path for 37 queries per pass \(rule: 37 queries per pass \([0-9]+ KiB\) beyond what the scan keeps in the [0-9]+ KiB L1d with scalar\))' "$TMP/out" ||
        fail "the rule for 37 queries: $(grep '^search:' "$TMP/out")"
    check_json "$TMP/m.json" '
s = e["search"]
assert s["l1d_bytes"] >= 4096 and "sample_rows" not in s, s
assert s["path"] == ("sgemm" if s["simd"] == "scalar" else "scan"), s'
    sum=$(grep '^results_checksum=' "$TMP/out")
    for path in scan sgemm; do
        OMP_NUM_THREADS=2 run "${SIZES[@]}" --search-path $path
        check_ok 2 2 16
        [ "$(grep '^results_checksum=' "$TMP/out")" = "$sum" ] || fail "ids differ with $path"
    done
    ;;

simd)
    # --search-simd forces the scan's and the top-k filter's SIMD variant: every variant this
    # CPU runs (as /proc/cpuinfo's flags say) searches 37 queries by the scan and finds the
    # same ids as the default; the variant and its source are recorded. On an AVX-512 CPU
    # this is how the AVX2 path runs. A variant the CPU lacks, or no variant, is refused.
    flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -1)
    variants=scalar
    has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
    has avx2 && has fma && variants+=" avx2-fma"
    has avx512f && has avx2 && has fma && variants+=" avx512f"
    OMP_NUM_THREADS=2 run "${SIZES[@]}" --json "$TMP/a.json"
    check_ok 2 2 16
    sum=$(grep '^results_checksum=' "$TMP/out")
    grep -Eq '^search_inputs: queries_per_pass=37 dim=24 simd=[a-z0-9-]+ simd_source=cpuid l1d_bytes=[0-9]+ l2_bytes=[0-9]+ forced=auto blas_core=[^ ]+$' \
        "$TMP/out" || fail "inputs line: $(grep '^search_inputs' "$TMP/out")"
    check_json "$TMP/a.json" 'assert e["search"]["simd_source"] == "cpuid", e["search"]'
    for v in $variants; do
        for path in auto scan; do
            OMP_NUM_THREADS=2 run "${SIZES[@]}" --search-simd "$v" --search-path $path \
                --json "$TMP/v.json"
            check_ok 2 2 16
            grep -q "^search_path=.* search_simd=$v " "$TMP/out" || fail "$v: $(grep '^search_path' "$TMP/out")"
            [ "$(grep '^results_checksum=' "$TMP/out")" = "$sum" ] || fail "ids differ with $v ($path)"
            check_json "$TMP/v.json" "
s = e['search']
assert (s['simd'], s['simd_source'], s['forced']) == ('$v', 'option', '$path'), s"
        done
    done
    for v in avx2-fma avx512f; do
        case " $variants " in *" $v "*) continue ;; esac
        expect_usage_error --search-simd "$v"
        grep -q "this CPU does not run it" "$TMP/err" || fail "$v refused without the reason"
    done
    expect_usage_error --search-simd sse9
    grep -q "^streamcard-ipsearch: --search-simd: not a SIMD variant (this CPU runs auto, scalar" \
        "$TMP/err" || fail "bad variant message"
    ;;

path-stable)
    # The path is chosen from the recorded inputs alone: the same run on an idle machine and
    # with a busy loop on every cpu records the same choice, reason and inputs, at a batch
    # the rule sends to the scan (37 queries) and at one it sends to sgemm (300 queries).
    for nq in 37 300; do
        OMP_NUM_THREADS=2 run --nb 5003 --nq $nq --dim 24 --k 7 --iterations 3 --json "$TMP/idle.json"
        [ "$RC" -eq 0 ] || fail "idle run, nq $nq: exit $RC"
        grep -E '^search(_inputs)?: ' "$TMP/out" >"$TMP/idle.search"
        busy=()
        for _ in $(seq 1 "$(nproc)"); do
            (while :; do :; done) &
            busy+=($!)
        done
        OMP_NUM_THREADS=2 run --nb 5003 --nq $nq --dim 24 --k 7 --iterations 3 --json "$TMP/busy.json"
        kill "${busy[@]}"
        wait "${busy[@]}" 2>/dev/null
        [ "$RC" -eq 0 ] || fail "busy run, nq $nq: exit $RC"
        grep -E '^search(_inputs)?: ' "$TMP/out" | cmp -s - "$TMP/idle.search" ||
            fail "nq $nq: the search lines differ between idle and busy"
        "$PY" - "$TMP/idle.json" "$TMP/busy.json" $nq <<'PY' || fail "nq $nq: recorded choice"
import json, sys
idle, busy = (json.load(open(f))["evidence"]["search"] for f in sys.argv[1:3])
assert idle == busy, (idle, busy)
# The inputs the choice was made from are all recorded.
assert (idle["queries_per_pass"], idle["dim"], idle["forced"]) == (int(sys.argv[3]), 24, "auto"), idle
assert idle["l1d_bytes"] >= 4096 and idle["l2_bytes"] >= 4096 and idle["simd"] in ("scalar", "avx2-fma", "avx512f"), idle
assert idle["blas_core"] == json.load(open(sys.argv[1]))["evidence"]["blas"]["corename"], idle
# Past 64 queries the SIMD scan only against an OpenBLAS without AVX kernels (its reason
# says so); the portable scan never past 4.
sse = "SSE-only" in idle["reason"]
if idle["simd"] == "scalar":
    assert idle["path"] == "sgemm", idle
elif int(sys.argv[3]) > 64:
    assert idle["path"] == ("scan" if sse else "sgemm"), idle
else:
    assert idle["path"] == "scan" and not sse, idle
PY
    done
    ;;

mismatch)
    # pool_threads=1, threads=2: one handler leads a team of 2; recorded as a mismatch.
    OMP_NUM_THREADS=2 run "${SIZES[@]}" --pool-threads 1 --json "$TMP/m.json"
    check_ok 2 2 16
    grep -qx 'mismatch: pool_threads=1 threads=2: fewer request handlers than OpenMP threads: each leads a team' \
        "$TMP/out" || fail "no mismatch line"
    grep -q '^TRACE_POOL_THREAD pool=0 thread=1 ' "$TMP/out" || fail "no team thread line"
    grep -Eq '^threads: omp_threads=2 pool_threads=1 team_threads=2 blas_threads=1 compute_threads=2 cpus=[0-9]+$' \
        "$TMP/out" || fail "threads line"
    check_json "$TMP/m.json" '
assert d["threads"] == 2 and d["pool_threads"] == 1, d
assert e["pool_threads"] == 1 and e["omp_threads"] == 2 and e["team_threads"] == 2, e
assert e["pool_threads_match_omp_threads"] is False, e
assert [(b["pool"], b["thread"]) for b in e["compute_thread_bindings"]] == [(0, 0), (0, 1)], e'
    # More handlers than OpenMP threads and cpus: oversubscribed, and said so.
    ncpu=$(nproc)
    OMP_NUM_THREADS=1 run "${SIZES[@]}" --pool-threads $((ncpu + 1)) --json "$TMP/o.json"
    check_ok 1 $((ncpu + 1)) 16
    grep -q "^mismatch: pool_threads=$((ncpu + 1)) threads=1: more request handlers" "$TMP/out" ||
        fail "no mismatch line for more handlers"
    grep -q '^warning: oversubscribed: ' "$TMP/out" || fail "no oversubscription warning"
    check_json "$TMP/o.json" 'assert e["oversubscribed"] is True and e["team_threads"] == 1, e'
    ;;

env)
    # The card's env: variables are in force and recorded; BLAS threads follow
    # OPENBLAS_NUM_THREADS when it is set; a value cannot forge a trace line.
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive KMP_BLOCKTIME=0 OPENBLAS_NUM_THREADS=1 \
        MKL_DYNAMIC=FALSE GOMP_X=$'a\nTRACE_THREAD_BINDING thread=9 cpu=0' \
        run "${SIZES[@]}" --json "$TMP/e.json"
    check_ok 2 2 16
    for line in 'env: OMP_WAIT_POLICY=passive' 'env: KMP_BLOCKTIME=0' \
        'env: OPENBLAS_NUM_THREADS=1' 'env: MKL_DYNAMIC=FALSE' \
        'env: GOMP_X=a\u000aTRACE_THREAD_BINDING thread=9 cpu=0'; do
        grep -qxF "$line" "$TMP/out" || fail "missing '$line'"
    done
    check_json "$TMP/e.json" '
assert e["env"]["OMP_WAIT_POLICY"] == "passive" and e["env"]["KMP_BLOCKTIME"] == "0", e
assert e["env"]["GOMP_X"] == "a\nTRACE_THREAD_BINDING thread=9 cpu=0", e
assert e["blas_threads_source"] == "OPENBLAS_NUM_THREADS", e'
    # Two BLAS threads per call on two handlers: the evidence says oversubscribed.
    OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 run "${SIZES[@]}" --json "$TMP/b.json"
    check_ok 2 2 16
    grep -q '^warning: oversubscribed: 2 handlers x 1 team x 2 BLAS threads' "$TMP/out" ||
        fail "no oversubscription warning for 2 BLAS threads"
    check_json "$TMP/b.json" 'assert e["blas_threads"] == 2 and e["oversubscribed"] is True, e'
    ;;

bad-options)
    expect_usage_error --nb 0
    expect_usage_error --nb -5
    expect_usage_error --nb 12abc
    expect_usage_error --nb ''
    expect_usage_error --nb 99999999999999999999999
    expect_usage_error --nq 0
    expect_usage_error --dim 65537
    expect_usage_error --k 0
    expect_usage_error --k 4097
    expect_usage_error --nb 5 --k 6
    expect_usage_error --pool-threads 0
    expect_usage_error --search-path fast
    expect_usage_error --search-simd ''
    expect_usage_error --iterations 1
    expect_usage_error --seed x
    expect_usage_error --nb 17179869184 --nq 1073741824
    expect_usage_error --json ''
    expect_usage_error --json "$TMP/no/such/dir/r.json"
    expect_usage_error --bogus
    expect_usage_error --nb
    expect_usage_error extra-argument
    STREAMCARD_FAULT=boom expect_usage_error --nb 10
    grep -q 'STREAMCARD_FAULT' "$TMP/err" || fail "fault message does not name the variable"
    ;;

build-info)
    run --build-info
    [ "$RC" -eq 0 ] || fail "exit $RC"
    for key in compiler compiler_version flags openmp_runtime openmp_version element_bytes \
        blas_library blas_config blas_corename blas_parallel blas_num_threads blas_num_procs; do
        [ "$(grep -c "^$key=" "$TMP/out")" -eq 1 ] || fail "key $key"
    done
    grep -qx 'element_bytes=4' "$TMP/out" || fail "element_bytes"
    grep -Eq '^blas_parallel=(sequential|pthread|openmp)$' "$TMP/out" || fail "blas_parallel"
    lib=$(sed -n 's/^blas_library=//p' "$TMP/out")
    case $lib in /*) ;; *) fail "blas_library not absolute: $lib" ;; esac
    [ -f "$lib" ] || fail "blas_library $lib is not a file"
    grep -q TRACE "$TMP/out" && fail "--build-info ran the benchmark"
    ;;

help)
    run --help
    [ "$RC" -eq 0 ] || fail "exit $RC"
    for word in --nb --nq --dim --k --pool-threads --search-path --search-simd --iterations --seed --json --build-info \
        OPENBLAS_NUM_THREADS STREAMCARD_FAULT Test-only; do
        grep -q -- "$word" "$TMP/out" || fail "help lacks $word"
    done
    ;;

*)
    echo "test_ipsearch_cli.sh: $CASE: unknown case" >&2
    exit 1
    ;;
esac
exit 0
