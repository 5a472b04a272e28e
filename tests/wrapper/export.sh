#!/usr/bin/env bash
# streamcard export --prometheus: the output parses as Prometheus text format (with the
# prometheus_client parser) and passes `promtool check metrics`; it carries verdicts,
# gates, figures in base units and the bundle's end and age, labelled by host, owner,
# workload, kernel, card and card hash and by nothing that changes from run to run; it
# escapes label values, never exports a failed run's figures, and -o replaces the file
# atomically. Twenty real runs of two cards in one folder give one series per (host,
# card, metric): the newest bundle of each card, so a card that passes again stops showing
# its old failure and a new failure shows at once. The names renamed in this version are
# gone and doc/admin.md and the man page list each old name with its new one. Skipped (77)
# without python3-prometheus-client; the promtool part is left out without promtool.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"

PY=$(python_with prometheus_client)
# lint FILE: promtool (Debian package prometheus) finds nothing to say about FILE.
lint() {
    if command -v promtool >/dev/null; then
        promtool check metrics <"$1" >"$WORK/lint" 2>&1 || fail "promtool: $(cat "$WORK/lint")"
        [ ! -s "$WORK/lint" ] || fail "promtool complains: $(cat "$WORK/lint")"
    fi
}

base=$(small_run base)
failed=$(small_run failed STREAMCARD_FAULT=corrupt)
# A host name with the characters the format escapes (\ ") and an ESC, in run.conf and
# results.json alike (verify refuses a host they disagree on): the label is the escaped
# text (sc_text_escape: \\ and \x1b), then the format's escapes.
odd=$(copy_bundle "$base" odd)
python3 - "$odd" <<'PY'
import json, sys
host = 'n"0\\1\x1bx'
r = json.load(open(sys.argv[1] + "/results.json")); r["host"] = host
json.dump(r, open(sys.argv[1] + "/results.json", "w"))
conf = open(sys.argv[1] + "/run.conf").read().replace("\nhost=", "\nhost=" + host + "\nold_host=")
open(sys.argv[1] + "/run.conf", "w").write(conf)
PY
reseal "$odd"
"$SC" verify "$odd" >/dev/null || fail "the renamed-host bundle does not verify"

expect_status 0 "$SC" export --prometheus "$base" "$failed" "$odd"
cp "$WORK/out" "$WORK/metrics.prom"
expect_contains "$WORK/metrics.prom" '# TYPE streamcard_verdict_ok gauge'
expect_contains "$WORK/metrics.prom" 'host="n\"0\\\\1\\x1bx"'
lint "$WORK/metrics.prom"
# One failed run and a missing bundle: the others are still exported, exit 1.
expect_status 1 "$SC" export --prometheus "$base" "$WORK/nope"
expect_contains "$WORK/err" "nope: cannot open the bundle"
expect_contains "$WORK/out" "streamcard_metric_bytes_per_second{"
expect_status 2 "$SC" export "$base"
expect_contains "$WORK/err" "needs --prometheus"
# -o: written whole, no temporary file left behind.
expect_status 3 "$SC" export --prometheus -o "$WORK/textfile/streamcard.prom" "$base"
expect_contains "$WORK/err" "cannot make a temporary file in $WORK/textfile: No such file or directory (valid: a writable directory)"
mkdir -p "$WORK/textfile"
expect_status 0 "$SC" export --prometheus -o "$WORK/textfile/streamcard.prom" "$base"
[ -s "$WORK/textfile/streamcard.prom" ] || fail "-o wrote nothing"
[ "$(ls -A "$WORK/textfile")" = streamcard.prom ] || fail "temporary file left behind"

# Every unit of the metric registry (export --help prints it) has a Prometheus family
# (cmd_export.c's sc__units): a metric of a new unit cannot go unexported unnoticed.
"$SC" export --help >"$WORK/help"
sed -n '/^metrics (name, unit/,/^$/p' "$WORK/help" | awk 'NR > 1 && NF { print $2 }' | sort -u >"$WORK/units"
[ -s "$WORK/units" ] || fail "export --help lists no metric"
while read -r unit; do
    # card's: an exec card's own metrics (streamcard_metric_value, or their unit's family)
    case $unit in MB/s | queries/s | s | us | "card's") ;; *) fail "unit $unit has no Prometheus family" ;; esac
