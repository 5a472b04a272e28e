#!/usr/bin/env bash
# contrib/nhc/streamcard.nhc, called the way LBNL NHC calls a check (NHC is not packaged in
# Debian 12, so its documented convention stands in: the file sourced, the check function
# called with the arguments of its nhc.conf line, die NAME-free "code message" marking the
# node, log for notes): a good card passes; a failed run is retried (count and wait
# configurable) and only a node whose every run fails is marked, with a message naming the
# gate, its figure, the bundle and how many runs failed; a run that fails once and then
# passes marks nothing; thresholds come from the card's expect: keys; a run that hangs past
# its timeout says so; a refused card or a missing kernel is not retried; the runs and
# waits fit NHC's TIMEOUT; old bundles are pruned; the check's work folder cannot be
# steered by another user.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"

# NHC's die records the message and marks the node (and ends NHC); this one records it
# for the test. NHC's log writes a line to its log.
die() {
    echo "$2" >>"$WORK/died"
    return 0
}
log() {
    echo "$*" >>"$WORK/logged"
}
# shellcheck source=/dev/null
. "$SRC/contrib/nhc/streamcard.nhc"
# STREAMCARD: the real command behind a counter of its runs and their arguments; the runs
# listed in FLAKY_FAIL (e.g. 1,2) get STREAMCARD_FAULT=corrupt: a real failed run.
cat >"$WORK/streamcard" <<SH
#!/usr/bin/env bash
n=\$((\$(cat "$WORK/count" 2>/dev/null || echo 0) + 1))
echo "\$n" >"$WORK/count"
echo "\$*" >>"$WORK/args"
case ",\${FLAKY_FAIL:-}," in *",\$n,"*) export STREAMCARD_FAULT=corrupt ;; esac
exec "$BIN/streamcard" "\$@"
SH
chmod +x "$WORK/streamcard"
export STREAMCARD="$WORK/streamcard" STREAMCARD_KERNEL_DIR="$KERNEL_DIR"
export STREAMCARD_NHC_OUTPUT="$WORK/nhc" STREAMCARD_NHC_KEEP=2 STREAMCARD_NHC_RETRY_WAIT=0
TIMEOUT=60 # NHC's own timeout, which the check stays below
export TIMEOUT
printf 'version: 1\nexperiment:\n  thread: 2\n' >"$WORK/bad.yaml"
# The node type's threshold in the card: a minimum no node reaches.
sed 's/^  expect:$/&\n    min_rate_MBps: 999999999/' "$WORK/card.yaml" >"$WORK/strict.yaml"
grep -q "min_rate_MBps: 999999999" "$WORK/strict.yaml" || fail "no strict card"

