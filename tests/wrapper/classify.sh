#!/usr/bin/env bash
# streamcard classify: 0 good, 1 bad, 125 skip in one line, on real and crafted bundles:
# bad only for a loss whose 95% interval lies beyond the tolerance, good when the interval
# excludes it, skip when it cannot tell (too noisy, or fewer than 6 runs a side);
# failed gates by their class: an outcome gate (validation, a crash of the workload's own)
# is bad, an environment gate (a timeout from outside) is skip, --bad-gate overrides;
# --junit (and verify's) says the same as a JUnit report that parses;
# then a real `git bisect run` over a history whose runs get slower finds the first slow
# commit and skips the commit whose run was stopped from outside.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"

# The bundles judged on their figures have 6 runs (the fewest with a 95% interval), their
# rates set to known values: the verdicts are the statistics', not this machine's noise.
SIX=(-- --runs 6)
known() { # known BUNDLE [FUNCTION]: the runs' rates set to 10000 MB/s +-1%
    set_rate "$1" 10000,10100,9900,10050,9950,10020 "${2:-copy}"
    echo "$1"
}
base=$(known "$(small_run base "${SIX[@]}")")
rep=$(copy_bundle "$base" rep)
slow=$(copy_bundle "$base" slow) && scale_rate "$slow" 0.5
slight=$(copy_bundle "$base" slight) && scale_rate "$slight" 0.97
fast=$(copy_bundle "$base" fast) && scale_rate "$fast" 1.5
# Too noisy to tell: the runs swing +-40% around the baseline's rate.
noisy=$(copy_bundle "$base" noisy) && scale_rate "$noisy" 0.6,1.4,0.7,1.3,0.65,1.35
single=$(known "$(small_run single)")
rebuilt=$(known "$(small_run rebuilt STREAMCARD_KERNEL_DIR="$(other_kernel)" "${SIX[@]}")")
thr1=$(known "$(small_run thr1 -- --threads 1 --runs 6)")
failed=$(small_run failed STREAMCARD_FAULT=corrupt)
crashed=$(small_run crashed STREAMCARD_FAULT=crash)
hung=$(small_run hung STREAMCARD_FAULT=hang -- --timeout 1)
tampered=$(copy_bundle "$single" tampered)
# kernel all: each kernel judged on its own. One function halved leaves the best of the
# four as it was; it is still a regression.
all=$(small_run all -- --kernel all --runs 6)
for f in copy scale add triad; do known "$all" $f >/dev/null; done
slowest=triad
allslow=$(copy_bundle "$all" allslow) && scale_rate "$allslow" 0.5 "$slowest"
echo "Copy: 1.0 0.1 0.1 0.1" >>"$tampered/stream.log"
"$SC" verify "$slow" >/dev/null || fail "the crafted slow bundle does not verify"
"$SC" verify "$noisy" >/dev/null || fail "the crafted noisy bundle does not verify"

# The bundles are tiny real runs made beside other tests (ctest -j): their foreign share is
# the machine's, not the case's, so every case names a contamination limit of 100%
# (LIMIT); above the default 5% a side is contaminated and the run a skip (core.pair's
# test_compare_overrides; wrapper.pair with real load).
LIMIT="--max-interference 100"

