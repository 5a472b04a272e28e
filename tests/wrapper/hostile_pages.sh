#!/usr/bin/env bash
# Hostile bundles and study records against the report's pages: a script or an event handler
# put into every text a user controls (a study record's unit and direction, a card's
# question and env, the host in run.conf and results.json, a platform value), the record or
# bundle re-sealed as a forger would. verify refuses a study record whose unit or direction
# is not the metric registry's, or whose recorded figures are not what its bundles give;
# each page carries the strict Content-Security-Policy; and headless Chromium, which runs
# whatever the page lets it run, shows that nothing ran on either page (the DOM after 2 s
# of virtual time carries no mark a script or handler would have set). Skipped (77) without
# chromium, after the checks of the HTML itself.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
. "$SRC/tests/wrapper/screenshot_lib.sh"
SC="$BIN/streamcard"
CSP="<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
# What a script or handler that runs leaves in the DOM.
MARK="data-pwned"
script() { echo "<script>document.body.setAttribute('$MARK','$1')</script>"; }
handler() { echo "<img src=x onerror=\"document.body.setAttribute('$MARK','$1')\">"; }

# page_is_inert HTML: the page carries the policy, and as an HTML parser reads it, it has no
# script or img element and no event handler attribute (the attack's text is only text).
page_is_inert() {
    expect_contains "$1" "$CSP"
    python3 - "$1" <<'PY' || fail "$1: markup of the attack reached the page"
import html.parser, sys
class Check(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        assert tag not in ("script", "img", "iframe", "object", "embed"), (tag, attrs)
        assert not [a for a, _ in attrs if a.startswith("on")], (tag, attrs)
Check().feed(open(sys.argv[1], encoding="utf-8").read())
PY
}
browse() {
    dump_dom "$1" "$WORK/dom"
    grep -q '<body' "$WORK/dom" || fail "chromium showed no page for $1"
    expect_not_contains "$WORK/dom" "$MARK="
}

# 1. A real study (a stream card, one step, one run per row) whose record says its unit is
# a script and its direction an image with a handler, re-sealed.
cat >"$WORK/study.yaml" <<'CARD'
version: 1
experiment:
  workload: stream
  kernel: copy
  cpu_list: 0-1
  threads: 2
  array_size: 100000
  cache_resident: accept
  iterations: 3
  expect:
    max_interference_pct: 100
ablation:
  - name: one thread
    set: { threads: 1 }
CARD
STREAMCARD_KERNEL_DIR="$KERNEL_DIR" "$SC" run "$WORK/study.yaml" --output "$WORK/runs" --quiet \
    >"$WORK/study.out" 2>"$WORK/study.err" || fail "the study did not run: $(cat "$WORK/study.err")"
study=$(sed -n 's/^STUDY=//p' "$WORK/study.out")
[ -d "$study" ] || fail "no STUDY= directory"
expect_status 0 "$SC" verify "$study"
expect_status 0 "$SC" report "$study" -o "$WORK/study.html"
page_is_inert "$WORK/study.html"
expect_contains "$WORK/study.html" "<h2>copy (MB/s, higher is better)</h2>"

# reseal_study DIR: SHA256SUMS over the record's files, as a forger would write it.
reseal_study() { (cd "$1" && sha256sum card.yaml study.json table.md >SHA256SUMS); }
hostile=$WORK/runs/hostile_study
cp -r "$study" "$hostile"
python3 - "$hostile/study.json" "MB/s$(script unit)" "higher$(handler better)" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
r["unit"], r["better"] = sys.argv[2], sys.argv[3]
json.dump(r, open(p, "w"))
PY
reseal_study "$hostile"
expect_status 1 "$SC" verify "$hostile"
expect_contains "$WORK/err" "study.json: metric copy in MB/s, higher is better, but the record says unit MB/s<script>"
expect_status 1 "$SC" report "$hostile" -o "$WORK/hostile_study.html"
expect_contains "$WORK/hostile_study.html" "REFUSED"
page_is_inert "$WORK/hostile_study.html"

# The same record with only its figures edited: a comparison's verdict turned, re-sealed.
figures=$WORK/runs/figures_study
cp -r "$study" "$figures"
python3 - "$figures/study.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
r["rows"][1]["vs_baseline"].update(change_pct=12.5, verdict="B faster", worse=False)
json.dump(r, open(p, "w"))
PY
reseal_study "$figures"
expect_status 1 "$SC" verify "$figures"
expect_contains "$WORK/err" "row 2: recorded vs_baseline"
# A figure of the record made infinite (the page would draw it): not a figure.
python3 - "$figures/study.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
r["rows"][1]["median"] = float("inf")
json.dump(r, open(p, "w"))
PY
reseal_study "$figures"
expect_status 1 "$SC" verify "$figures"
expect_contains "$WORK/err" "study.json: rows[1].median is Infinity, not a finite number"

# 2. A real bundle whose card asks its question in a script and sets an env value to a
# handler, whose host (run.conf and results.json alike, so verify accepts it) and a
# platform value are markup too.
small_card "$WORK/card.yaml" "" "  question: \"$(script question)\"" '  env:' \
    '    GREETING: >-' "      $(handler env)"
STREAMCARD_KERNEL_DIR="$KERNEL_DIR" "$SC" run "$WORK/card.yaml" --run-name marked \
    --output "$WORK/runs" --quiet >"$WORK/run.out" 2>"$WORK/run.err" || cat "$WORK/run.err" >&2
marked=$(bundle_of "$WORK/run.out")
python3 - "$marked" "$(handler host)" "$(script platform)" <<'PY'
import json, sys
b, host, value = sys.argv[1:]
r = json.load(open(b + "/results.json")); r["host"] = host
json.dump(r, open(b + "/results.json", "w"))
conf = open(b + "/run.conf").read().replace("\nhost=", "\nhost=" + host + "\nold_host=", 1)
open(b + "/run.conf", "w").write(conf)
open(b + "/platform/before.txt", "a").write("marked=" + value + "\n")
PY
reseal "$marked"
expect_status 0 "$SC" verify "$marked"
base=$(small_run base)
expect_status 0 "$SC" report "$base" "$marked" -o "$WORK/bundles.html"
page_is_inert "$WORK/bundles.html"
expect_contains "$WORK/bundles.html" "&lt;script&gt;document.body.setAttribute(&#39;$MARK&#39;,&#39;question&#39;)"

# The history's page of the same bundles: their names, hosts and cards are text too.
expect_status 0 "$SC" history add --db "$WORK/history.db" "$base" "$marked"
expect_status 0 "$SC" history report --db "$WORK/history.db" -o "$WORK/history.html"
page_is_inert "$WORK/history.html"

# 3. What a browser does with each page: nothing of the attack runs.
browse "$WORK/study.html"
browse "$WORK/hostile_study.html"
browse "$WORK/bundles.html"
browse "$WORK/history.html"
echo "ok: hostile_pages"