# name|env|args|status|runs|die message ("" = no die)
G="gate min_rate failed: best rate [0-9]+[.][0-9] MB/s is below the card's minimum 999999999[.]0 MB/s"
B="[(]bundle $WORK/nhc/[^ ]+_[0-9]{8}_[0-9]+[^ ]*;"
cases=(
    "good card||$WORK/card.yaml|0|1|"
    "reachable minimum||$WORK/card.yaml 1|0|1|"
    "impossible minimum||$WORK/card.yaml 999999999|1|2|check_streamcard:  $WORK/card.yaml: $G $B 2 of 2 runs failed[)]$"
    "card's threshold||$WORK/strict.yaml|1|2|check_streamcard:  $WORK/strict.yaml: $G $B 2 of 2 runs failed[)]$"
    "no retry|STREAMCARD_NHC_RETRIES=0|$WORK/strict.yaml|1|1|$G $B 1 of 1 runs failed[)]$"
    "three retries|STREAMCARD_NHC_RETRIES=3|$WORK/strict.yaml|1|4|$B 4 of 4 runs failed[)]$"
    "one noisy pass|FLAKY_FAIL=1|$WORK/card.yaml|0|2|"
    "noisy twice|FLAKY_FAIL=1,2 STREAMCARD_NHC_RETRIES=2|$WORK/card.yaml|0|3|"
    "failed run|FLAKY_FAIL=1,2|$WORK/card.yaml|1|2|gate validation failed: .* $B 2 of 2 runs failed[)]$"
    "hung run|STREAMCARD_FAULT=hang STREAMCARD_NHC_TIMEOUT=2|$WORK/card.yaml|1|2|: did not finish within 2 s [(]STREAMCARD_NHC_TIMEOUT[)]: gate [a-z_]+ failed: .*2 of 2 runs failed[)]$"
    "bad card||$WORK/bad.yaml|1|1|card refused: "
    "no kernel|STREAMCARD_KERNEL_DIR=$WORK/none|$WORK/card.yaml|1|1|could not run [(]streamcard exit 3[)]"
    "no card|||1|0|Syntax error:  no card"
    "bad minimum||$WORK/card.yaml fast|1|0|minimum rate \"fast\" is not a number"
    "bad retries|STREAMCARD_NHC_RETRIES=x|$WORK/card.yaml|1|0|Syntax error:  STREAMCARD_NHC_RETRIES \"x\""
    "no time|TIMEOUT=10 STREAMCARD_NHC_RETRIES=3 STREAMCARD_NHC_RETRY_WAIT=5|$WORK/card.yaml|1|0|NHC's TIMEOUT 10 s leaves no time for 4 runs 5 s apart"
)
for c in "${cases[@]}"; do
    IFS='|' read -r name envs args want runs text <<<"$c"
    rm -f "$WORK/died" "$WORK/logged" "$WORK/count" "$WORK/args"
    status=0
    # shellcheck disable=SC2086
    (if [ -n "$envs" ]; then export ${envs?}; fi; check_streamcard $args) || status=$?
    [ "$status" = "$want" ] || fail "case $name: check_streamcard returned $status, expected $want"
    got=$(cat "$WORK/count" 2>/dev/null || echo 0)
    [ "$got" = "$runs" ] || fail "case $name: $got runs, expected $runs"
    if [ -z "$text" ]; then
        [ ! -e "$WORK/died" ] || fail "case $name: die called: $(cat "$WORK/died")"
    else
        [ "$(wc -l <"$WORK/died")" = 1 ] || fail "case $name: die not called once"
        grep -Eq -- "$text" "$WORK/died" || fail "case $name: unclear message: $(cat "$WORK/died")"
    fi
done
# A failed pass followed by a good one: NHC's log says so, naming the failed run's bundle
# and the wait; nothing marks the node.
rm -f "$WORK/died" "$WORK/logged" "$WORK/count"
FLAKY_FAIL=1 STREAMCARD_NHC_RETRY_WAIT=1 check_streamcard "$WORK/card.yaml" ||
    fail "a node with one noisy pass failed"
grep -Eq "run 1 of 2 failed [(]gate validation; bundle $WORK/nhc/[^)]+[)]; running it again in 1 s$" "$WORK/logged" ||
    fail "the retry is not logged: $(cat "$WORK/logged")"