# name|bundle|baseline|options|status|stdout starts with|stdout holds
# (rep against base, by hand: 6 x 6 runs, the exact Mann-Whitney law puts the 95% interval
# of the Hodges-Lehmann ratio between the 6th smallest and the 6th largest of the 36
# ratios b_j/a_i, here 9950/10050 = 0.990 and 10050/9950 = 1.010)
cases=(
    "same|$rep|$base||0|good: rep: copy MB/s |(+0.0%), B/A 1.000 in [0.990, 1.010] (6 and 6 runs): no loss beyond the 5.0% tolerance"
    "slower within tolerance|$slight|$base||0|good: slight:|(-3.0%), B/A 0.970 in [0.96"
    "faster|$fast|$base||0|good: fast:|(+50.0%)"
    "slower|$slow|$base||1|bad: slow:|(-50.0%), B/A 0.500 in [0.495, 0.505] (6 and 6 runs): a significant loss beyond the 5.0% tolerance (exact Mann-Whitney)"
    "slower, tolerant|$slow|$base|--tolerance 60|0|good: slow:|no loss beyond the 60.0% tolerance"
    "tight tolerance|$slight|$base|--tolerance 1|1|bad: slight:|beyond the 1.0% tolerance"
    "too noisy to tell|$noisy|$base||125|skip: noisy:|too noisy to tell a loss beyond 5.0% from noise; roughly "
    "one run|$single|$base||125|skip: single_|1 and 6 runs): interval unavailable: at least 6 runs a side"
    "another build|$rebuilt|$base||0|good: rebuilt_|no loss beyond the 5.0% tolerance"
    "validation failed|$failed|$base||1|bad: failed_|outcome gates failed where the baseline held them: validation exit_code (exit code 1)"
    "crashed by itself|$crashed|$base||1|bad: crashed_|outcome gates failed where the baseline held them: validation exit_code (killed by signal 11"
    "stopped from outside|$hung|$base||125|skip: hung_|the run proves nothing: environment gates failed: phases exit_code stream_timer (killed by signal 15"
    "bad gate named|$failed|$base|--bad-gate validation|1|bad: failed_|baseline held them: validation (log line"
    "bad gate: another|$failed|$base|--bad-gate binding,transport|125|skip: failed_|environment gates failed: validation"
    "bad gate: none|$crashed|$base|--bad-gate none|125|skip: crashed_|environment gates failed: phases validation exit_code stream_timer (killed by signal 11"
    "bad gate: timeouts too|$hung|$base|--bad-gate exit_code|1|bad: hung_|baseline held them: exit_code (killed by signal 15"
    "tampered|$tampered|$base||125|skip: tampered|8 problems (stream.log: edited"
    "no bundle|$WORK/nope|$base||125|skip: $WORK/nope: cannot open the bundle|"
    "not comparable|$thr1|$base||125|skip: thr1_|threads differs (1 here, 2 in the baseline"
    "allowed difference|$thr1|$base|--allow threads|0|good: thr1_|"
    "kernel all, its primary metric|$allslow|$all||1|bad: allslow: $slowest MB/s |a significant loss beyond the 5.0% tolerance (exact Mann-Whitney)"
    "kernel all, every metric|$allslow|$all|--metric all|1|bad: allslow: $slowest MB/s |(exact Mann-Whitney; Holm's correction for 4 metrics)"
    "kernel all, another kernel|$allslow|$all|--metric copy|0|good: allslow: copy MB/s|"
    "kernel all, that kernel's metric|$allslow|$all|--metric $slowest --tolerance 60|0|good: allslow: $slowest MB/s|"
    "kernel all, another metric|$allslow|$all|--metric qps|125|skip: allslow: no qps recorded|"
    "invalid baseline|$rep|$failed||125|skip: the baseline $failed is not usable evidence|failed gates: validation"
)
# junit_says XML KIND MESSAGE_FILE [NAME]: the JUnit report parses (xml.etree), holds one
# test case (named NAME when given) of KIND (pass, failure, skipped, error) whose message is
# the first line of MESSAGE_FILE, and counts it in its suite.
junit_says() {
    python3 - "$@" <<'PY' || fail "junit $1: not what the command said"
import sys, xml.etree.ElementTree as ET
xml, kind, said = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split("\n")[0]
suite = ET.parse(xml).getroot().find("testsuite")
cases = suite.findall("testcase")
assert suite.get("tests") == "1" and len(cases) == 1, (suite.attrib, len(cases))
if len(sys.argv) > 4:
    assert cases[0].get("name") == sys.argv[4], cases[0].attrib
for k in ("failure", "skipped", "error"):
    found = cases[0].find(k)
    assert (found is not None) == (k == kind), (k, kind)
    assert suite.get(k + "s" if k != "skipped" else k) == ("1" if k == kind else "0"), suite.attrib
    if found is not None:
        assert found.get("message") == said, (found.get("message"), said)
if kind == "pass":
    assert said in cases[0].find("system-out").text, said
PY
}