done <"$WORK/units"

# Renamed in this version: the old names are gone from the output, and doc/admin.md and the
# man page list each with its new name on one line (the "renamed" table).
renamed=(
    "streamcard_best_rate_mbps|streamcard_metric_bytes_per_second"
    "streamcard_metric{unit=\"MB/s\"}|streamcard_metric_bytes_per_second"
    "streamcard_metric{unit=\"queries/s\"}|streamcard_metric_queries_per_second"
    "streamcard_metric{unit=\"s\"}|streamcard_metric_seconds"
    "streamcard_metric{unit=\"us\"}|streamcard_metric_seconds"
    "streamcard_metric_ci95_low|streamcard_metric_ci95_low_<unit>"
    "streamcard_metric_ci95_high|streamcard_metric_ci95_high_<unit>"
    "streamcard_interference_max_pct|streamcard_interference_max_ratio"
    "streamcard_run_timestamp_seconds|streamcard_bundle_end_timestamp_seconds"
    "run=|streamcard_bundle_age_seconds"
)
man -l "$SRC/contrib/man/streamcard.1" 2>/dev/null | col -b >"$WORK/man.txt" || fail "man"
for pair in "${renamed[@]}"; do
    old=${pair%%|*} new=${pair#*|}
    for doc in "$SRC/doc/admin.md" "$WORK/man.txt"; do
        grep -F -- "$old" "$doc" | grep -F -- "$new" >/dev/null ||
            fail "$(basename "$doc"): no line renames $old to $new"
    done
    fam=${old%%\{*}
    if grep -Eq "^${fam}[{ ]" "$WORK/metrics.prom"; then fail "the old name $fam is still exported"; fi
done
expect_not_contains "$WORK/metrics.prom" ',run="'
expect_not_contains "$WORK/metrics.prom" ',unit="'

# Twenty runs of two cards on this host in one folder (real small runs, runs: 1): card A
# fails its first run and passes the nine after it, card B passes ten.
write_card "$WORK/a.yaml" unchanged
sed 's/kernel: copy/kernel: triad/' "$WORK/a.yaml" >"$WORK/b.yaml"
# series_run CARD NAME [ENV=VALUE...]: a run into $WORK/series; prints its bundle.
series_run() {
    local card=$1 name=$2
    shift 2
    env STREAMCARD_KERNEL_DIR="$KERNEL_DIR" "$@" "$SC" run "$card" --run-name "$name" \
        --output "$WORK/series" --quiet >"$WORK/run.out" 2>"$WORK/run.err" || true
    bundle_of "$WORK/run.out"
}
series_run "$WORK/a.yaml" cardA STREAMCARD_FAULT=corrupt >/dev/null
sleep 1 # the failure ends a second before the runs that follow it
for i in $(seq 9); do
    lastA=$(series_run "$WORK/a.yaml" cardA)
    lastB=$(series_run "$WORK/b.yaml" cardB)
done
lastB=$(series_run "$WORK/b.yaml" cardB)
[ "$(find "$WORK/series" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 20 ] || fail "not 20 bundles"
t0=$(date +%s)
expect_status 0 "$SC" export --prometheus "$WORK/series"/*
t1=$(date +%s)
cp "$WORK/out" "$WORK/series.prom"
lint "$WORK/series.prom"
printf '%s\n' "$WORK/series"/* >"$WORK/series.list"
# The same as an export of the newest bundle of each card alone (ages aside).
expect_status 0 "$SC" export --prometheus "$lastA" "$lastB"
diff <(grep -v '^streamcard_bundle_age_seconds{' "$WORK/series.prom") \
    <(grep -v '^streamcard_bundle_age_seconds{' "$WORK/out") ||
    fail "the export of 20 runs is not that of the newest bundle of each card"
# A new failure of card B shows at once, with no figures of B (a failed run's are not used).
sleep 1
series_run "$WORK/b.yaml" cardB STREAMCARD_FAULT=corrupt >/dev/null
expect_status 0 "$SC" export --prometheus "$WORK/series"/*
cp "$WORK/out" "$WORK/series21.prom"
lint "$WORK/series21.prom"

if [ -z "$PY" ]; then
    echo "skip: no prometheus_client (Debian package python3-prometheus-client) to parse it"
    exit 77
fi
"$PY" - "$WORK/metrics.prom" "$base" "$failed" <<'PY'
import json, os, pwd, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
fams = {f.name: f for f in text_string_to_metric_families(text)}
for name in ("streamcard_verdict_ok", "streamcard_bundle_intact", "streamcard_gate_ok",
             "streamcard_metric_bytes_per_second", "streamcard_bundle_end_timestamp_seconds",
             "streamcard_bundle_age_seconds"):
    assert name in fams and fams[name].type == "gauge" and fams[name].documentation, name
host = json.load(open(sys.argv[2] + "/results.json"))["host"]  # the odd copy's is another
def samples(name, card):
    return [s for s in fams[name].samples if s.labels["card"] == card and s.labels["host"] == host]
def one(name, card, **labels):
    got = [s.value for s in samples(name, card) if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(got) == 1, (name, card, labels, got)
    return got[0]
for s in fams["streamcard_verdict_ok"].samples:
    assert set(s.labels) == {"host", "host_attested", "owner", "workload", "kernel", "card", "card_hash"}, s.labels
    # owner: who owns the bundle directory, whatever the bundle says
    assert s.labels["owner"] == pwd.getpwuid(os.stat(sys.argv[2]).st_uid).pw_name, s.labels
    assert s.labels["workload"] == "stream" and s.labels["kernel"] == "copy", s.labels
    assert s.labels["host_attested"] == "0", s.labels  # runs outside the plugin: claimed
    assert len(s.labels["card_hash"]) == 12 and int(s.labels["card_hash"], 16) >= 0, s.labels
assert one("streamcard_verdict_ok", "base") == 1
assert one("streamcard_verdict_ok", "failed") == 0
assert one("streamcard_bundle_intact", "failed") == 1
assert one("streamcard_gate_ok", "base", gate="binding") == 1
assert one("streamcard_gate_ok", "failed", gate="validation") == 0
# MB/s (10^6 bytes) in bytes per second
rate = json.load(open(sys.argv[2] + "/results.json"))["metrics"]["best_rate_MBps"]
got = one("streamcard_metric_bytes_per_second", "base", metric="copy", better="higher")
assert abs(got - rate * 1e6) < 1e-3 * rate * 1e6, (got, rate)
assert len(samples("streamcard_metric_bytes_per_second", "base")) == 1
assert not samples("streamcard_metric_bytes_per_second", "failed"), "a failed run's rate was exported"
assert one("streamcard_bundle_end_timestamp_seconds", "base") > 1.5e9
odd = [s for s in fams["streamcard_verdict_ok"].samples if s.labels["host"] != host]
assert odd and odd[0].labels["host"] == 'n"0\\\\1\\x1bx', odd
assert "streamcard_transport_info" not in fams  # STREAM has no transport
print("parsed %d families" % len(fams))
PY

"$PY" - "$WORK/series.prom" "$WORK/series21.prom" "$WORK/series.list" "$t0" "$t1" <<'PY'
import calendar, collections, hashlib, json, sys, time
from prometheus_client.parser import text_string_to_metric_families
def load(path):
    return {f.name: f for f in text_string_to_metric_families(open(path).read())}
fams, fams21 = load(sys.argv[1]), load(sys.argv[2])
bundles, t0, t1 = open(sys.argv[3]).read().split(), int(sys.argv[4]), int(sys.argv[5])
assert len(bundles) == 20, bundles
hosts = set()
for f in fams.values():
    seen = collections.Counter(tuple(sorted(s.labels.items())) for s in f.samples)
    dup = [k for k, n in seen.items() if n > 1]
    assert not dup, (f.name, dup)  # one series per label set: nothing piles up
    assert {s.labels["card"] for s in f.samples} == {"cardA", "cardB"}, f.name
    hosts |= {s.labels["host"] for s in f.samples}
assert len(hosts) == 1, hosts
# one series per (host, card, metric): each card's metric once, in every metric family
for name in ("streamcard_metric_bytes_per_second", "streamcard_metric_runs"):
    got = sorted((s.labels["card"], s.labels["metric"]) for s in fams[name].samples)
    assert got == [("cardA", "copy"), ("cardB", "triad")], (name, got)
for name in ("streamcard_verdict_ok", "streamcard_bundle_intact",
             "streamcard_bundle_end_timestamp_seconds", "streamcard_bundle_age_seconds"):
    assert len(fams[name].samples) == 2, (name, fams[name].samples)
assert len(fams["streamcard_gate_ok"].samples) == 2 * len({s.labels["gate"] for s in fams["streamcard_gate_ok"].samples})
# Card A recovered: its first run failed, its newest passes.
by = lambda f, name, card: [s for s in f[name].samples if s.labels["card"] == card]
assert [s.value for s in by(fams, "streamcard_verdict_ok", "cardA")] == [1]
assert [s.value for s in by(fams, "streamcard_verdict_ok", "cardB")] == [1]
# The end is the newest bundle's; the age is counted from it to the export.
ends = collections.defaultdict(list)
hashes = collections.defaultdict(set)
for d in bundles:
    r = json.load(open(d + "/results.json"))
    card = "cardA" if "cardA" in d else "cardB"
    hashes[card].add(hashlib.sha256(open(d + "/card.yaml", "rb").read()).hexdigest()[:12])
    ends[card].append(r["ended_at"])
for card in ("cardA", "cardB"):
    (end,) = by(fams, "streamcard_bundle_end_timestamp_seconds", card)
    newest = max(calendar.timegm(time.strptime(e, "%Y-%m-%dT%H:%M:%SZ")) for e in ends[card])
    assert end.value == newest, (card, end.value, newest)
    (age,) = by(fams, "streamcard_bundle_age_seconds", card)
    assert t0 <= end.value + age.value <= t1 + 1, (card, end.value, age.value, t0, t1)
    assert {end.labels["card_hash"]} == hashes[card], (card, end.labels, hashes[card])
# After a 21st run that fails, B shows 0 at once, and none of B's figures.
assert [s.value for s in by(fams21, "streamcard_verdict_ok", "cardB")] == [0]
assert [s.value for s in by(fams21, "streamcard_verdict_ok", "cardA")] == [1]
assert not by(fams21, "streamcard_metric_bytes_per_second", "cardB")
assert len(fams21["streamcard_verdict_ok"].samples) == 2
print("20 runs of 2 cards: %d series" % sum(len(f.samples) for f in fams.values()))
PY
# A card edited after its old version failed: the old version's series (its verdict 0, which
# an alert fires on) retires, the edited card's (another card_hash) stands alone.
sleep 1
series_run "$WORK/a.yaml" cardA STREAMCARD_FAULT=corrupt >/dev/null
sleep 1
sed 's/iterations: 3/iterations: 4/' "$WORK/a.yaml" >"$WORK/a2.yaml"
editedA=$(series_run "$WORK/a2.yaml" cardA)
newhash=$(sha256sum "$editedA/card.yaml" | cut -c1-12)
expect_status 0 "$SC" export --prometheus "$WORK/series"/*
grep '^streamcard_verdict_ok{.*card="cardA"' "$WORK/out" >"$WORK/cardA.prom"
expect_line_count "$WORK/cardA.prom" 1
expect_contains "$WORK/cardA.prom" "card=\"cardA\",card_hash=\"$newhash\"} 1"
echo "ok: export"
