#!/usr/bin/env bash
# streamcard report: one self-contained page (no script, nothing from a network, a strict
# Content-Security-Policy) with the gates, the plan, the runs, rates, MPI figures, placement,
# NUMA pages, platform state and, for several bundles, the comparison. The HTML is checked
# first; then headless Chromium builds the page: in its DOM every picture is present and
# labelled (a title, axes, a legend: tests/wrapper/page_dom.py), a script put into the page
# does not run (and does once the policy is taken out, so the check can fail), and in its
# screenshot at 1400 px the page fills the window and holds the plots' colours. Without
# chromium the test is skipped (77) after the checks of the HTML itself.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
. "$SRC/tests/wrapper/screenshot_lib.sh"
SC="$BIN/streamcard"
export PYTHONPATH="$SRC/tests/wrapper${PYTHONPATH:+:$PYTHONPATH}"

base=$(small_run base)
thr1=$(small_run thr1 -- --threads 1)
failed=$(small_run failed STREAMCARD_FAULT=corrupt)
# Two series of 6 runs of the four STREAM kernels whose rates a forger set
# (analysis_lib.sh), so the verdicts are known: the second at half the first's rate is
# "B slower" in every kernel, its whole interval below 1.
base6=$(small_run base6 -- --runs 6 --kernel all)
half6=$(small_run half6 -- --runs 6 --kernel all --threads 1)
for f in copy scale add triad; do
    set_rate "$base6" 10000,10100,9900,10050,9950,10020 $f
    set_rate "$half6" 5000,5050,4950,5025,4975,5010 $f
done

expect_status 0 "$SC" report "$base" "$thr1" -o "$WORK/two.html"
expect_status 1 "$SC" report "$base" "$failed" -o "$WORK/refused.html"
expect_contains "$WORK/err" "refused: failed gates: validation"
expect_status 2 "$SC" report "$base" "$WORK/nope" -o "$WORK/x.html"
expect_contains "$WORK/err" "cannot open the bundle"
[ ! -e "$WORK/x.html" ] || fail "a report was written although a bundle is missing"
expect_status 2 "$SC" report "$base"
expect_contains "$WORK/err" "needs bundles and -o FILE"
# The forged rates are the test's; the foreign work this machine put on the runs is not: the
# comparison is judged with the contamination limit opened, as compare's would be.
expect_status 0 "$SC" report "$base6" "$half6" -o "$WORK/six.html" --max-interference 100
expect_status 2 "$SC" report "$base6" "$half6" -o "$WORK/bad.html" --max-interference 0
expect_contains "$WORK/err" "--max-interference 0: not a percentage (valid: 0 < PCT <= 100"

# What the page must say, section by section.
H="$WORK/two.html"
for text in "<h2>Summary</h2>" "<h2>Comparison</h2>" \
    "Single-variable comparison:</span> only threads differs." \
    "<h3>Verdict and gates</h3>" "<h3>The plan: card.yaml</h3>" "<h3>Runs</h3>" \
    "<h3>Rates within the run</h3>" "One run: its figures are the run's own" \
    "<h3>Thread placement</h3>" "<h3>NUMA pages at main_loop_begin</h3>" \
    "<h3>Platform state before and after</h3>" "<h3>Controlled variables</h3>" \
    "analysis tests: does the comparison hold?" "thp.enabled" "Solution Validates at log line" \
    ": rate of every repetition of the run" "repetition (the warm-up, 0, left out)"; do
    expect_contains "$H" "$text"
done
# A median of runs and one run's best are not confused: the summary says its figures are
# medians, and the rates of a bundle of 6 runs are said to be its first run's.
expect_contains "$WORK/six.html" "<th>figures: the median of the runs [its 95% interval]</th>"
expect_contains "$WORK/six.html" "<h3>Rates within run 1 of 6</h3>"
expect_contains "$WORK/six.html" "<th>best MB/s in run 1 of 6</th>"
expect_contains "$WORK/six.html" "They are one run's, not the median over the 6 runs"
expect_contains "$WORK/refused.html" "REFUSED</span> failed gates: validation"
expect_contains "$WORK/refused.html" "a bundle is refused (failed verification or gates)"
# No number from a refused pair: neither the refused run's figure nor a change.
expect_contains "$WORK/refused.html" "not compared: a bundle is refused"
expect_not_contains "$WORK/refused.html" "(change vs A)"
python3 - "$WORK/refused.html" "$(basename "$failed")" "$(python3 -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))["metrics"]["rates"]["copy"])' "$failed/results.json")" <<'PY'
import re, sys
page, name, rate = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
summary = page[page.index("<h2>Summary</h2>"):page.index("<h2>Comparison</h2>")]
row = [r for r in summary.split("<tr>") if name in r][0]
assert rate not in row and "MB/s" not in row, row
comparison = page[page.index("<h2>Comparison</h2>"):page.index('<h2 id="b0">')]
assert not re.search(r"\([-+][0-9.]+%\)", comparison), "a change is shown for a refused pair"
assert "<svg" not in comparison, "a comparison plot for a refused pair"
PY
# An invalid comparison (two variables differ) compares no figure either.
cpu0=$(small_run cpu0 -- --cpu-list 0 --threads 1 --iterations 4)
expect_status 0 "$SC" report "$base" "$cpu0" -o "$WORK/invalid.html"
expect_contains "$WORK/invalid.html" "Invalid as a single-variable comparison"
expect_contains "$WORK/invalid.html" "not compared: more than one controlled variable differs"
expect_not_contains "$WORK/invalid.html" "(change vs A)"
# Self-contained: no script, no external resource of any kind.
for bad in "<script" " src=" " href=" "url(" "@import" "<link" "<iframe"; do
    expect_not_contains "$H" "$bad"
    expect_not_contains "$WORK/six.html" "$bad"