kind_of() { case $1 in 0) echo pass ;; 1) echo failure ;; 125) echo skipped ;; *) echo error ;; esac; }
for c in "${cases[@]}"; do
    IFS='|' read -r name b baseline opts want start text <<<"$c"
    # shellcheck disable=SC2086
    expect_status "$want" "$SC" classify "$b" --baseline "$baseline" $LIMIT $opts --junit "$WORK/c.xml"
    [ "$(wc -l <"$WORK/out")" = 1 ] || fail "case $name: not one line: $(cat "$WORK/out")"
    case "$(cat "$WORK/out")" in "$start"*) ;; *) fail "case $name: '$(cat "$WORK/out")' does not start with '$start'";; esac
    grep -qF -- "$text" "$WORK/out" || fail "case $name: lacks '$text': $(cat "$WORK/out")"
    # The JUnit report says the same: one test case, of the kind the status is, the line its
    # message (escaped: XML parses it back to the line).
    junit_says "$WORK/c.xml" "$(kind_of "$want")" "$WORK/out" "$b"
done
# Every metric compared is in the report's text (kernel all, --metric all: the four).
expect_status 1 "$SC" classify "$allslow" --baseline "$all" --metric all $LIMIT --junit "$WORK/c.xml"
python3 - "$WORK/c.xml" <<'PY' || fail "junit: the metrics compared"
import sys, xml.etree.ElementTree as ET
text = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase/failure").text
assert all(("\n%s MB/s " % f) in text for f in ("copy", "scale", "add", "triad")), text
PY
# A baseline that cannot be read: an error test case (128 stops git bisect run).
expect_status 128 "$SC" classify "$rep" --baseline "$WORK/nope" --junit "$WORK/c.xml"
printf 'the baseline %s: cannot open the bundle: No such file or directory\n' "$WORK/nope" >"$WORK/said"
junit_says "$WORK/c.xml" error "$WORK/said"
# A report that cannot be written (a symlink) is said before anything is judged: 128.
ln -s "$WORK/elsewhere.xml" "$WORK/link.xml"
expect_status 128 "$SC" classify "$rep" --baseline "$base" --junit "$WORK/link.xml"
expect_contains "$WORK/err" "--junit $WORK/link.xml: a symlink, not written"
[ ! -s "$WORK/out" ] && [ ! -e "$WORK/elsewhere.xml" ] || fail "judged or written through a link"

# verify --junit: one test case per bundle, each saying what verify said on stderr; the
# exit status is the worst (2: a bundle that cannot be opened).
expect_status 2 "$SC" verify --junit "$WORK/v.xml" "$rep" "$failed" "$tampered" "$WORK/nope"
python3 - "$WORK/v.xml" "$WORK/err" "$rep" "$failed" "$tampered" "$WORK/nope" <<'PY' || fail "verify --junit"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
err = open(sys.argv[2]).read()
cases = suite.findall("testcase")
assert [c.get("name") for c in cases] == sys.argv[3:], [c.get("name") for c in cases]
assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "2", "1"), suite.attrib
assert "verdict ok" in cases[0].find("system-out").text
gates = cases[1].find("failure")
assert gates.get("message") == "intact and consistent, but the run FAILED its gates: validation exit_code", gates.attrib
assert "but the run FAILED its gates: validation exit_code\n" in err
for line in gates.text.strip().split("\n"):
    assert "streamcard: verify: " + line + "\n" in err, line
problems = cases[2].find("failure")
assert problems.get("message").startswith("FAILED (8 problems): stream.log: edited"), problems.attrib
for line in problems.text.strip().split("\n"):
    assert "streamcard: verify: " + line + "\n" in err, line
