#!/usr/bin/env bash
# A two-value sweep runs each value as its own verified bundle and writes the table; the
# two runs compare as a valid single-variable comparison (they name their independent
# variable); a bad value stops the sweep before anything runs. Sweeps of STREAM's threads
# (once with runs: 6, interleaved, the table speaking statistics) and of ipsearch's
# pool_threads.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

# check_sweep VARIABLE VALUE...: the sweep just run (its output in $WORK/out) wrote a
# table with one ok row per value, each naming a bundle that verify accepts and whose card
# has that value; the bundles compare with VARIABLE as their independent variable.
check_sweep() {
    local var=$1 table row b v bundles=()
    shift
    expect_contains "$WORK/out" "streamcard sweep: $var over $# values"
    table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/out")
    [ -f "$table" ] || fail "no sweep table file"
    expect_contains "$table" "| $var | verdict |"
    for v in "$@"; do
        row=$(grep "^| $v | " "$table") || fail "no row for $var=$v"
        case $row in *"| ok |"*) ;; *) fail "$var=$v not ok: $row" ;; esac
        b=$(awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}' <<<"$row")
        [ -d "$b" ] || fail "row names no bundle: $row"
        expect_contains "$b/run.conf" "sweep_variable=$var"
        expect_contains "$b/card.yaml" "$var: $v"
        "$BIN/streamcard" verify "$b" >/dev/null 2>&1 || fail "verify rejects $b"
        bundles+=("$b")
    done
    expect_status 0 "$BIN/streamcard" compare "${bundles[@]}"
    expect_contains "$WORK/out" "independent variable: $var (the sweep both runs belong to)"
    SWEPT=("${bundles[@]}")
}

cat >"$WORK/sweep.yaml" <<'CARD'
version: 1
experiment:
  workload: stream
  kernel: copy
  cpu_list: 0-1
  threads: [1, 2]
  array_size: 200000
  cache_resident: accept
  iterations: 4
  expect:
    max_interference_pct: 100
CARD
expect_status 0 "$BIN/streamcard" run "$WORK/sweep.yaml" --output "$WORK/runs" --quiet
check_sweep threads 1 2

# ipsearch's pool_threads (request handlers) at a fixed thread count, tiny sizes: each run
# keeps threads 2 and runs its own number of handlers.
cat >"$WORK/pool.yaml" <<'CARD'
version: 1
experiment:
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  pool_threads: [1, 2]
  nb: 2000
  nq: 20
  dim: 16
  k: 5
  iterations: 2
  expect:
    max_interference_pct: 100
CARD
expect_status 0 "$BIN/streamcard" run "$WORK/pool.yaml" --output "$WORK/pool" --quiet
check_sweep pool_threads 1 2
for i in 0 1; do
    expect_contains "${SWEPT[$i]}/card.yaml" "threads: 2"
    expect_contains "${SWEPT[$i]}/stream.log" "omp_threads=2 pool_threads=$((i + 1)) "
done

# runs: 6: the values interleave (threads=1 run 1, threads=2 run 1, threads=1 run 2, ...),
# each value is one bundle of 6 runs, and the table gives each value's median with its 95%
# interval and, against the first value, the ratio with its interval and a verdict.
sed 's/^  iterations: 4$/  iterations: 2\n  runs: 6/' "$WORK/sweep.yaml" >"$WORK/runs6.yaml"
expect_status 0 "$BIN/streamcard" run "$WORK/runs6.yaml" --output "$WORK/runs6" --quiet
order=$(grep -E '^--- run [12] of 2' "$WORK/out" | head -n 4 | tr '\n' '/')
[ "$order" = "--- run 1 of 2: threads=1/--- run 2 of 2: threads=2/--- run 1 of 2: threads=1, its run 2/--- run 2 of 2: threads=2, its run 2/" ] ||
    fail "the values do not interleave: $order"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/out")
grep -Eq '^\| 1 \| ok \| [0-9.]+, 6 runs, 95% \[[0-9.]+, [0-9.]+\] \| \(baseline\) \|' "$table" ||
    fail "no statistics for threads=1: $(cat "$table")"
grep -Eq '^\| 2 \| ok \| [0-9.]+, 6 runs, 95% \[.*\| [-+][0-9.]+%, B/A [0-9.]+ \[[0-9.]+, [0-9.]+\]: (B faster|B slower|no detectable difference|too noisy to tell) \|' "$table" ||
    fail "no ratio and verdict for threads=2: $(cat "$table")"

# An env variable sweeps like a key: each run's workload starts with its value (read back
# from /proc at main_loop_begin), keeps the card's other variables, and the two bundles
# compare with env as their independent variable.
sed 's/^  iterations: 4$/  iterations: 2\n  env:\n    GOMP_SPINCOUNT: "1000"\n    OMP_WAIT_POLICY: [ACTIVE, PASSIVE]/' \
    "$WORK/sweep.yaml" | sed 's/threads: \[1, 2\]/threads: 2/' >"$WORK/env.yaml"
expect_status 0 "$BIN/streamcard" run "$WORK/env.yaml" --output "$WORK/env" --quiet
expect_contains "$WORK/out" "streamcard sweep: env.OMP_WAIT_POLICY over 2 values"
envb=()
for v in ACTIVE PASSIVE; do
    b=$(ls -d "$WORK"/env/*_OMP_WAIT_POLICY-"$v"_*) || fail "no bundle for OMP_WAIT_POLICY=$v"
    expect_contains "$b/environ_at_ready.txt" "OMP_WAIT_POLICY=$v"
    expect_contains "$b/environ_at_ready.txt" "GOMP_SPINCOUNT=1000"
    expect_contains "$b/run.conf" "sweep_variable=env"
    "$BIN/streamcard" verify "$b" >/dev/null 2>&1 || fail "verify rejects $b"
    envb+=("$b")
done
expect_status 0 "$BIN/streamcard" compare "${envb[@]}"
expect_contains "$WORK/out" "independent variable: env (the sweep both runs belong to)"

# blas: each Debian OpenBLAS build through the library path; build.json names the library
# the workload really loaded (asked with the workload's library path), and its log agrees.
sed 's/^  pool_threads: \[1, 2\]$/  blas: [openblas-pthread, openblas-serial]/' "$WORK/pool.yaml" >"$WORK/blas.yaml"
expect_status 0 "$BIN/streamcard" run "$WORK/blas.yaml" --output "$WORK/blas" --quiet
for v in pthread serial; do
    b=$(ls -d "$WORK"/blas/*_blas-openblas-"$v"_*) || fail "no bundle for blas=openblas-$v"
    grep -q "\"blas_library\": *\"[^\"]*/openblas-$v/libopenblas" "$b/build.json" ||
        fail "build.json of blas=openblas-$v names another library: $(grep -o '"blas_library[^,]*' "$b/build.json")"
    expect_contains "$b/stream.log" "/openblas-$v/libopenblas"
    expect_contains "$b/card.yaml" "blas: openblas-$v"
    "$BIN/streamcard" verify "$b" >/dev/null 2>&1 || fail "verify rejects $b"
done

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
