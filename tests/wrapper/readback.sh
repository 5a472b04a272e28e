#!/usr/bin/env bash
# The platform read back by `streamcard run` as root outside a job (doc/contracts/platform.md,
# "Read by the CLI as root"): in a mount namespace of the test's own, a sysroot whose sys
# is this machine's sysfs, whose proc is this machine's /proc with a cpuinfo naming a
# Skylake-X (a class of section 14 on any machine), and whose dev/cpu/N/msr are regular files
# the test seeds (the platform layer reads them as the msr driver's devices). A card's
# prefetch: off is then an expectation: held when the registers read off before and after,
# failed when they read on, and failed when they change during the run; nothing is written.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
sysroot_or_skip
sed -e 's/^vendor_id.*/vendor_id\t: GenuineIntel/' -e 's/^cpu family.*/cpu family\t: 6/' \
    -e 's/^model\t.*/model\t\t: 85/' /proc/cpuinfo >"$WORK/cpuinfo"
export HOME=$WORK/home XDG_CACHE_HOME=

# on_node CMD...: CMD with STREAMCARD_SYSROOT=$ROOT in a new mount namespace.
on_node() { in_sysroot "$ROOT" "$WORK/cpuinfo" "$@"; }
small_card "$WORK/off.yaml" off
small_card "$WORK/unchanged.yaml" ""
msr 0 15
msr 1 15
sum_before=$(cat "$ROOT"/dev/cpu/*/msr | sha256sum)

# The plan says what root does: read, not set.
expect_status 0 on_node "$BIN/streamcard" run "$WORK/off.yaml" --dry-run
expect_contains "$WORK/out" "prefetch:    off (expected, not set: read back by the CLI as root"

# Off before and after: the gate holds, on the readback, said not attested; verify agrees.
expect_status 0 on_node "$BIN/streamcard" run "$WORK/off.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$WORK/err" "platform_state  ok   read back: prefetch off, governor unchanged; read by the CLI as root before and after the workload, not attested"
for f in msr_readback_before msr_readback_after; do
    expect_contains "$B/prefetch/state/$f.txt" "# read by the CLI as root"
    expect_contains "$B/prefetch/state/$f.txt" "cpu=0 reg=0x1a4 value=0x000000000000000f state=off"
    expect_contains "$B/prefetch/state/$f.txt" "cpu=1 reg=0x1a4 value=0x000000000000000f state=off"
done
expect_contains "$B/prefetch/state/state.env" "SOURCE=cli-root"
expect_contains "$B/prefetch/state/state.env" "OBSERVED_STATE=off"
expect_contains "$B/run.conf" "platform_state_ok=1"
[ "$(cat "$ROOT"/dev/cpu/*/msr | sha256sum)" = "$sum_before" ] || fail "a register was written"
expect_status 0 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/out" "platform read by the CLI as root before and after the workload, not attested"

# A state.env that says more than its readback files is a problem of the bundle.
FORGED=$WORK/forged
cp -r "$B" "$FORGED"
sed -i 's/state=off/state=on/' "$FORGED/prefetch/state/msr_readback_before.txt"
reseal "$FORGED"
expect_status 1 "$BIN/streamcard" verify "$FORGED"
expect_contains "$WORK/err" "prefetch/state/state.env: OBSERVED_STATE=off, but the readback before the workload shows on"

# Without root's readback (the files removed), the card's expectation has no evidence.
rm -r "$FORGED/prefetch"
reseal "$FORGED"
expect_status 1 "$BIN/streamcard" verify "$FORGED"
expect_contains "$WORK/err" "platform_state"

# On where the card expects off: the run fails the gate, naming what was read.
msr 1 0
expect_status 1 on_node "$BIN/streamcard" run "$WORK/off.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "prefetch: card off, read back mixed (STATE_VALID=1)"
B=$(bundle_of "$WORK/out")
expect_contains "$B/prefetch/state/msr_readback_after.txt" "cpu=1 reg=0x1a4 value=0x0000000000000000 state=on"

# Changed during the run: off before the workload, on after it. The workload is a script
# that starts the real one and, from its second run on, first turns the registers on (the
# read before was at the first run's start, the read after comes after the last run).
msr 1 15
mkdir -p "$WORK/kernels"
cat >"$WORK/kernels/streamcard-stream" <<SCRIPT
#!/bin/sh
if [ "\$1" != --build-info ] && [ -e "$WORK/kernels/ran" ]; then
    for cpu in 0 1; do
        printf '\\0\\0\\0\\0\\0\\0\\0\\0' |
            dd of="$ROOT/dev/cpu/\$cpu/msr" bs=1 seek=420 conv=notrunc status=none
    done
fi
[ "\$1" = --build-info ] || touch "$WORK/kernels/ran"
exec "$BIN/streamcard-stream" "\$@"
SCRIPT
chmod +x "$WORK/kernels/streamcard-stream"
LONG=$WORK/long.yaml
small_card "$LONG" off "  runs: 2"
expect_status 1 on_node env STREAMCARD_KERNEL_DIR="$WORK/kernels" "$BIN/streamcard" run "$LONG" \
    --output "$WORK/changing" --quiet
expect_contains "$WORK/err" "platform_state  FAIL the platform changed during the run: prefetch off -> on"
B=$(bundle_of "$WORK/out")
expect_contains "$B/run-1/run.conf" "platform_state_ok=1"
expect_contains "$B/run.conf" "platform_state_ok=0"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "the platform changed during the run: prefetch off -> on"

# A card that leaves prefetch alone still gets the registers, and no gate from them.
expect_status 0 on_node "$BIN/streamcard" run "$WORK/unchanged.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/prefetch/state/msr_readback_before.txt" "cpu=0 reg=0x1a4 value=0x0000000000000000 state=on"
expect_contains "$B/run.conf" "platform_state_ok=NA"
expect_status 0 "$BIN/streamcard" verify "$B"

# numa_balancing edited in after.txt (and the bundle resealed): the platform changed during
# the run as the bundle tells it, and verify fails the gate the card did not even ask for.
grep -q '^kernel.numa_balancing=[0-9]' "$B/platform/before.txt" ||
    sed -i 's/^kernel.numa_balancing=.*/kernel.numa_balancing=0/' "$B/platform/before.txt"
sed -i 's/^kernel.numa_balancing=.*/kernel.numa_balancing=7/' "$B/platform/after.txt"
reseal "$B"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "gate platform_state disagrees with the raw files (the platform changed during the run: kernel.numa_balancing"
expect_contains "$WORK/err" "-> 7 (platform/before.txt, after.txt): the run measured neither state"

# No msr device: a card that expects prefetch is refused before anything runs.
rm -r "$ROOT/dev/cpu"
expect_status 2 on_node "$BIN/streamcard" run "$WORK/off.yaml" --dry-run
expect_contains "$WORK/err" "prefetch: off cannot be read back here, so it cannot be checked"
echo "PASS"
