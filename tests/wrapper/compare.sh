#!/usr/bin/env bash
# streamcard compare: a valid comparison has exactly one controlled variable differing (or
# none: a repeat); two bundles whose binaries differ as well as their prefetch setting are
# refused, and so are bundles that fail verification or their gates.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"

base=$(small_run base)
rep=$(small_run rep)
thr1=$(small_run thr1 -- --threads 1)
cpu0=$(small_run cpu0 -- --cpu-list 0 --threads 1)
pfoff=$(plugin_run pfoff off)
binpf=$(plugin_run binpf off STREAMCARD_KERNEL_DIR="$(other_kernel)")
failed=$(small_run failed STREAMCARD_FAULT=corrupt)
tampered=$(copy_bundle "$base" tampered)
# (a second Copy row: the sums, and a table row beyond the card's one function with the
# claims of run.conf and results.json that then disagree: 8 problems)
echo "Copy: 1.0 0.1 0.1 0.1" >>"$tampered/stream.log"

# These bundles are tiny real runs made beside other tests (ctest -j): their foreign share
# is the machine's, not the case's, so the cases that judge figures name a contamination
# limit of 100% (--max-interference); a side above the default 5% is "contaminated", never
# faster or slower (core.pair's test_compare_overrides, and wrapper.pair with real load).
LIMIT=(--max-interference 100)