done
[ "$(grep -oE 'https?:' "$H" | wc -l)" = "$(grep -o 'xmlns="http://www.w3.org/2000/svg"' "$H" | wc -l)" ] ||
    fail "the page names a URL besides the SVG namespace"
# And the browser is told so: nothing but inline style and data: images (no script at all).
CSP="<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
expect_contains "$H" "$CSP"

# MPI latency and bandwidth per message size: a bundle given MPI-style sizes (results.json,
# re-sealed; the STREAM figure unchanged, so it still verifies), the first so slow that it
# is 0.025 MB/s (once printed as "0.0"), gets both log-log plots and a table of figures.
sizes=$(copy_bundle "$base" sizes)
python3 - "$sizes/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["metrics"]["sizes"] = [{"bytes": 1, "t_usec": 40.0, "MBps": 0.025}] + \
    [{"bytes": b, "t_usec": 1 + b / 1e4, "MBps": b / (1 + b / 1e4)}
     for b in (64, 4096, 262144, 4194304)]
json.dump(r, open(sys.argv[1], "w"))
PY
reseal "$sizes"
expect_status 0 "$SC" report "$sizes" -o "$WORK/sizes.html"
expect_contains "$WORK/sizes.html" "<h3>Latency and bandwidth per message size</h3>"
expect_contains "$WORK/sizes.html" "<tr><td>4194304</td><td>4MiB</td>"
python3 - "$WORK/sizes.html" <<'PY' || fail "the table of sizes"
import re, sys
page = open(sys.argv[1]).read()
table = page[page.index("<th>bytes</th>"):]
table = table[:table.index("</table>")]
cells = re.findall(r'<td class="num">([^<]*)</td>', table)
assert "0.02500" in cells and "40.00" in cells, cells
assert not [c for c in cells if re.fullmatch(r"0\.0*", c)], ("a figure shown as 0", cells)
PY

# The browser's view. A script put into a copy of the page does not run (the policy), and
# runs in a copy without the policy: the DOM after 2 s of virtual time says which.
inject() { # inject PAGE OUT [drop-policy]
    python3 - "$@" "$CSP" <<'PY'
import sys
page = open(sys.argv[1]).read()
if sys.argv[3] == "drop":
    page = page.replace(sys.argv[4], "")
page = page.replace("</body>", "<script>document.body.setAttribute('data-ran','yes')</script></body>")
open(sys.argv[2], "w").write(page)
PY
}
inject "$WORK/six.html" "$WORK/scripted.html" keep
inject "$WORK/six.html" "$WORK/unguarded.html" drop
dump_dom "$WORK/scripted.html" "$WORK/scripted.dom"
dump_dom "$WORK/unguarded.html" "$WORK/unguarded.dom"
expect_not_contains "$WORK/scripted.dom" 'data-ran="yes"'
expect_contains "$WORK/unguarded.dom" 'data-ran="yes"'

# Every picture present and labelled, in the DOM Chromium built of each page.
dump_dom "$WORK/six.html" "$WORK/six.dom"
python3 - "$WORK/six.dom" <<'PY' || fail "the pictures of the comparison of 6 runs"
import sys, page_dom
root = page_dom.parse(sys.argv[1])
# The summary's figures are the medians, with their intervals.
summary = root.first("table")
assert "the median of the runs" in summary.text(), summary.text()
for f in ("copy", "scale", "add", "triad"):
    assert f + " 10010 MB/s [9900, 10100]" in " ".join(summary.text().split()), summary.text()
# The comparison: the one variable that differs first, the equal ones counted and folded.
cmp = root.first("table", "cmp")
rows = cmp.all("tr")
assert [td.text() for td in rows[1].all("td")][:1] == ["threads"] and "diff" in rows[1].classes
for r in rows[1:]:
    cells = [td.text() for td in r.all("td")]
    assert not (len(cells) == 3 and cells[1] == cells[2] and "diff" not in r.classes
                and r.first("th") is None), ("an equal variable among the differences", cells)
