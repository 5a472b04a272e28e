# shellcheck shell=bash
# analysis_lib.sh: bundles for the tests of compare, classify, report and export. Source it
# after tests/lib.sh. Every bundle is a real small run; "crafted" ones are real runs edited
# and then re-sealed, the way a careful forger would, so only what the raw files show is
# tested.

KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}
[ -x "$KERNEL_DIR/streamcard-stream" ] || fail "no kernel at $KERNEL_DIR/streamcard-stream"

# write_card FILE PREFETCH: the small card every test bundle comes from (tests/lib.sh).
write_card() {
    small_card "$1" "$2" '  question: "analysis tests: does the comparison hold?"'
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

# The analysis commands trust the test's node key (attest_as_plugin).
export STREAMCARD_KEYS="$WORK/trusted"

# attest_as_plugin DIR JOB [SUBJECT...]: signs DIR's readback (prefetch/state/state.env) as
# the plugin would, with a node key of the test's (made once, trusted through
# STREAMCARD_KEYS), into DIR/attest/apply_<host>.dsse.json.
attest_as_plugin() {
    local d=$1 job=$2 host
    shift 2
    host=$(hostname -s)
    if [ ! -e "$WORK/nodekey/node.key" ]; then
        "$BIN/streamcard" keygen --out "$WORK/nodekey" >/dev/null || fail "keygen"
        mkdir -p "$WORK/trusted" && cp "$WORK/nodekey/node.pub" "$WORK/trusted/$host.pub"
    fi
    mkdir -p "$d/attest"
    "$BIN/sc_test_sign" "$WORK/nodekey/node.key" "$d" "$job" "$(id -u)" "$host" main \
        "$d/prefetch/state/state.env" "$@" >"$d/attest/apply_$host.dsse.json" || fail "sign"
}

# plugin_run NAME OBSERVED [ENV=VALUE...]: a run inside a --stream-card job whose plugin read
# back prefetch OBSERVED (the plugin's part played by the test, as in adopt.sh).
plugin_run() {
    local name=$1 observed=$2 d="$WORK/jobs/$1"
    shift 2
    plugin_bundle "$d" off "$observed"
    write_card "$d/card.yaml" off
    sed -i "s/^  question:.*/&\n  run_name: $name/" "$d/card.yaml"
    attest_as_plugin "$d" 4242 prefetch/state/state.env
    in_job "$d" env STREAMCARD_KERNEL_DIR="$KERNEL_DIR" "$@" SLURM_JOB_ID=4242 \
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

# scale_rate BUNDLE FACTORS [FUNCTION]: a STREAM function (default copy) made FACTOR times
# as fast in every record of every run, raw ones included: each repetition's time divided by
# FACTOR (results.json's rep_seconds), the log's table row recomputed from them as STREAM does
# (its times, and MB/s from the card's array size and the function's bytes), results.json's
# rates and run.conf's best rate; the statistics over the runs recomputed (restat: what
# verify recomputes); then re-sealed. A forger who edits the raw times too is caught by
# nothing verify can recompute (only a signature would tell). FACTORS: one factor for every
# run, or a comma list, run i taking the i-th (cycling). set_rate BUNDLE RATES [FUNCTION]
# sets the rates themselves (MB/s), so a test knows the answer whatever this machine's noise
# made of the real runs.
set_rate() { sc__rates set "$@"; }
scale_rate() { sc__rates scale "$@"; }
sc__rates() {
    python3 - "$1" "$2" "$3" "${4:-copy}" <<'PY'
import json, re, sys
mode, b, factors, fn = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split(",")], sys.argv[4]
arrays = {"copy": 2, "scale": 2, "add": 3, "triad": 3}[fn]
n = int(re.search(r"(?m)^array_size=(\d+)$", open(b + "/run.conf").read()).group(1))
r = json.load(open(b + "/results.json"))
for i, run in enumerate(r["runs"]):
    d = b + "/" + run["dir"] if run["dir"] else b
    f = factors[i % len(factors)]
    if mode == "set":
        f = f / run["metrics"]["rates"][fn]
    reps = [t / f for t in run["metrics"]["rep_seconds"][fn]]
    timed = reps[1:]
    tmin, tmax, tavg = min(timed), max(timed), sum(timed) / len(timed)
    rate = 1e-6 * arrays * 8 * n / tmin
    for m in [run["metrics"]] + ([r["metrics"]] if "metrics" in r and not run["dir"] else []):
        m["rep_seconds"][fn] = reps
        m["rates"][fn] = rate
        if "times" in m and fn in m["times"]:
            m["times"][fn] = {"avg": tavg, "min": tmin, "max": tmax}
        best = max(m["rates"].values())
        if "best_rate_MBps" in m:
            m["best_rate_MBps"] = best
            m.update({"avg_time_s": tavg, "min_time_s": tmin, "max_time_s": tmax})
    log = open(d + "/stream.log").read()
    row = "%-11s%12.1f  %11.6f  %11.6f  %11.6f" % (fn.capitalize() + ":", rate, tavg, tmin, tmax)
    log = re.sub(r"(?m)^%s:.*$" % fn.capitalize(), row, log)
    open(d + "/stream.log", "w").write(log)
    conf = re.sub(r"(?m)^best_rate_MBps=.*$", "best_rate_MBps=%.1f" % best,
                  open(d + "/run.conf").read())
    open(d + "/run.conf", "w").write(conf)
json.dump(r, open(b + "/results.json", "w"), indent=2)
PY
    "$BIN/restat" "$2" || fail "restat $2"
    reseal "$2"
}
