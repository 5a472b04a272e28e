#!/usr/bin/env bash
# `streamcard run --platform apply` (doc/contracts/platform.md, "Set by the CLI as root"): as
# root outside Slurm the card's prefetch and governor are set by the plugin's own facade
# (journal, readback) before the workload and restored when the run ends. In a mount
# namespace of the test's own, a sysroot whose sys is this machine's sysfs with each CPU's
# folder replaced by a copy that has a fake cpufreq (scaling_governor, its offered list),
# whose proc/cpuinfo names a Skylake-X (a class of section 14 on any machine), whose
# dev/cpu/N/msr are regular files (read and written as the msr driver's devices), and whose
# etc/streamcard/policy is the node's policy. Applied, read back and restored after a good
# run, a failing workload, SIGTERM, SIGINT and SIGKILL; refused as a user, inside a job, by the
# policy and for a card that changes nothing; the refusals change nothing.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
sysroot_or_skip
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
sed -e 's/^vendor_id.*/vendor_id\t: GenuineIntel/' -e 's/^cpu family.*/cpu family\t: 6/' \
    -e 's/^model\t.*/model\t\t: 85/' /proc/cpuinfo >"$WORK/cpuinfo"
export HOME=$WORK/home XDG_CACHE_HOME=
unset SLURM_JOB_ID
# A streamcard started in the background is stopped (with its hanging workload) if the test
# fails before it does.
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$WORK"' EXIT
STATE=$WORK/state
FAKE=$WORK/cpus # the CPU folders bound over sysfs's

# Each CPU of the card: its sysfs folder copied (topology, caches), plus a cpufreq.
for cpu in 0 1; do
    d=$FAKE/cpu$cpu
    mkdir -p "$d/cpufreq"
    cp -r /sys/devices/system/cpu/cpu$cpu/topology /sys/devices/system/cpu/cpu$cpu/cache "$d/" 2>/dev/null || true
    echo "powersave performance" >"$d/cpufreq/scaling_available_governors"
    echo powersave >"$d/cpufreq/scaling_governor"
    echo $cpu >"$d/cpufreq/related_cpus"
    echo "fake-cpufreq" >"$d/cpufreq/scaling_driver"
done
mkdir -p "$ROOT/etc/streamcard"
policy() { echo "$1 state_dir=$STATE" >"$ROOT/etc/streamcard/policy"; }
policy "allow=prefetch,governor"

# msr_of CPU: the low byte of register 0x1a4 of CPU's fake device, in decimal.
msr_of() { od -An -t u1 -j 420 -N 1 "$ROOT/dev/cpu/$1/msr" | tr -d ' '; }
gov_of() { cat "$FAKE/cpu$1/cpufreq/scaling_governor"; }
# expect_original: both CPUs as the test seeded them (prefetch on, powersave), no journal.
expect_original() {
    for cpu in 0 1; do
        [ "$(msr_of $cpu)" = 0 ] || fail "$1: cpu $cpu's register is $(msr_of $cpu), not restored to 0"
        [ "$(gov_of $cpu)" = powersave ] || fail "$1: cpu $cpu's governor is $(gov_of $cpu), not restored"
    done
    [ ! -e "$STATE/job_0.journal" ] || fail "$1: the journal is still there: $(cat "$STATE/job_0.journal")"
}
# on_node CMD...: CMD with STREAMCARD_SYSROOT=$ROOT in a new mount namespace (unshare execs
# the shell, which execs CMD: started in the background, $! is CMD's pid).
# shellcheck disable=SC2016 # the inner shell expands them
NODE_SH='
    set -e
    root=$1 cpuinfo=$2 fake=$3; shift 3
    mount --make-rprivate /
    mount -t sysfs sysfs "$root/sys"
    for d in "$fake"/cpu*; do mount --bind "$d" "$root/sys/devices/system/cpu/${d##*/}"; done
    mount --bind /proc "$root/proc"
    mount --bind "$cpuinfo" "$root/proc/cpuinfo"
    STREAMCARD_SYSROOT=$root exec "$@"'
on_node() { unshare -m sh -c "$NODE_SH" sh "$ROOT" "$WORK/cpuinfo" "$FAKE" "$@"; }
small_card "$WORK/off.yaml" off "  governor: performance"
small_card "$WORK/unchanged.yaml" ""
msr 0 0
msr 1 0

