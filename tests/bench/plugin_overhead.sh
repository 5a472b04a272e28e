#!/usr/bin/env bash
# plugin_overhead.sh: what the SPANK plugin costs a job step. `srun -n1 true` from
# submission to completion, as scuser on the local cluster: without the plugin, and with
# the plugin loaded and a trivial card (`srun --stream-card=trivial.yaml -n1 true`, which
# checks the card at submission, carries it, checks and binds in the task and writes the
# bundle's first files). The plugin cannot be loaded and unloaded without restarting the
# daemons, so the two are measured in alternating blocks (A B A B), median per side.
# A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/plugin_overhead.sh [--runs N (per block, default 20)] [--blocks B (2)]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=20 BLOCKS=2
while [ $# -gt 0 ]; do
    case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --blocks) BLOCKS=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "plugin_overhead: unknown option $1" >&2; exit 2 ;;
    esac
done
PLUGIN=$REPO/build/lib/spank_streamcard.so
[ -r "$PLUGIN" ] || { echo "plugin_overhead: build first ($PLUGIN)" >&2; exit 2; }
DIR=/tmp/streamcard-bench-cluster
UP=("$REPO/contrib/local-cluster/up" --dir "$DIR" --ctld-port 16837 --slurmd-port 16838)
WORK=$(mktemp -d /tmp/streamcard-bench.XXXXXX)
chown scuser:scuser "$WORK"
trap '"$REPO/contrib/local-cluster/down" --dir "$DIR" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
printf 'version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0\n  threads: 1\n' >"$WORK/trivial.yaml"
chown scuser:scuser "$WORK/trivial.yaml"

as_user() { "$REPO/contrib/local-cluster/as-user" --dir "$DIR" --chdir "$WORK" -- "$@"; }
# time_runs LABEL SRUN-ARGS...: RUNS timings (seconds) of one srun each, appended to $WORK/LABEL
time_runs() {
    local label=$1; shift
    for _ in $(seq 1 "$RUNS"); do
        local t0 t1
        t0=$(date +%s.%N)
        as_user srun -n1 "$@" true >/dev/null 2>&1 || echo "plugin_overhead: srun failed" >&2
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc >>"$WORK/$label"
    done
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for b in $(seq 1 "$BLOCKS"); do
    export "$("${UP[@]}" --plugin none 2>/dev/null | tail -n 1)"
    as_user srun -n1 true >/dev/null 2>&1 || true # warm-up after the restart
    time_runs without -c1
    export "$("${UP[@]}" --plugin "$PLUGIN" --cli-filter no 2>/dev/null | tail -n 1)"
    as_user srun -n1 --stream-card=trivial.yaml true >/dev/null 2>&1 || true
    time_runs with -c1 --stream-card=trivial.yaml
    time_runs loaded -c1
    echo "block $b: without $(median "$WORK/without") s, with $(median "$WORK/with") s," \
         "plugin loaded but no card $(median "$WORK/loaded") s (medians so far)"
done
mw=$(median "$WORK/without"); mp=$(median "$WORK/with")
echo "srun -n1 true, median of $((RUNS * BLOCKS)) each: without plugin $mw s, with plugin + trivial card $mp s"
echo "ratio with/without: $(echo "scale=3; $mp / $mw" | bc) (target <= 1.10)"
