#!/usr/bin/env bash
# streamcard report: one self-contained page (no script, nothing from a network, a strict
# Content-Security-Policy) with the gates, the plan, rates, placement, NUMA pages, platform
# state and, for several bundles, the comparison; headless Chromium renders it and the
# screenshot shows the plots. Without chromium the test is skipped (77) after the checks of
# the HTML itself.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
. "$SRC/tests/wrapper/screenshot_lib.sh"
SC="$BIN/streamcard"

base=$(small_run base)
thr1=$(small_run thr1 -- --threads 1)
failed=$(small_run failed STREAMCARD_FAULT=corrupt)

expect_status 0 "$SC" report "$base" "$thr1" -o "$WORK/two.html"
expect_status 1 "$SC" report "$base" "$failed" -o "$WORK/refused.html"
expect_contains "$WORK/err" "refused: failed gates: validation"
expect_status 2 "$SC" report "$base" "$WORK/nope" -o "$WORK/x.html"
expect_contains "$WORK/err" "cannot open the bundle"
[ ! -e "$WORK/x.html" ] || fail "a report was written although a bundle is missing"
expect_status 2 "$SC" report "$base"
expect_contains "$WORK/err" "needs bundles and -o FILE"

# What the page must say, section by section.
H="$WORK/two.html"
for text in "<h2>Summary</h2>" "<h2>Comparison</h2>" \
    "Single-variable comparison:</span> only threads differs." \
    "<h3>Verdict and gates</h3>" "<h3>The plan: card.yaml</h3>" "<h3>Rates</h3>" \
    "<h3>Thread placement</h3>" "<h3>NUMA pages at main_loop_begin</h3>" \
    "<h3>Platform state before and after</h3>" "<h3>Controlled variables</h3>" \
    "analysis tests: does the comparison hold?" "thp.enabled" "Solution Validates at log line" \
    ": rate of every repetition" "repetition (the warm-up, 0, left out)"; do
    expect_contains "$H" "$text"
done
expect_contains "$WORK/refused.html" "REFUSED</span> failed gates: validation"
expect_contains "$WORK/refused.html" "a bundle is refused (failed verification or gates)"
# No number from a refused pair: neither the refused run's figure nor a change.
expect_contains "$WORK/refused.html" "not compared: a bundle is refused"
expect_not_contains "$WORK/refused.html" "(change vs A)"
python3 - "$WORK/refused.html" "$(basename "$failed")" "$(python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["metrics"]["rates"]["copy"])' "$failed/results.json")" <<'PY'
import re, sys
page, name, rate = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
summary = page[page.index("<h2>Summary</h2>"):page.index("<h2>Comparison</h2>")]
row = [r for r in summary.split("<tr>") if name in r][0]
assert rate not in row and "MB/s" not in row, row
comparison = page[page.index("<h2>Comparison</h2>"):page.index('<h2 id="b0">')]
assert not re.search(r"\([-+][0-9.]+%\)", comparison), "a change is shown for a refused pair"
PY
# An invalid comparison (two variables differ) compares no figure either.
cpu0=$(small_run cpu0 -- --cpu-list 0 --threads 1 --iterations 4)
expect_status 0 "$SC" report "$base" "$cpu0" -o "$WORK/invalid.html"
expect_contains "$WORK/invalid.html" "Invalid as a single-variable comparison"
expect_contains "$WORK/invalid.html" "not compared: more than one controlled variable differs"
expect_not_contains "$WORK/invalid.html" "(change vs A)"
# Plots are inline SVG: rates and NUMA bars, the CPU grid, for each bundle.
[ "$(grep -o '<svg ' "$H" | wc -l)" -ge 6 ] || fail "expected at least 6 inline SVG plots"
# Self-contained: no script, no external resource of any kind.
for bad in "<script" " src=" " href=" "url(" "@import" "<link" "<iframe"; do
    expect_not_contains "$H" "$bad"
done
[ "$(grep -oE 'https?:' "$H" | wc -l)" = "$(grep -o 'xmlns="http://www.w3.org/2000/svg"' "$H" | wc -l)" ] ||
    fail "the page names a URL besides the SVG namespace"
# And the browser is told so: nothing but inline style and data: images (no script at all).
expect_contains "$H" "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"

# Bandwidth per message size: a bundle given MPI-style sizes (results.json, re-sealed; the
# STREAM figure unchanged, so it still verifies) gets the log-scale plot and its table.
sizes=$(copy_bundle "$base" sizes)
python3 - "$sizes/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["metrics"]["sizes"] = [{"bytes": b, "t_usec": 1 + b / 1e4, "MBps": b / (1 + b / 1e4)}
                         for b in (1, 64, 4096, 262144, 4194304)]
json.dump(r, open(sys.argv[1], "w"))
PY
reseal "$sizes"
expect_status 0 "$SC" report "$sizes" -o "$WORK/sizes.html"
expect_contains "$WORK/sizes.html" "<h3>Bandwidth per message size</h3>"
expect_contains "$WORK/sizes.html" "message size (bytes, log scale)"
# The points of that plot: the circles between its heading and the end of its <svg>.
points=$(sed -n '/<h3>Bandwidth per message size<\/h3>/,/<\/svg>/p' "$WORK/sizes.html" | grep -o '<circle ' | wc -l)
[ "$points" = 5 ] || fail "expected 5 points on the bandwidth plot, found $points"
expect_contains "$WORK/sizes.html" "<tr><td>4194304</td>"

# Rendered at half scale (a 600x3000 screenshot keeps the decoder fast): the screenshot
# must be mostly page, not blank, and hold the colours of the plots (bars #3182ce, busy
# CPUs #63b3ed).
shoot "$H" "$WORK/shot.png"
mapfile -t px < <(png_pixels "$WORK/shot.png" 3182ce 63b3ed)
echo "screenshot: ${px[0]} dark pixels, ${px[1]} bar pixels, ${px[2]} busy-cpu pixels"
[ "${px[0]}" -gt 5000 ] || fail "the page looks blank"
[ "${px[1]}" -gt 500 ] || fail "no bar plot rendered"
[ "${px[2]}" -gt 250 ] || fail "no CPU grid rendered"
echo "ok: report"
