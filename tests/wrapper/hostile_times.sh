#!/usr/bin/env bash
# Hostile times and hosts. A run's started_at and ended_at (run.conf and results.json, each
# run's and the bundle's) are times as streamcard writes them, the end not before the start,
# neither more than 300 s ahead of the verifying clock; a bundle that says otherwise is
# refused, and export does not let its time count: it never becomes the newest bundle of its
# label set (which would shadow a newer failing one and keep the stale-run alert from
# firing), and no negative age is written. A host edited into an unsigned bundle (run.conf,
# results.json, interference.txt) is exported as claimed (host_attested="0"); an attested
# bundle's host is its signing key's node (host_attested="1"), and a host edited into it is
# refused.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"

# set_times BUNDLE START END: every record of a one-run bundle says it ran from START to END
# (run.conf, results.json's top level and its run), re-sealed.
set_times() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
b, start, end = sys.argv[1:]
conf = open(b + "/run.conf").read()
conf = re.sub(r"(?m)^started_at=.*$", "started_at=" + start, conf)
conf = re.sub(r"(?m)^ended_at=.*$", "ended_at=" + end, conf)
open(b + "/run.conf", "w").write(conf)
r = json.load(open(b + "/results.json"))
for o in [r] + r["runs"]:
    o["started_at"], o["ended_at"] = start, end
json.dump(r, open(b + "/results.json", "w"))
PY
    reseal "$1"
}
# set_host BUNDLE HOST: HOST named wherever the bundle names its host (run.conf,
# results.json, interference.txt); the caller re-seals.
set_host() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
b, host = sys.argv[1:]
conf = re.sub(r"(?m)^host=.*$", "host=" + host, open(b + "/run.conf").read())
open(b + "/run.conf", "w").write(conf)
r = json.load(open(b + "/results.json")); r["host"] = host
json.dump(r, open(b + "/results.json", "w"))
intf = re.sub(r"host=\S+", "host=" + host, open(b + "/interference.txt").read())
open(b + "/interference.txt", "w").write(intf)
PY
}
# label SAMPLE-LINE NAME: the value of label NAME.
label() { sed -n "s/.*[{,]$2=\"\\([^\"]*\\)\".*/\\1/p" <<<"$1"; }

base=$(small_run same)
now=$(date -u +%s)

# 1. From the future: refused, its time not exported, and it does not shadow a newer bundle.
future=$(copy_bundle "$base" future)
set_times "$future" "$(date -u -d @$((now - 10)) +%FT%TZ)" 2099-12-31T23:59:59Z
expect_status 1 "$SC" verify "$future"
expect_contains "$WORK/err" "run.conf: ended_at 2099-12-31T23:59:59Z is in the future of this clock (valid: at most 300 s ahead)"
# A little ahead of this clock (a node's clock 2 minutes fast) is a time a run can have.
ahead=$(copy_bundle "$base" ahead)
set_times "$ahead" "$(date -u -d @$((now + 60)) +%FT%TZ)" "$(date -u -d @$((now + 120)) +%FT%TZ)"
expect_status 0 "$SC" verify "$ahead"
expect_status 0 "$SC" export --prometheus "$ahead"
age=$(grep '^streamcard_bundle_age_seconds{' "$WORK/out" | awk '{print $2}')
[ "$age" = 0 ] || fail "an end ahead of the clock gave the age $age, not 0"
# A newer run of the same card that fails, after the forged one in every folder listing.
sleep 1
failing=$(small_run same STREAMCARD_FAULT=corrupt)
expect_status 0 "$SC" export --prometheus "$future" "$failing"
grep '^streamcard_verdict_ok{' "$WORK/out" >"$WORK/verdicts"
[ "$(wc -l <"$WORK/verdicts")" = 1 ] || fail "not one series: $(cat "$WORK/verdicts")"
expect_contains "$WORK/verdicts" "} 0"
end=$(grep '^streamcard_bundle_end_timestamp_seconds{' "$WORK/out" | awk '{print $2}')
want=$(date -u -d "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ended_at"])' "$failing/results.json")" +%s)
[ "$end" = "$want" ] || fail "the exported end $end is not the failing bundle's $want"
if grep -q '^streamcard_bundle_age_seconds{.* -' "$WORK/out"; then fail "a negative age"; fi
# The forged bundle alone: its verdict and that it is not intact, no time of it.
expect_status 0 "$SC" export --prometheus "$future"
expect_contains "$WORK/out" "streamcard_bundle_intact{"
expect_not_contains "$WORK/out" "streamcard_bundle_end_timestamp_seconds{"
expect_not_contains "$WORK/out" "streamcard_bundle_age_seconds{"

