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