# The plan says what root will do.
expect_status 0 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --dry-run
expect_contains "$WORK/out" "prefetch:    off (set by the CLI as root before the workload and restored after it: --platform apply"
expect_original "dry run"

# A good run: set, journaled, read back (the gate holds on it), restored at the end.
expect_status 0 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$WORK/err" "streamcard: platform applied by the CLI as root: prefetch off, governor performance on cpus 0-1"
expect_contains "$WORK/err" "platform_state  ok   read back: prefetch off, governor performance; applied by the CLI as root, not attested; read by the CLI as root before and after the workload, not attested"
expect_contains "$WORK/err" "streamcard: platform restored"
expect_original "after a good run"
for f in msr_readback_before msr_readback_after msr_readback_applied; do
    expect_contains "$B/prefetch/state/$f.txt" "cpu=0 reg=0x1a4 value=0x000000000000000f state=off"
    expect_contains "$B/prefetch/state/$f.txt" "cpu=1 reg=0x1a4 value=0x000000000000000f state=off"
done
expect_contains "$B/prefetch/state/msr_readback_applied.txt" "# applied by the CLI as root, not attested"
expect_contains "$B/prefetch/state/msr_readback_original.txt" "cpu=1 reg=0x1a4 value=0x0000000000000000 state=on"
expect_contains "$B/prefetch/state/state.env" "# applied by the CLI as root, not attested"
expect_contains "$B/prefetch/state/state.env" "APPLIED=1"
expect_contains "$B/prefetch/state/state.env" "OBSERVED_GOVERNOR=performance"
expect_contains "$B/prefetch/state/applied.env" "# applied by the CLI as root, not attested"
expect_contains "$B/prefetch/state/applied.env" "REQUESTED_PREFETCH=off"
expect_contains "$B/prefetch/state/applied.env" "OBSERVED_GOVERNOR=performance"
expect_contains "$B/prefetch/state/applied.env" "RESTORED=1"
expect_contains "$B/platform/before.txt" "cpu1.governor=performance"
expect_contains "$B/prefetch/control.log" "journal: $STATE/job_0.journal synced before any change"
expect_contains "$B/prefetch/control.log" "write: cpu 1 governor powersave -> performance, readback performance"
expect_contains "$B/prefetch/control.log" "restore: job 0 cpu 1 governor powersave"
expect_status 0 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/out" "platform applied by the CLI as root, not attested; read by the CLI as root before and after the workload, not attested"
# The record of the change is held to its readback; one that was not restored says so.
FORGED=$WORK/forged
cp -r "$B" "$FORGED"
sed -i 's/^RESTORED=1/RESTORED=0/' "$FORGED/prefetch/state/applied.env"
reseal "$FORGED"
expect_status 0 "$BIN/streamcard" verify "$FORGED"
expect_contains "$WORK/out" "the platform applied by the CLI as root was not restored when the run ended (RESTORED=0"
sed -i 's/^OBSERVED_STATE=off/OBSERVED_STATE=on/' "$FORGED/prefetch/state/applied.env"
reseal "$FORGED"
expect_status 1 "$BIN/streamcard" verify "$FORGED"
expect_contains "$WORK/err" "prefetch/state/applied.env: OBSERVED_STATE=on, but the readback after the change shows off (msr_readback_applied.txt)"
rm "$FORGED/prefetch/state/applied.env"
reseal "$FORGED"
expect_status 1 "$BIN/streamcard" verify "$FORGED"
expect_contains "$WORK/err" "prefetch/state/applied.env, the record of the change, is missing"

# A kernel that runs the real one, except: "fail" makes the run exit 1, "hang" waits to be
# signalled; either way it first marks that it started, with the platform set.
mkdir -p "$WORK/kernels"
cat >"$WORK/kernels/streamcard-stream" <<SCRIPT
#!/bin/sh
[ "\$1" = --build-info ] && exec "$BIN/streamcard-stream" "\$@"
od -An -t u1 -j 420 -N 1 "$ROOT/dev/cpu/1/msr" | tr -d ' ' >"$WORK/kernels/seen"
case \$(cat "$WORK/kernels/mode") in
fail) exit 1 ;;
hang) exec sleep 120 ;;
esac
exec "$BIN/streamcard-stream" "\$@"
SCRIPT
chmod +x "$WORK/kernels/streamcard-stream"
kernel_run() { on_node env STREAMCARD_KERNEL_DIR="$WORK/kernels" "$BIN/streamcard" run "$@"; }

