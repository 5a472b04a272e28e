#!/usr/bin/env bash
# The measured cache rule, end to end (doc/contracts/gates.md, "The measured cache rule"):
# `streamcard run` with a sysroot whose /proc/cpuinfo names a hypervisor (in a mount
# namespace of the test's own: this machine's sysfs and /proc, the cpuinfo file replaced),
# so on any machine the report of the caches is not believed and the probe decides.
# array_size: auto takes the rule's size; the probe is remembered; caches.txt keeps the
# points, and an edge they do not give is refused by verify; a small array fails the gate
# against the measured edge.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
sysroot_or_skip
sed 's/^flags\(.*\)$/flags\1 hypervisor/' /proc/cpuinfo >"$WORK/cpuinfo"
export HOME=$WORK/home XDG_CACHE_HOME=

# on_vm CMD...: CMD on the machine of $ROOT, whose cpuinfo names a hypervisor (in_sysroot).
on_vm() { in_sysroot "$ROOT" "$WORK/cpuinfo" "$@"; }
card() { # card NAME ARRAY_SIZE
    { printf 'version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n  cpu_list: 0-1\n'
      printf '  threads: 2\n  array_size: %s\n  iterations: 3\n' "$2"
      # The interference gate opened: this test runs beside others under ctest -j.
      printf '  expect:\n    max_interference_pct: 100\n'; } >"$WORK/$1"
}
card auto.yaml auto
card small.yaml 100000

# A dry run measures nothing: the plan says the probe decides.
expect_status 0 on_vm "$BIN/streamcard" run "$WORK/auto.yaml" --dry-run
expect_contains "$WORK/out" "array_size auto (the cache probe decides when the run starts)"
expect_not_contains "$WORK/err" "measuring the last cache"

# The run: the probe measures, auto takes 4 x its edge, the gate holds against it.
expect_status 0 on_vm "$BIN/streamcard" run "$WORK/auto.yaml" --output "$WORK/runs" --quiet
cp "$WORK/err" "$WORK/first.err"
expect_contains "$WORK/err" "streamcard: measuring the last cache of cpus 0-1 with 2 threads"
expect_contains "$WORK/err" "is not believed: a hypervisor (cpuinfo's flags)"
n=$(sed -n 's/^streamcard: array_size: auto: \([0-9]*\) elements per array.*/\1/p' "$WORK/err")
[ -n "$n" ] || fail "auto said no size: $(cat "$WORK/err")"
B=$(bundle_of "$WORK/out")
expect_contains "$B/stream.log" "Array size = $n (elements)"
expect_contains "$B/platform/caches.txt" "llc_trusted=no"
expect_contains "$B/platform/caches.txt" "llc_untrusted=a hypervisor (cpuinfo's flags)"
edge=$(sed -n 's/^probe_edge_bytes=//p' "$B/platform/caches.txt")
[ -n "$edge" ] && [ "$edge" -gt 0 ] || fail "no edge measured: $(cat "$B/platform/caches.txt")"
# auto: 4 x the edge in 8-byte elements, rounded up to whole MiB (131072 elements).
want=$(( (4 * edge / 8 + 131071) / 131072 * 131072 ))
[ "$n" -eq "$want" ] || fail "auto chose $n elements, the rule gives $want (edge $edge)"
expect_contains "$B/results.json" "x the last cache's edge, measured at"
expect_contains "$B/card.yaml" "array_size: auto"
expect_status 0 "$BIN/streamcard" verify "$B"

# Remembered until the next boot: the second run measures nothing (unless the first probe
# was disturbed by the tests beside it, which it then said).
if ! grep -q "the cache probe was disturbed" "$WORK/first.err"; then
    expect_status 0 on_vm "$BIN/streamcard" run "$WORK/auto.yaml" --output "$WORK/runs" --quiet
    expect_not_contains "$WORK/err" "measuring the last cache"
    expect_contains "$WORK/err" "array_size: auto: $n elements per array"
fi

# An edge the points do not give (moved down to the smallest working set, re-sealed):
# verify refuses the gate's evidence.
F=$WORK/forged
cp -a "$B" "$F"
first=$(sed -n 's/^probe_points=\([0-9]*\):.*/\1/p' "$F/platform/caches.txt")
sed -i "s/^probe_edge_bytes=.*/probe_edge_bytes=$first/" "$F/platform/caches.txt"
reseal "$F"
expect_status 1 "$BIN/streamcard" verify "$F"
expect_contains "$WORK/err" "platform/caches.txt's probe does not hold together"

# A fixed small array: below 4 x the measured edge, the gate fails saying so.
expect_status 1 on_vm "$BIN/streamcard" run "$WORK/small.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "stream_array    FAIL each array 0.8 MiB is below 4 x the last cache's edge, measured at"
echo "ok: cache_probe"