# name|A|B|options|status|text the output must hold
cases=(
    "repeat|$base|$rep||0|no controlled variable differs (a repeat)"
    "one run a side|$base|$rep|${LIMIT[*]}|0|interval unavailable (1 and 1 run; 6 a side give one): change unconfirmed"
    "threads|$base|$thr1||0|single variable threads: 2 -> 1: copy MB/s"
    "named|$base|$thr1|--independent threads|0|single variable threads: 2 -> 1"
    "prefetch|$base|$pfoff||0|single variable prefetch: unchanged (not read back) -> off"
    "threads follow cpu_list|$base|$cpu0||0|single variable cpu_list: 0-1 -> 0"
    "named, threads follow|$base|$cpu0|--independent cpu_list|0|differs: threads: A 2 | B 1 (follows cpu_list"
    "binary+prefetch|$base|$binpf||1|the comparison is invalid: 2 controlled variables differ: binary_sha256, prefetch"
    "binary+prefetch named|$base|$binpf|--independent prefetch|1|besides prefetch, binary_sha256 differs"
    "not the named one|$base|$thr1|--independent prefetch|1|prefetch is the same in both bundles, and these differ instead: threads"
    "failed gates|$base|$failed||1|refused: failed gates: validation"
    "tampered|$tampered|$base||1|refused: 8 problems (stream.log: edited"
    "missing|$base|$WORK/nope||2|cannot open the bundle: No such file or directory"
    "unknown variable|$base|$thr1|--independent cores|2|--independent cores: not a controlled variable"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name a b opts want text <<<"$c"
    # shellcheck disable=SC2086
    expect_status "$want" "$SC" compare "$a" "$b" $opts
    cat "$WORK/out" "$WORK/err" >"$WORK/all"
    grep -qF -- "$text" "$WORK/all" || { cat "$WORK/all" >&2; fail "case $name: lacks: $text"; }
done

# Bundles of 6 runs with known rates (crafted: set_rate), so each verdict is known: the
# same runs are no detectable difference (interval [0.990, 1.010], within 5%, not within
# 0.5%), all runs 1.5 times faster are B faster, halved B slower, runs that swing +-40% too
# noisy to tell. Each median's interval over 6 runs is their range [x(1), x(6)] (coverage
# 1 - 2/64).
six=$(small_run six -- --runs 6)
set_rate "$six" 10000,10100,9900,10050,9950,10020
fast=$(copy_bundle "$six" fast6) && scale_rate "$fast" 1.5
slow=$(copy_bundle "$six" slow6) && scale_rate "$slow" 0.5
noisy=$(copy_bundle "$six" noisy6) && scale_rate "$noisy" 0.6,1.4,0.7,1.3,0.65,1.35
verdicts=(
    "$six|${LIMIT[*]}|B/A 1.000, 95% interval [0.990, 1.010]: no detectable difference"
    "$six|${LIMIT[*]} --noise-bound 0.5|B/A 1.000, 95% interval [0.990, 1.010]: too noisy to tell"
    "$fast|${LIMIT[*]}|B/A 1.500, 95% interval [1.485, 1.515]: B faster"
    "$slow|${LIMIT[*]}|B/A 0.500, 95% interval [0.495, 0.505]: B slower"
    "$noisy|${LIMIT[*]}|: too noisy to tell"
)
for v in "${verdicts[@]}"; do
    IFS='|' read -r b opts text <<<"$v"
    # shellcheck disable=SC2086
    expect_status 0 "$SC" compare "$six" "$b" $opts
    grep -qF -- "(a repeat): copy MB/s " "$WORK/out" || fail "no result line: $(cat "$WORK/out")"
    grep "(a repeat): copy MB/s " "$WORK/out" | grep -F -- "$text" >/dev/null ||
        fail "$b $opts: lacks '$text': $(grep 'copy MB/s' "$WORK/out")"
done
expect_contains "$WORK/out" "ratio B/A: Hodges-Lehmann ratio of B over A on log values"
grep -Eq '^    median.s 95% +6 runs, \[9900.0, 10100.0\] +6 runs, \[' "$WORK/out" ||
    fail "no medians' intervals: $(cat "$WORK/out")"
expect_status 2 "$SC" compare "$six" "$fast" --noise-bound 0
expect_contains "$WORK/err" "--noise-bound 0: not a percentage"

# The table marks what differs and names it in full; figures and change come with it.
expect_status 0 "$SC" compare "$base" "$thr1"
grep -Eq '^\* threads +2 +1$' "$WORK/out" || fail "threads not marked as differing"
grep -Eq '^  cpu_list +0-1 +0-1$' "$WORK/out" || fail "cpu_list not shown as equal"
expect_contains "$WORK/out" "differs: threads: A 2 | B 1"
grep -Eq '^  copy MB/s +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%$' "$WORK/out" || fail "no rate row"
expect_status 1 "$SC" compare "$base" "$binpf"
expect_contains "$WORK/out" "differs: prefetch: A unchanged (not read back) | B off"
grep -Eq '^\* binary_sha256 ' "$WORK/out" || fail "binary_sha256 not marked"
# No number from an incomparable or refused pair: only why.
for f in "$WORK/out" "$WORK/err"; do
    expect_not_contains "$f" "MB/s"
    expect_not_contains "$f" "%"
done
expect_status 1 "$SC" compare "$base" "$failed"
expect_not_contains "$WORK/out" "MB/s"
expect_not_contains "$WORK/err" "MB/s"

# A forged rate of one STREAM function (kernel all) is refused, even one that leaves the
# best rate as it was: here the slowest function's, halved.
all=$(small_run all -- --kernel all)
forged=$(copy_bundle "$all" forged)
slowest=$(python3 - "$forged/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); rates = r["metrics"]["rates"]
key = min(rates, key=rates.get); rates[key] *= 0.5
json.dump(r, open(sys.argv[1], "w")); print(key)
PY
)
reseal "$forged"
expect_status 0 "$SC" verify "$all"
expect_status 1 "$SC" compare "$all" "$forged"
expect_contains "$WORK/err" "refused: 1 problem (results.json: $slowest rate"

# kernel all: by default the card's primary metric only (triad); --metric all puts every
# kernel on its own row and its own line, no "best of kernels" figure (a faster Add must not
# stand for a slower Scale), and says that Holm's correction holds the four together.
all2=$(small_run all2 -- --kernel all)
expect_status 0 "$SC" compare "$all" "$all2"
expect_contains "$WORK/out" "no controlled variable differs (a repeat): triad MB/s "
expect_not_contains "$WORK/out" "(a repeat): copy MB/s"
expect_not_contains "$WORK/out" "Holm"
expect_status 0 "$SC" compare "$all" "$all2" --metric all
for fn in copy scale add triad; do
    grep -Eq "^  $fn MB/s +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%$" "$WORK/out" || fail "no $fn row"
    expect_contains "$WORK/out" "no controlled variable differs (a repeat): $fn MB/s "
done
expect_contains "$WORK/out" "several metrics judged at once: a faster or slower verdict must hold after Holm's correction for 4 metrics"
expect_not_contains "$WORK/out" "best rate"
# --metric chooses one; a name that is no metric is a usage error.
expect_status 0 "$SC" compare "$all" "$all2" --metric triad
expect_contains "$WORK/out" "(a repeat): triad MB/s "
expect_not_contains "$WORK/out" "(a repeat): copy MB/s"
expect_status 2 "$SC" compare "$all" "$all2" --metric best
expect_contains "$WORK/err" "--metric best: not a metric (valid: copy, scale, add, triad, qps"

# The environment the runtimes read is a controlled variable, inherited or set by the card:
# OMP_WAIT_POLICY from the shell is not "a repeat", and compare names the variable.
active=$(small_run active OMP_WAIT_POLICY=active)
passive=$(small_run passive OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=1000)
expect_contains "$active/environ_at_ready.txt" "OMP_WAIT_POLICY=active"
expect_not_contains "$active/environ_at_ready.txt" "PATH="
expect_status 0 "$SC" compare "$active" "$passive"
expect_not_contains "$WORK/out" "a repeat"
expect_contains "$WORK/out" "single variable env: "
expect_contains "$WORK/out" "differs: env OMP_WAIT_POLICY: A active | B passive"
expect_contains "$WORK/out" "differs: env GOMP_SPINCOUNT: A (not set) | B 1000"
expect_status 0 "$SC" compare "$active" "$base" --independent env
expect_contains "$WORK/out" "single variable env: "
expect_status 1 "$SC" compare "$active" "$thr1"
expect_contains "$WORK/err" "2 controlled variables differ: threads, env (OMP_WAIT_POLICY)"

# Usage: one line, exit 2.
expect_status 2 "$SC" compare "$base"
expect_contains "$WORK/err" "one bundle, and not a pair"
expect_status 2 "$SC" compare "$base" "$rep" "$thr1"
expect_contains "$WORK/err" "needs two bundles or a pair, got 3"
expect_status 2 "$SC" compare --bogus "$base" "$rep"
expect_contains "$WORK/err" "--bogus: unknown option"
expect_status 0 "$SC" compare --help
expect_contains "$WORK/out" "usage: streamcard compare A B"
# Every controlled variable of the brief is listed with where it is read.
expect_status 0 "$SC" compare --variables
for v in binary_sha256 compiler flags os_kernel array_size iterations cpu_list threads \
         memory_node thp numa_balancing governor prefetch host env expect blas blas_core; do
    grep -Eq "^$v " "$WORK/out" || fail "--variables lacks $v"
done
for v in OMP_ GOMP_ KMP_ OPENBLAS_ GOTO MKL_ OMPI_ PMIX_MCA_ FI_ UCX_ I_MPI_ MALLOC_ \
         GLIBC_TUNABLES LD_PRELOAD LD_LIBRARY_PATH; do
    grep -E "^env " "$WORK/out" | grep -F "$v" >/dev/null || fail "--variables: env does not name $v"
done
# The transport an MPI run used is an outcome (its gate), not a controlled variable.
grep -Eq "^transport " "$WORK/out" && fail "--variables lists transport"
echo "ok: compare"