folded = root.first("details", "equal")
n_equal = int(folded.first("summary").text().split()[0])
assert n_equal >= 20 and len(folded.all("tr")) == n_equal + 1, n_equal
# The comparison's plots, one per kernel: both bundles with their medians, the ratio with
# its verdict, the axes and the legend named.
plots = page_dom.pictures(root, "compare")
assert [page_dom.picture(p).split(":")[0] for p in plots] == ["copy", "scale", "add", "triad"]
for plot in plots:
    texts = plot.texts()
    for want in ("median of the bundle's runs", "its 95% interval",
                 "median (MB/s), higher is better", "ratio to the first, B/A", "verdict",
                 "the reference"):
        assert want in texts, (want, texts)
    assert any(t.startswith("the noise bound, 1 +-5%") for t in texts), texts
    assert plot.texts("v") == ["B slower"], plot.texts("v")
    assert any(t.startswith("B/A 0.500 in [") for t in plot.texts("small")), plot.texts("small")
    assert len(plot.all("rect", "bar")) == 3 and len(plot.all("path", "whisker")) >= 3
# Each bundle's runs: a strip plot per kernel of its 6 runs with their median and interval.
strips = page_dom.pictures(root, "strip")
assert len(strips) == 8, len(strips)
for s in strips:
    assert len(s.all("circle", "run")) == 7  # the six runs and the legend's dot
    assert s.all("rect", "band") and s.all("path", "median")
    assert s.texts("axis") == ["MB/s", "run, in the order the runs ran"], s.texts("axis")
    assert [t for t in s.texts("tick") if t.isdigit() and len(t) == 1] == list("123456")
    assert any(t.startswith("median 10010") or t.startswith("median 5005") for t in s.texts("legend"))
    assert any(t.startswith("its 95% interval [") for t in s.texts("legend"))
# Every picture of the page has its title.
n = len(page_dom.pictures(root, "plot"))
print("six: %d pictures, each titled; the comparison says B slower" % n)
PY
dump_dom "$WORK/sizes.html" "$WORK/sizes.dom"
python3 - "$WORK/sizes.dom" <<'PY' || fail "the pictures of MPI sizes"
import sys, page_dom
root = page_dom.parse(sys.argv[1])
plots = page_dom.pictures(root, "loglog")
assert [page_dom.picture(p) for p in plots] == [
    "MPI latency vs message size (lower is better)",
    "MPI bandwidth vs message size (higher is better)"], [page_dom.picture(p) for p in plots]
for p, ylabel in zip(plots, ("latency: half a round trip (us, log scale)",
                             "bandwidth (MB/s, log scale)")):
    assert p.texts("axis") == ["message size (bytes, log scale)", ylabel], p.texts("axis")
    assert len(p.all("circle", "dot")) == 5
    ticks = p.texts("tick")
    assert "1" in ticks and "4K" in ticks and "2M" in ticks, ticks
tips = [c.first("title").text() for c in plots[1].all("circle", "dot")]
assert tips[0] == "1 bytes: 0.02500 MB/s", tips
print("sizes: latency and bandwidth on log-log axes, labelled")
PY

# Rendered at half scale in a window 1400 px wide: the page is not blank, holds the colours
# of the plots (bars #3182ce, the runs' dots #dd6b20) and fills the window: the comparison
# table's header (#edf2f7) reaches its right edge, and so does the right-hand column of plots
# (the runs' bands #bee3f8 of scale and triad, beside copy's and add's).
shoot "$WORK/six.html" "$WORK/six.png" 4400 1400
mapfile -t px < <(PNG_EXTENT=1 png_pixels "$WORK/six.png" 3182ce dd6b20 edf2f7 bee3f8)
echo "six.png: ${px[0]} dark pixels; bars, runs, table header, runs' bands" \
    "(count width rightmost): ${px[1]} / ${px[2]} / ${px[3]} / ${px[4]}"
read -r bars width _ <<<"${px[1]}"
read -r runs _ _ <<<"${px[2]}"
read -r _ _ header_right <<<"${px[3]}"
read -r bands _ bands_right <<<"${px[4]}"
[ "${px[0]}" -gt 5000 ] || fail "the page looks blank"
[ "$bars" -gt 500 ] || fail "no bar plot rendered"
[ "$runs" -gt 50 ] || fail "no runs drawn"
[ "$bands" -gt 2000 ] || fail "no interval bands drawn"
[ "$header_right" -gt $((width * 95 / 100)) ] || fail "the table stops at $header_right of $width"
[ "$bands_right" -gt $((width * 95 / 100)) ] || fail "the plots stop at $bands_right of $width"
# The CPU grid (busy CPUs #63b3ed) of a bundle of one run.
shoot "$H" "$WORK/two.png" 3000
mapfile -t px < <(png_pixels "$WORK/two.png" 63b3ed)
echo "two.png: ${px[0]} dark pixels, ${px[1]} busy-cpu pixels"
[ "${px[1]}" -gt 250 ] || fail "no CPU grid rendered"
echo "ok: report"
