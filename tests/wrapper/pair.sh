#!/usr/bin/env bash
# Paired runs on a drifting host: a busy loop on the card's CPU starts half way through each
# pair run (the host steps from idle to half its CPU for the card), so every later run is
# about twice as slow as the earlier ones. Side A's series shows the step (its trend with run
# order); the pairs cancel it:
#   - A against A: no detectable difference or too noisy to tell, never faster or slower;
#   - nb 25% larger on side B (qps ratio 0.80, 1/1.25: the search scans nb vectors):
#     B slower, its interval holding the true ratio's band. (At 10% a fresh root, whose runs
#     came out bimodal, +-12% run to run, rightly said "too noisy to tell" at 14 pairs.)
# The busy loop is foreign work on the card's CPU: by default each pair is contaminated
# (no verdict); the cards open their gate and the verdicts above are read with the
# contamination limit opened as well (--max-interference 100). Skipped (77, naming the
# load) only when other work than this test's loop already held the card's CPU: measured
# just before (on either CPU), or in the runs before the step or on the other CPU just after
# when a verdict is not the expected one.
# RUN_SERIAL (tests/wrapper/CMakeLists.txt): the loop must not slow the tests beside it.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/load_lib.sh"
SC="$BIN/streamcard"
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}
load_need_cpus 2
LIMIT=10 # the other work on the card's CPU (%) above which this machine cannot show it
OTHER_LIMIT=20 # cpu1's busy share (%) over a paired run above which it slows cpu0's runs
# 20 pairs: on this kind of VM a single run now and then comes out ~40% slow (the host, not
# a task the interference records see); the Wilcoxon interval of 10 pairs is the 9th of 55
# Walsh averages from each end, so one such pair moves it by half its log ratio (measured:
# [0.906, 1.028] at 10 pairs with one pair at +0.155 and nine at -0.098). Two outliers make
# 27 Walsh averages of 14 pairs (2 x 13 + 1) where the interval's end is the 22nd from the
# top: a fresh root saw side A's first two runs 37% slow (12140 and 12144 queries/s
# against 19000, nothing foreign recorded) and [0.803, 1.006], too noisy to tell. Of 20
# pairs the end is the 53rd of 210, and two outliers make 39: they stay out of it.
PAIRS=20
HALF=10

quiet=""
for attempt in 1 2 3; do
    read -r load cpu < <(cpu_busy_pct 0 1)
    if awk -v l="$load" -v m="$LIMIT" 'BEGIN { exit !(l < m) }'; then
        quiet=$load
        break
    fi
    echo "attempt $attempt: other work held $load% of $cpu"
    sleep 5
done
[ -n "$quiet" ] || { echo "SKIP: the machine is busy: other work held $load% of $cpu (this test needs the card's CPU to itself and the other one quiet, apart from the load it makes; limit $LIMIT%)"; exit 77; }