grep -q "passed on run 2 after 1 failed" "$WORK/logged" || fail "the pass is not logged"
# The runs' timeout: NHC's TIMEOUT less 5 s and the waits, shared by the runs.
rm -f "$WORK/args" "$WORK/count"
TIMEOUT=65 STREAMCARD_NHC_RETRY_WAIT=10 check_streamcard "$WORK/card.yaml" || fail "good card"
grep -q -- "--timeout 25" "$WORK/args" || fail "runs of (65 - 5 - 10) / 2 s expected: $(cat "$WORK/args")"
# NHC's real die ends the process: the check has pruned and cleaned up before it calls die.
rm -f "$WORK/died"
status=0
(
    die() {
        echo "$2" >>"$WORK/died"
        exit 1
    }
    STREAMCARD_NHC_RETRIES=0 check_streamcard "$WORK/strict.yaml"
    echo "after die" >>"$WORK/died"
) || status=$?
[ "$status" = 1 ] && [ "$(wc -l <"$WORK/died")" = 1 ] || fail "die did not end the check: $(cat "$WORK/died")"
# Only the newest STREAMCARD_NHC_KEEP bundles stay.
[ "$(find "$WORK/nhc" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 2 ] || fail "bundles not pruned"
[ -z "$(find "$WORK/nhc" -name '.check_streamcard.*')" ] || fail "log left behind"

# Hostile work directories (NHC runs as root; users can create folders first and plant
# symlinks): the check refuses a folder it cannot trust with one line and writes nothing
# there; in its own folder it never follows a planted link.
printf 'root only\n' >"$WORK/victim_file"
mkdir -p "$WORK/victim_dir"
printf 'keep me\n' >"$WORK/victim_dir/data"
touch "$WORK/victim_dir/SHA256SUMS"
victim_ok() {
    [ "$(cat "$WORK/victim_file")" = "root only" ] || fail "$1: a file outside was overwritten"
    [ -f "$WORK/victim_dir/data" ] || fail "$1: a directory outside was emptied"
}
# refused CASE TEXT: check_streamcard (with STREAMCARD_NHC_OUTPUT set) calls die once with TEXT.
refused() {
    rm -f "$WORK/died"
    check_streamcard "$WORK/card.yaml" >/dev/null 2>&1 || true
    [ "$(wc -l <"$WORK/died")" = 1 ] || fail "$1: die not called once"
    expect_contains "$WORK/died" "$2"
    victim_ok "$1"
}
ln -s "$WORK/victim_dir" "$WORK/linked"
STREAMCARD_NHC_OUTPUT="$WORK/linked" refused "a symlink" "linked: not a directory (a symlink"
mkdir -m 0777 "$WORK/open"
STREAMCARD_NHC_OUTPUT="$WORK/open" refused "world-writable" "open: owned by uid $(id -u), mode 777"
if [ "$(id -u)" = 0 ]; then
    # A user made the folder first and planted the old predictable log name.
    mkdir "$WORK/theirs"
    ln -s "$WORK/victim_file" "$WORK/theirs/.check_streamcard.$$"
    chown -hR 65534 "$WORK/theirs"
    STREAMCARD_NHC_OUTPUT="$WORK/theirs" refused "a user's folder" "theirs: owned by uid 65534"
    [ "$(find "$WORK/theirs" -mindepth 1 | wc -l)" = 1 ] || fail "the check wrote into a user's folder"
fi
# In its own folder: a planted log name, a bundle-named symlink (with the trailing slash the
# old glob added, rm -rf followed it) and a folder dated 2030 that another user owns.
mine="$WORK/mine"
mkdir -m 0755 "$mine"
ln -s "$WORK/victim_file" "$mine/.check_streamcard.$$"
ln -s "$WORK/victim_dir" "$mine/evil_20300101_000000"
mkdir "$mine/future_20300101_000000"
touch "$mine/future_20300101_000000/SHA256SUMS"
touch -d 2030-01-01 "$mine/future_20300101_000000" "$mine/future_20300101_000000/SHA256SUMS"
[ "$(id -u)" != 0 ] || chown -R 65534 "$mine/future_20300101_000000"
rm -f "$WORK/died"
STREAMCARD_NHC_OUTPUT="$mine" STREAMCARD_NHC_KEEP=1 check_streamcard "$WORK/card.yaml" ||
    fail "a good run failed in its own folder: $(cat "$WORK/died" 2>/dev/null)"
victim_ok "own folder"
[ -L "$mine/.check_streamcard.$$" ] || fail "the planted log link was replaced"
[ -L "$mine/evil_20300101_000000" ] || fail "the bundle-named symlink was removed"
if [ "$(id -u)" = 0 ]; then
    # root's new bundle is kept; another user's folder is not root's to count or remove
    [ -d "$mine/future_20300101_000000" ] || fail "another user's folder was removed"
fi
[ "$(find "$mine" -mindepth 1 -maxdepth 1 -type d -name 'stream_*' | wc -l)" = 1 ] ||
    fail "the new bundle was not kept: $(ls -la "$mine")"
[ -z "$(find "$mine" -name '.check_streamcard.??????')" ] || fail "temporary log left behind"
echo "ok: nhc"
