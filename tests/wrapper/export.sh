#!/usr/bin/env bash
# streamcard export --prometheus: the output parses as Prometheus text format (with the
# prometheus_client parser), carries verdicts, gates, rates and timestamps labelled by
# host/workload/kernel/card/run, escapes label values, never exports a failed run's rates,
# and -o replaces the file atomically. Skipped (77) without python3-prometheus-client.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"

PY=$(python_with prometheus_client)

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
# One failed run and a missing bundle: the others are still exported, exit 1.
expect_status 1 "$SC" export --prometheus "$base" "$WORK/nope"
expect_contains "$WORK/err" "nope: cannot open the bundle"
expect_contains "$WORK/out" "streamcard_metric{"
expect_status 2 "$SC" export "$base"
expect_contains "$WORK/err" "needs --prometheus"
# -o: written whole, no temporary file left behind.
expect_status 3 "$SC" export --prometheus -o "$WORK/textfile/streamcard.prom" "$base"
expect_contains "$WORK/err" "streamcard.prom.tmp: No such file or directory (valid: a writable directory)"
mkdir -p "$WORK/textfile"
expect_status 0 "$SC" export --prometheus -o "$WORK/textfile/streamcard.prom" "$base"
[ -s "$WORK/textfile/streamcard.prom" ] || fail "-o wrote nothing"
[ ! -e "$WORK/textfile/streamcard.prom.tmp" ] || fail "temporary file left behind"

if [ -z "$PY" ]; then
    echo "skip: no prometheus_client (Debian package python3-prometheus-client) to parse it"
    exit 77
fi
"$PY" - "$WORK/metrics.prom" "$base" "$failed" <<'PY'
import json, os, pwd, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
base, failed = (os.path.basename(p) for p in sys.argv[2:4])
fams = {f.name: f for f in text_string_to_metric_families(text)}
for name in ("streamcard_verdict_ok", "streamcard_bundle_intact", "streamcard_gate_ok",
             "streamcard_metric", "streamcard_run_timestamp_seconds"):
    assert name in fams and fams[name].type == "gauge" and fams[name].documentation, name
def samples(name, run):
    return [s for s in fams[name].samples if s.labels["run"] == run]
def one(name, run, **labels):
    got = [s.value for s in samples(name, run) if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(got) == 1, (name, run, labels, got)
    return got[0]
for s in fams["streamcard_verdict_ok"].samples:
    assert set(s.labels) == {"host", "owner", "workload", "kernel", "card", "run"}, s.labels
    # owner: who owns the bundle directory, whatever the bundle says
    assert s.labels["owner"] == pwd.getpwuid(os.stat(sys.argv[2]).st_uid).pw_name, s.labels
    assert s.labels["workload"] == "stream" and s.labels["kernel"] == "copy", s.labels
assert one("streamcard_verdict_ok", base) == 1
assert one("streamcard_verdict_ok", failed) == 0
assert one("streamcard_bundle_intact", failed) == 1
assert one("streamcard_gate_ok", base, gate="binding") == 1
assert one("streamcard_gate_ok", failed, gate="validation") == 0
rate = json.load(open(sys.argv[2] + "/results.json"))["metrics"]["best_rate_MBps"]
assert abs(one("streamcard_metric", base, metric="copy", unit="MB/s", better="higher") - rate) < 1e-3 * rate
assert len(samples("streamcard_metric", base)) == 1, samples("streamcard_metric", base)
assert not samples("streamcard_metric", failed), "a failed run's rate was exported"
assert one("streamcard_run_timestamp_seconds", base) > 1.5e9
odd = [s for s in fams["streamcard_verdict_ok"].samples if s.labels["run"] == "odd"]
assert odd and odd[0].labels["host"] == 'n"0\\\\1\\x1bx', odd
assert "streamcard_transport_info" not in fams  # STREAM has no transport
print("parsed %d families" % len(fams))
PY
echo "ok: export"