card() { # card FILE [LINE...]
    local file=$1
    shift
    {
        printf 'version: 1\nexperiment:\n  question: "does a paired run hold on a drifting host?"\n'
        printf '  workload: ipsearch\n  cpu_list: 0\n  threads: 1\n  nb: 20000\n  nq: 400\n'
        printf '  dim: 64\n  iterations: 5\n  runs: %d\n' "$PAIRS"
        printf '  expect:\n    max_interference_pct: 100\n'
        [ $# -eq 0 ] || printf '%s\n' "$@"
    } >"$file"
}
card "$WORK/aa.yaml" 'against: {}'
card "$WORK/nb.yaml" 'against:' '  nb: 25000'

ln -s "$(command -v sh)" "$WORK/sc-busy"
BUSY=""
trap '[ -z "$BUSY" ] || kill $BUSY 2>/dev/null; rm -rf "$WORK"' EXIT
# paired_run NAME CARD: the pair, the busy loop started on cpu0 when its pair HALF+1
# begins; prints the pair's directory.
paired_run() {
    local out="$WORK/$1"
    mkdir -p "$out"
    (
        while [ -z "$(find "$out" -maxdepth 3 -name "run-$((HALF + 1))" -print -quit 2>/dev/null)" ]; do
            sleep 0.02
        done
        exec taskset -c 0 "$WORK/sc-busy" -c 'while :; do :; done'
    ) &
    BUSY=$!
    grep '^cpu1 ' /proc/stat >"$WORK/$1.cpu1"
    "$SC" run "$2" --output "$out" --quiet >"$WORK/$1.out" 2>"$WORK/$1.err" ||
        { cat "$WORK/$1.err" >&2; fail "$1: the paired run failed"; }
    grep '^cpu1 ' /proc/stat >>"$WORK/$1.cpu1"
    kill $BUSY 2>/dev/null || true
    wait $BUSY 2>/dev/null || true
    BUSY=""
    sed -n 's/^PAIR=//p' "$WORK/$1.out"
}
# facts PAIR: side A's qps before and after the step, and the other work on cpu0 in the runs
# before it and after it (the largest foreign share of runs 1..HALF and HALF+2.. of both
# sides; after it this test's loop holds about half of cpu0), as "drop% before% after%".
facts() {
    python3 - "$1" "$HALF" <<'PY'
import json, sys
p, half = sys.argv[1], int(sys.argv[2])
side = lambda s: json.load(open("%s/%s/results.json" % (p, s)))["runs"]
a = side("a")
q = [r["metrics"]["qps"] for r in a]
before, after = sorted(q[:half])[half // 2], sorted(q[half + 1:])[(len(q) - half - 1) // 2]
share = lambda runs: max(c["share_pct"] for s in ("a", "b") for r in runs(side(s)) for c in r["interference"]["cpus"])
print("%.1f %.1f %.1f" % (100 * (1 - after / before), share(lambda x: x[:half]), share(lambda x: x[half + 1:])))
PY
}
# cpu1_pct NAME: how busy cpu1 (not the card's) was over NAME's paired run, % (this test's
# own processes there, the wrapper and its observer, take a few).
cpu1_pct() {
    awk '{ busy = $2 + $3 + $4 + $7 + $8 + $9; total = busy + $5 + $6
           if (NR == 1) { b = busy; t = total } else printf "%.1f\n", (total > t ? 100 * (busy - b) / (total - t) : 0) }' "$WORK/$1.cpu1"
}
# pairs_of PAIR: each pair's order and qps of A and B, and log(B/A) (for a failure's message).
pairs_of() {
    python3 - "$1" <<'PY'
import json, math, sys
p = sys.argv[1]
side = lambda s: [r["metrics"]["qps"] for r in json.load(open("%s/%s/results.json" % (p, s)))["runs"]]
order = json.load(open(p + "/pair.json")).get("order", [])
for i, (a, b) in enumerate(zip(side("a"), side("b"))):
    print("  pair %d %s: A %.1f B %.1f log(B/A) %+.3f" % (i + 1, order[i] if i < len(order) else "?", a, b, math.log(b / a)))
PY
}
verdict_of() { grep -E "^paired, .*: qps queries/s [0-9.]+ -> " "$1" | verdict_name; }
# fail_unless_busy WHAT: a failure, or a skip when other work than this test's loop held
# the card's CPU before the step ($share, above LIMIT): the machine, not the design.
# The other CPU counts too: on a 2-vCPU VM a build on cpu1 slows cpu0's runs by a quarter
# (shared caches, memory, the host's core) without showing as foreign work on cpu0; cpu1's
# busy share over the paired run ($other, from /proc/stat) above OTHER_LIMIT is a skip.
fail_unless_busy() {
    if awk -v s="$share" -v m="$LIMIT" 'BEGIN { exit !(s > m) }'; then
        echo "SKIP: $1, with other work holding up to $share% of cpu0 before the step (above $LIMIT%): not this test's load"
        exit 77
    fi
    # after the step the loop holds about half of cpu0: well beyond that, something else did
    if awk -v s="$after" -v m="$LIMIT" 'BEGIN { exit !(s > 55 + m) }'; then
        echo "SKIP: $1, with foreign work up to $after% of cpu0 after the step (this test's loop holds about 50%, limit 55+$LIMIT%): not only this test's load"
        exit 77
    fi
    if awk -v s="$other" -v m="$OTHER_LIMIT" 'BEGIN { exit !(s > m) }'; then
        echo "SKIP: $1, with cpu1 $other% busy over the paired run (above $OTHER_LIMIT%; this test's own processes there take a few): not this test's load"
        exit 77
    fi
    fail "$1
$(pairs_of "$PAIR_DIR")"
}
interval_of() { grep -E "^paired, .*: qps queries/s " "$1" | sed -n 's/.*95% interval \[\([0-9.]*\), \([0-9.]*\)\].*/\1 \2/p'; }

# A against A.
AA=$(paired_run aa "$WORK/aa.yaml")
PAIR_DIR=$AA
expect_status 0 "$SC" verify "$AA"
read -r drop share after < <(facts "$AA")
other=$(cpu1_pct aa)
echo "A/A: side A's qps fell $drop% at the step; foreign work on cpu0 before it up to $share%, after it up to $after% (the loop about 50%); cpu1 $other% busy"
awk -v d="$drop" 'BEGIN { exit !(d > 20) }' ||
    fail_unless_busy "the busy loop did not slow side A (qps fell $drop%): this test shows nothing here"
expect_status 0 "$SC" compare "$AA"
[ "$(verdict_of "$WORK/out")" = contaminated ] || fail "A/A with the loop not contaminated: $(cat "$WORK/out")"
expect_status 0 "$SC" compare "$AA" --max-interference 100
cp "$WORK/out" "$WORK/aa.cmp"
echo "A/A: $(grep -E '^paired, ' "$WORK/aa.cmp")"
# The step shows in side A's rank correlation with run order (a clean step half way through
# the runs gives rho near -0.75 when the halves are in random order); whether p < 0.05 is
# left to chance (CI saw rho -0.60, p 0.072 with a 48% step at 10 runs), so the test asks
# for the sign and size of rho, not for the word "drifts".
rho=$(sed -n 's/^    trend with run order  *rho \(-\{0,1\}[0-9.]*\), p .*/\1/p' "$WORK/aa.cmp")
awk -v r="$rho" 'BEGIN { exit !(r != "" && r <= -0.5) }' ||
    fail_unless_busy "side A's trend with run order does not show the step (rho '$rho', want <= -0.5): $(cat "$WORK/aa.cmp")"
v=$(verdict_of "$WORK/aa.cmp")
case $v in
"no detectable difference" | "too noisy to tell") ;;
*) fail_unless_busy "A against A on a drifting host: '$v': $(cat "$WORK/aa.cmp")" ;;
esac