assert cases[3].find("error").get("message") == "cannot open the bundle: No such file or directory"
PY

# Usage errors exit 128: git bisect run stops instead of marking commits bad.
usage=(
    "--baseline $WORK/nope|baseline $WORK/nope: cannot open the bundle"
    "--baseline $base --tolerance 5%|--tolerance 5%: not a percentage"
    "--baseline $base --tolerance -1|--tolerance -1: not a percentage"
    "--baseline $base --allow cores|--allow cores: not a controlled variable"
    "--baseline $base --metric bandwidth|--metric bandwidth: not a metric"
    "--baseline $base --bad-gate validation,no|--bad-gate no: not a gate"
    "|needs one BUNDLE (with --baseline) or PAIR"
    "--baseline $base --bogus|--bogus: unknown option"
)
for u in "${usage[@]}"; do
    IFS='|' read -r opts text <<<"$u"
    # shellcheck disable=SC2086
    expect_status 128 "$SC" classify "$rep" $opts
    expect_contains "$WORK/err" "$text"
done

# --help says which gates are outcome and which environment.
expect_status 0 "$SC" classify --help
grep -Eq '^  transport +outcome$' "$WORK/out" || fail "--help lacks transport's class"
grep -Eq '^  binding +environment$' "$WORK/out" || fail "--help lacks binding's class"
expect_contains "$WORK/out" "--bad-gate GATE"

# git bisect run: commits 1-5 run at full speed but 4 (the first one tested) was stopped by
# its timeout (proves nothing); 6-8 run at half speed.
repo="$WORK/repo"
git init -q "$repo"
git -C "$repo" config user.email t@example.org
git -C "$repo" config user.name test
for i in 1 2 3 4 5 6 7 8; do
    state=fast
    [ "$i" -ge 6 ] && state=slow
    [ "$i" = 4 ] && state=hung
    echo "$state $i" >"$repo/state"
    git -C "$repo" add state
    git -C "$repo" commit -q -m "commit $i ($state)"
done
cat >"$WORK/step.sh" <<STEP
#!/bin/sh
# One bisection step: "run" the benchmark of this commit, then classify it.
case \$(cut -d" " -f1 state) in
fast) b=$base ;;
slow) b=$slow ;;
hung) b=$hung ;;
esac
exec "$SC" classify "\$b" --baseline "$base" --tolerance 5 $LIMIT
STEP
chmod +x "$WORK/step.sh"
(cd "$repo" && git bisect start HEAD HEAD~7 >/dev/null &&
    git bisect run "$WORK/step.sh" >"$WORK/bisect.out" 2>&1) || { cat "$WORK/bisect.out" >&2; fail "git bisect run"; }
first_bad=$(git -C "$repo" rev-parse refs/bisect/bad)
[ "$(git -C "$repo" log -1 --format=%s "$first_bad")" = "commit 6 (slow)" ] ||
    { cat "$WORK/bisect.out" >&2; fail "bisect blamed $(git -C "$repo" log -1 --format=%s "$first_bad")"; }
expect_contains "$WORK/bisect.out" "is the first bad commit"
expect_contains "$WORK/bisect.out" "skip: hung_"
# A usage error stops the bisection instead of marking a commit bad.
git -C "$repo" bisect reset >/dev/null 2>&1
(cd "$repo" && git bisect start HEAD HEAD~7 >/dev/null &&
    git bisect run "$SC" classify "$base" --baseline "$base" --tolerance 5% >"$WORK/abort.out" 2>&1) &&
    fail "git bisect run went on after a usage error"
expect_contains "$WORK/abort.out" "exit code 128"
[ "$(git -C "$repo" bisect log | grep -c '^# \(good\|bad\|skip\):')" = 2 ] ||
    fail "a commit was marked after the usage error: $(git -C "$repo" bisect log)"
echo "ok: classify"
