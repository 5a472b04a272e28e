# shellcheck shell=bash
# analysis_lib.sh: bundles for the tests of compare, classify, report and export. Source it
# after tests/lib.sh. Every bundle is a real small run; "crafted" ones are real runs edited
# and then re-sealed, the way a careful forger would, so only what the raw files show is
# tested.

KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}
[ -x "$KERNEL_DIR/streamcard-stream" ] || fail "no kernel at $KERNEL_DIR/streamcard-stream"

# write_card FILE PREFETCH: the small card every test bundle comes from. It opens the
# interference gate (max_interference_pct: 100): these tests run beside others under
# ctest -j, and tests/wrapper/interference.sh tests the gate.
write_card() {
    cat >"$1" <<CARD
version: 1
experiment:
  question: "analysis tests: does the comparison hold?"
  workload: stream
  kernel: copy
  cpu_list: 0-1
  threads: 2
  prefetch: $2
  array_size: 100000
  iterations: 3
  expect:
    max_interference_pct: 100
CARD
}
write_card "$WORK/card.yaml" unchanged

# small_run NAME [ENV=VALUE...] -- [FLAGS...]: a fresh run of the card; prints its bundle.
small_run() {
    local name=$1 envs=() flags=()
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    flags=("$@")
    env STREAMCARD_KERNEL_DIR="$KERNEL_DIR" "${envs[@]}" "$BIN/streamcard" run "$WORK/card.yaml" \
        --run-name "$name" --output "$WORK/runs" --quiet "${flags[@]}" \
        >"$WORK/run.out" 2>"$WORK/run.err" || true
    bundle_of "$WORK/run.out"
}

# plugin_run NAME OBSERVED [ENV=VALUE...]: a run inside a --stream-card job whose plugin read
# back prefetch OBSERVED (the plugin's part played by the test, as in adopt.sh).
plugin_run() {
    local name=$1 observed=$2 d="$WORK/jobs/$1"
    shift 2
    mkdir -p "$d/prefetch/state" "$d/platform"
    write_card "$d/card.yaml" off
    sed -i "s/^  question:.*/&\n  run_name: $name/" "$d/card.yaml"
    printf 'REQUESTED_PREFETCH=off\nOBSERVED_STATE=%s\nSTATE_VALID=1\n' "$observed" \
        >"$d/prefetch/state/state.env"
    echo "plugin: wrote MSR" >"$d/prefetch/control.log"
    env STREAMCARD_KERNEL_DIR="$KERNEL_DIR" "$@" STREAMCARD_BUNDLE="$d" \
        STREAMCARD_CARD="$d/card.yaml" \
        STREAMCARD_CARD_SHA256="$(sha256sum <"$d/card.yaml" | cut -d' ' -f1)" \
        "$BIN/streamcard" run --quiet >"$WORK/run.out" 2>"$WORK/run.err" || true
    bundle_of "$WORK/run.out"
}

# other_kernel: a kernel directory whose binary differs from the build's by one byte.
other_kernel() {
    mkdir -p "$WORK/k2"
    cp "$KERNEL_DIR/streamcard-stream" "$WORK/k2/"
    printf '\0' >>"$WORK/k2/streamcard-stream"
    echo "$WORK/k2"
}

# copy_bundle SRC NAME: a copy of a bundle (hashes still hold); prints its path.
copy_bundle() {
    cp -r "$1" "$WORK/runs/$2"
    echo "$WORK/runs/$2"
}

# scale_rate BUNDLE FACTORS [FUNCTION]: every record of a STREAM function's rate (default
# copy) multiplied, consistently (each run's log table, results.json, run.conf's best rate),
# the statistics over the runs recomputed (restat: what verify recomputes), then re-sealed:
# verify cannot tell. FACTORS: one factor for every run, or a comma list, run i taking the
# i-th (cycling). set_rate BUNDLE RATES [FUNCTION] sets the rates themselves (MB/s), so a
# test knows the answer whatever this machine's noise made of the real runs.
set_rate() { sc__rates set "$@"; }
scale_rate() { sc__rates scale "$@"; }
sc__rates() {
    python3 - "$1" "$2" "$3" "${4:-copy}" <<'PY'
import json, re, sys
mode, b, factors, fn = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split(",")], sys.argv[4]
r = json.load(open(b + "/results.json"))
for i, run in enumerate(r["runs"]):
    d = b + "/" + run["dir"] if run["dir"] else b
    f = factors[i % len(factors)]
    log = open(d + "/stream.log").read()
    def row(m):
        return "%s%.1f" % (m.group(1), float(m.group(2)) * f if mode == "scale" else f)
    log = re.sub(r"(?m)^(%s:\s+)([0-9.]+)" % fn.capitalize(), row, log)
    open(d + "/stream.log", "w").write(log)
    rate = float(re.search(r"(?m)^%s:\s+([0-9.]+)" % fn.capitalize(), log).group(1))
    for m in [run["metrics"]] + ([r["metrics"]] if "metrics" in r else []):
        m["rates"][fn] = rate
        best = max(m["rates"].values())
        if "best_rate_MBps" in m:
            m["best_rate_MBps"] = best
    conf = re.sub(r"(?m)^best_rate_MBps=.*$", "best_rate_MBps=%.1f" % best,
                  open(d + "/run.conf").read())
    open(d + "/run.conf", "w").write(conf)
json.dump(r, open(b + "/results.json", "w"), indent=2)
PY
    "$BIN/restat" "$2" || fail "restat $2"
    reseal "$2"
}
