#!/usr/bin/env bash
# STREAM's caches without loading hwloc's topology at every run (wrapper/cacheprobe.c): the
# first run of a cpu_list loads it and remembers hwloc's report of the last-level caches in
# the user's answer cache, for this boot and the CPUs the process may use; the next run of
# the same cpu_list takes it from there (the phase trace says hwloc-remembered, not
# hwloc-topology) and writes the same platform/caches.txt. Another cpu_list, another
# affinity, or an HWLOC_ variable in the environment (which changes what hwloc reports) load
# the topology; what an HWLOC_SYNTHETIC run saw is not remembered.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
export XDG_CACHE_HOME=$WORK/cache
card() { # card NAME CPU_LIST THREADS
    cat >"$WORK/$1" <<CARD
version: 1
experiment:
  workload: stream
  kernel: copy
  cpu_list: "$2"
  threads: $3
  memory_node: 0
  array_size: 2000000
  iterations: 5
  cache_resident: accept
  expect:
    max_interference_pct: 100
CARD
}
card two.yaml 0-1 2
card one.yaml 0 1
# run NAME CARD [PREFIX...]: a run traced into $WORK/NAME.trace; its bundle's caches.txt
# copied to $WORK/NAME.caches.
run() {
    local name=$1 yaml=$2
    shift 2
    rm -f "$WORK/$name.trace"
    STREAMCARD_TIMINGS=$WORK/$name.trace expect_status 0 "$@" "$BIN/streamcard" run \
        "$WORK/$yaml" --output "$WORK/runs" --quiet
    cp "$(bundle_of "$WORK/out")/platform/caches.txt" "$WORK/$name.caches"
}
# loaded NAME / remembered NAME: which way the run got its caches.
loaded() {
    grep -q ' hwloc-topology ' "$WORK/$1.trace" && ! grep -q ' hwloc-remembered ' "$WORK/$1.trace" ||
        fail "$1: the topology was not loaded: $(grep -o 'hwloc-[a-z]*' "$WORK/$1.trace")"
}
remembered() {
    grep -q ' hwloc-remembered ' "$WORK/$1.trace" && ! grep -q ' hwloc-topology ' "$WORK/$1.trace" ||
        fail "$1: the caches were not taken from the answer cache: $(grep -o 'hwloc-[a-z]*' "$WORK/$1.trace")"
}

run first two.yaml
loaded first
expect_contains "$WORK/first.caches" "llc_level="
run second two.yaml
remembered second
cmp "$WORK/first.caches" "$WORK/second.caches" ||
    fail "the remembered report differs from the loaded one: $(diff "$WORK/first.caches" "$WORK/second.caches")"
# Another cpu_list: its own entry.
run other one.yaml
loaded other
# The same cpu_list under another affinity (hwloc counts only the allowed cores).
run pinned one.yaml taskset -c 0
loaded pinned
# hwloc told to report another machine: loaded, and not remembered for later runs.
run synthetic two.yaml env "HWLOC_SYNTHETIC=pack:1 l3:1 core:2 pu:1"
loaded synthetic
run after two.yaml
remembered after
cmp "$WORK/first.caches" "$WORK/after.caches" ||
    fail "the HWLOC_SYNTHETIC run's report was remembered: $(diff "$WORK/first.caches" "$WORK/after.caches")"
echo "ok: hwloc_remembered"