# nb 25% larger on B: B slower, the interval holding the true ratio's band.
NB=$(paired_run nb "$WORK/nb.yaml")
PAIR_DIR=$NB
expect_status 0 "$SC" verify "$NB"
read -r drop share after < <(facts "$NB")
other=$(cpu1_pct nb)
expect_status 0 "$SC" compare "$NB" --max-interference 100
cp "$WORK/out" "$WORK/nb.cmp"
echo "nb +25%: side A's qps fell $drop% at the step; foreign before $share%, after $after%, cpu1 $other% busy; $(grep -E '^paired, ' "$WORK/nb.cmp")"
v=$(verdict_of "$WORK/nb.cmp")
read -r low high < <(interval_of "$WORK/nb.cmp")
# The true ratio 1/1.25 = 0.80, and what bisect_paired's steps measured on this VM (0.800,
# 0.804): the band [0.77, 0.83]. The interval must reach into it.
ok=$(awk -v l="$low" -v h="$high" 'BEGIN { print (l <= 0.83 && h >= 0.77) ? 1 : 0 }')
[ "$v" = "B slower" ] && [ "$ok" = 1 ] ||
    fail_unless_busy "nb +25% on a drifting host: '$v', interval [$low, $high] (the true ratio's band [0.77, 0.83]): $(cat "$WORK/nb.cmp")"
echo "ok: pair (cpu0 $quiet% busy before; A/A '$(verdict_of "$WORK/aa.cmp")', nb +25% '$v' [$low, $high])"