# A failing workload: the run fails, the platform is restored all the same.
echo fail >"$WORK/kernels/mode"
expect_status 1 kernel_run "$WORK/off.yaml" --platform apply --output "$WORK/runs" --quiet
[ "$(cat "$WORK/kernels/seen")" = 15 ] || fail "the workload did not run with prefetch off"
expect_contains "$WORK/err" "streamcard: platform restored"
expect_original "after a failing workload"
expect_contains "$(bundle_of "$WORK/out")/prefetch/state/applied.env" "RESTORED=1"

# started: waits (at most 60 s) until the hanging workload has started.
started() {
    for _ in $(seq 600); do
        [ -s "$WORK/kernels/seen" ] && return 0
        sleep 0.1
    done
    fail "the workload never started: $(cat "$WORK/bg.err")"
}

# in_background: streamcard run --platform apply of off.yaml with the hanging workload, in
# the background ($pid is streamcard's own: unshare and sh exec it), SIGINT at its default
# (a shell's background job would ignore it), its output in bg.out and bg.err; returns once
# the workload has started.
in_background() {
    rm -f "$WORK/kernels/seen"
    unshare -m sh -c "$NODE_SH" sh "$ROOT" "$WORK/cpuinfo" "$FAKE" env --default-signal=INT \
        STREAMCARD_KERNEL_DIR="$WORK/kernels" "$BIN/streamcard" run "$WORK/off.yaml" \
        --platform apply --output "$WORK/runs" --quiet >"$WORK/bg.out" 2>"$WORK/bg.err" &
    pid=$!
    started
}

# SIGTERM or SIGINT to streamcard: forwarded to the workload, the bundle ends, the platform
# is restored.
echo hang >"$WORK/kernels/mode"
for sig in TERM INT; do
    in_background
    [ "$(gov_of 0)" = performance ] || fail "the governor was not set while the workload ran"
    if [ $sig = TERM ]; then # meanwhile another change is refused, naming who holds the node
        small_card "$WORK/on.yaml" on
        expect_status 3 on_node "$BIN/streamcard" run "$WORK/on.yaml" --platform apply --output "$WORK/runs" --quiet
        expect_contains "$WORK/err" "streamcard: node busy: streamcard run --platform apply as root holds prefetch=off governor=performance on cpus 0-1 (holder pid $pid alive)"
        [ "$(msr_of 1)" = 15 ] || fail "the refused change wrote the register"
    fi
    kill -$sig $pid
    status=0
    wait $pid || status=$?
    pid=
    [ $status = 1 ] || fail "streamcard ended with $status after SIG$sig: $(cat "$WORK/bg.err")"
    expect_contains "$WORK/bg.err" "streamcard: platform restored"
    expect_contains "$(bundle_of "$WORK/bg.out")/prefetch/state/applied.env" "RESTORED=1"
    expect_original "after SIG$sig"
done

# SIGKILL: streamcard cannot restore; its guardian seals the bundle and restores. The guardian
# is started once the workload runs and the first files are written: killed before that,
# the bundle stays unsealed and the next change restores the dead holder's journal (the
# stale journal case below); here the kill waits for the guardian.
in_background
for _ in $(seq 300); do
    pgrep -P $pid -x streamcard-seal >/dev/null && break
    sleep 0.1
done
pgrep -P $pid -x streamcard-seal >/dev/null || fail "no guardian (streamcard-seal) under streamcard: $(cat "$WORK/bg.err")"
kill -KILL $pid
wait $pid || true
pid=
for _ in $(seq 100); do
    [ -e "$STATE/job_0.journal" ] || break
    sleep 0.1
done
expect_contains "$WORK/bg.err" "streamcard was killed"
expect_original "after SIGKILL (the guardian's restore)"

# Refusals: one line each, saying what would be valid, and nothing is changed.
expect_status 2 on_node "$BIN/streamcard" run "$WORK/unchanged.yaml" --platform apply --dry-run
expect_contains "$WORK/err" "--platform apply: the card leaves prefetch and governor unchanged: nothing to apply (valid:"