# 2. Ended before it started, and times that are no times.
inverted=$(copy_bundle "$base" inverted)
set_times "$inverted" 2026-01-02T10:00:00Z 2026-01-02T09:59:59Z
expect_status 1 "$SC" verify "$inverted"
expect_contains "$WORK/err" "run.conf: ended_at 2026-01-02T09:59:59Z is before started_at 2026-01-02T10:00:00Z"
for garbage in 2026-02-30T10:00:00Z 2026-01-02T25:00:00Z "yesterday" 2026-01-02T10:00:00 \
    "2026-01-02T10:00:00Z "; do
    b=$(copy_bundle "$base" "garbage_$(tr -c 'A-Za-z0-9' _ <<<"$garbage")")
    set_times "$b" "$garbage" 2026-01-02T10:00:01Z
    expect_status 1 "$SC" verify "$b"
    expect_contains "$WORK/err" "run.conf: started_at"
    expect_contains "$WORK/err" "is not a time (valid: YYYY-MM-DDTHH:MM:SSZ, UTC)"
done
# results.json and run.conf disagree.
b=$(copy_bundle "$base" disagree)
python3 - "$b/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["ended_at"] = "2026-01-02T10:00:00Z"
json.dump(r, open(sys.argv[1], "w"))
PY
reseal "$b"
expect_status 1 "$SC" verify "$b"
expect_contains "$WORK/err" "results.json: ended_at 2026-01-02T10:00:00Z, but run.conf says"
# Several runs: a run of the future in its own record.
two=$(small_run two -- --runs 2)
expect_status 0 "$SC" verify "$two"
sed -i 's/^ended_at=.*/ended_at=2099-12-31T23:59:59Z/' "$two/run-2/run.conf"
reseal "$two"
expect_status 1 "$SC" verify "$two"
expect_contains "$WORK/err" "run-2: run.conf: ended_at 2099-12-31T23:59:59Z is in the future"

# 3. Another host edited into an unsigned bundle everywhere it is named: it verifies (nothing
# signed says otherwise) and is exported as claimed.
n02=$(copy_bundle "$base" n02)
set_host "$n02" n02
reseal "$n02"
expect_status 0 "$SC" verify "$n02"
expect_status 0 "$SC" export --prometheus "$n02"
line=$(grep '^streamcard_verdict_ok{' "$WORK/out")
[ "$(label "$line" host)" = n02 ] || fail "host: $line"
[ "$(label "$line" host_attested)" = 0 ] || fail "an unsigned host not marked as claimed: $line"

# 4. A bundle whose main step root signed: its host is the signing key's node, attested; the
# same bundle with another host edited in is refused.
signed=$(plugin_run signed off)
expect_status 0 "$SC" verify "$signed"
expect_contains "$WORK/out" "platform attested by $(hostname -s) key"
expect_status 0 "$SC" export --prometheus "$signed"
line=$(grep '^streamcard_verdict_ok{' "$WORK/out")
[ "$(label "$line" host)" = "$(hostname -s)" ] || fail "host: $line"
[ "$(label "$line" host_attested)" = 1 ] || fail "a signed host not marked attested: $line"
moved=$(copy_bundle "$signed" moved)
set_host "$moved" n02
reseal "$moved"
expect_status 1 "$SC" verify "$moved"
expect_contains "$WORK/err" "signed on node $(hostname -s), but the run ran on n02"
echo "ok: hostile_times"
