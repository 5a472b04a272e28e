#!/usr/bin/env bash
# contrib/nhc/streamcard.nhc with a stand-in for NHC's die: a good card passes, a minimum
# rate no node reaches, a failed run, a run that hangs past STREAMCARD_NHC_TIMEOUT, a bad
# card and a missing kernel each call die with a clear message; old bundles are pruned.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"

# NHC's die records the message and marks the node; this one records it for the test.
die() {
    echo "$2" >>"$WORK/died"
    return 0
}
# shellcheck source=/dev/null
. "$SRC/contrib/nhc/streamcard.nhc"
export STREAMCARD="$BIN/streamcard" STREAMCARD_KERNEL_DIR="$KERNEL_DIR"
export STREAMCARD_NHC_OUTPUT="$WORK/nhc" STREAMCARD_NHC_KEEP=2
TIMEOUT=60 # NHC's own timeout, which the check stays below
export TIMEOUT
printf 'version: 1\nexperiment:\n  thread: 2\n' >"$WORK/bad.yaml"

# name|env|args|status|die message ("" = no die)
cases=(
    "good card||$WORK/card.yaml|0|"
    "reachable minimum||$WORK/card.yaml 1|0|"
    "impossible minimum||$WORK/card.yaml 999999999|1|check_streamcard:  $WORK/card.yaml: best rate "
    "failed run|STREAMCARD_FAULT=corrupt|$WORK/card.yaml|1|the run failed its gates: validation"
    "hung run|STREAMCARD_FAULT=hang STREAMCARD_NHC_TIMEOUT=2|$WORK/card.yaml|1|did not finish within 2 s (STREAMCARD_NHC_TIMEOUT): the run failed its gates: phases validation exit_code"
    "bad card||$WORK/bad.yaml|1|card refused: "
    "no kernel|STREAMCARD_KERNEL_DIR=$WORK/none|$WORK/card.yaml|1|could not run (streamcard exit 3)"
    "no card|||1|Syntax error:  no card"
    "bad minimum||$WORK/card.yaml fast|1|minimum rate \"fast\" is not a number"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name envs args want text <<<"$c"
    rm -f "$WORK/died"
    status=0
    # shellcheck disable=SC2086
    (if [ -n "$envs" ]; then export ${envs?}; fi; check_streamcard $args) || status=$?
    [ "$status" = "$want" ] || fail "case $name: check_streamcard returned $status, expected $want"
    if [ -z "$text" ]; then
        [ ! -e "$WORK/died" ] || fail "case $name: die called: $(cat "$WORK/died")"
    else
        [ "$(wc -l <"$WORK/died")" = 1 ] || fail "case $name: die not called once"
        expect_contains "$WORK/died" "$text"
    fi
done
# The minimum is named with the rate that missed it and the bundle that proves it.
rm -f "$WORK/died"
check_streamcard "$WORK/card.yaml" 999999999 || true
grep -Eq 'best rate [0-9]+\.[0-9] MB/s is below the minimum 999999999 MB/s \(bundle /' "$WORK/died" ||
    fail "unclear message: $(cat "$WORK/died")"
# Only the newest STREAMCARD_NHC_KEEP bundles stay.
[ "$(find "$WORK/nhc" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 2 ] || fail "bundles not pruned"
[ -z "$(find "$WORK/nhc" -name '.check_streamcard.*')" ] || fail "log left behind"
echo "ok: nhc"