expect_status 2 on_node env SLURM_JOB_ID=4242 "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --output "$WORK/runs"
expect_contains "$WORK/err" "--platform apply: inside Slurm job 4242 the SPANK plugin owns this node's platform (valid:"

policy "allow=governor"
expect_status 2 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --output "$WORK/runs"
expect_contains "$WORK/err" "--platform apply: the node's policy $ROOT/etc/streamcard/policy does not let the card change prefetch (valid: prefetch: unchanged; or root adds allow=prefetch,governor"
rm "$ROOT/etc/streamcard/policy"
expect_status 2 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --output "$WORK/runs"
expect_contains "$WORK/err" "(no policy file: nothing may be changed)"
policy "allow=prefetch,governor colour=red"
expect_status 2 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --output "$WORK/runs"
expect_contains "$WORK/err" "unknown argument \"colour=red\""
policy "allow=prefetch,governor"
chmod 666 "$ROOT/etc/streamcard/policy"
expect_status 2 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform apply --output "$WORK/runs"
expect_contains "$WORK/err" "not a regular file owned by root that only root may write"
chmod 644 "$ROOT/etc/streamcard/policy"

# As a user: the card as flags (the user cannot read the test's folder), the command a copy
# in a folder the user may enter (the build tree can sit in a 0700 home, as root's).
USERBIN=$(mktemp -d)
chmod 755 "$USERBIN"
cp "$BIN/streamcard" "$USERBIN/streamcard"
chmod 755 "$USERBIN/streamcard"
expect_status 2 on_node setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/ \
    "$USERBIN/streamcard" run --workload stream --kernel copy --cpu-list 0-1 --threads 2 \
    --prefetch off --platform apply --dry-run
rm -rf "$USERBIN"
expect_contains "$WORK/err" "--platform apply: needs root: it writes the prefetch registers and governors of the card's CPUs (valid:"

expect_status 2 on_node "$BIN/streamcard" run "$WORK/off.yaml" --platform set --dry-run
expect_contains "$WORK/err" "--platform: \"set\" is not a mode (valid: read, apply)"

# A sweep over prefetch: each value's bundle sets its own before its run and restores it at
# its end, so the next value starts from the originals.
small_card "$WORK/sweep.yaml" "[off, on]"
echo run >"$WORK/kernels/mode"
expect_status 0 kernel_run "$WORK/sweep.yaml" --platform apply --output "$WORK/sweep" --quiet
[ "$(grep -c "streamcard: platform restored" "$WORK/err")" = 2 ] || fail "a sweep of 2 values restored $(grep -c "platform restored" "$WORK/err") times"
[ "$(cat "$WORK/kernels/seen")" = 0 ] || fail "the sweep's last value (on) ran with register $(cat "$WORK/kernels/seen")"
expect_contains "$(grep -l "REQUESTED_PREFETCH=off" "$WORK"/sweep/*/prefetch/state/applied.env)" "RESTORED=1"
expect_original "after a sweep"

# A sweep of several runs per value: the values take turns, so their changes would overlap.
small_card "$WORK/sweep3.yaml" "[off, on]" "  runs: 3"
expect_status 2 on_node "$BIN/streamcard" run "$WORK/sweep3.yaml" --platform apply --dry-run
expect_contains "$WORK/err" "--platform apply: the values of a series with runs: other than 1 take turns run by run"

# A journal left by a run whose process and guardian are both gone (the holder pid is
# dead): the next --platform apply restores it first, then makes its own change.
printf 'version=1\njob=0\nprefetch=off\ngovernor=unchanged\ncpus=1\narch=intel-core\nmsr=1 0x1a4 0xf 0x0\nholder=999999 1\nend=1\n' >"$STATE/job_0.journal"
msr 1 15
echo run >"$WORK/kernels/mode"
expect_status 0 kernel_run "$WORK/off.yaml" --platform apply --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/prefetch/control.log" "job 0: its earlier change has no live holder: restoring it first"
expect_contains "$B/prefetch/state/msr_readback_original.txt" "cpu=1 reg=0x1a4 value=0x0000000000000000 state=on"
expect_original "after a stale journal"
echo "PASS"
