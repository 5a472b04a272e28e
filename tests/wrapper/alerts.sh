#!/usr/bin/env bash
# doc/admin.md's worked example for admins: its alert rules are contrib/prometheus/
# streamcard.rules.yml line for line, `promtool check rules` accepts them, and `promtool
# test rules` (tests/wrapper/alerts_test.yml) shows them firing on a node whose newest run
# stays failed for 15 minutes and on a card that has not run for two days, and not on a
# node with one failed pass that recovers. Skipped (77) without promtool (Debian package
# prometheus).
SRC=$2
. "$SRC/tests/lib.sh"
RULES="$SRC/contrib/prometheus/streamcard.rules.yml"

while IFS= read -r line; do
    [ -z "$line" ] || grep -qxF -- "    $line" "$SRC/doc/admin.md" ||
        fail "doc/admin.md: the worked example lacks the rules line: $line"
done <"$RULES"
# The NHC line and the textfile directory of the example.
expect_contains "$SRC/doc/admin.md" "|| check_streamcard /etc/nhc/streamcard/"
expect_contains "$SRC/doc/admin.md" "-o /var/lib/prometheus/node-exporter/streamcard.prom"
if ! command -v promtool >/dev/null; then
    echo "skip: no promtool (Debian package prometheus) to check the rules"
    exit 77
fi
promtool check rules "$RULES" >"$WORK/check" 2>&1 || fail "promtool check rules: $(cat "$WORK/check")"
expect_contains "$WORK/check" "SUCCESS: 2 rules found"
promtool test rules "$SRC/tests/wrapper/alerts_test.yml" >"$WORK/test" 2>&1 ||
    fail "promtool test rules: $(cat "$WORK/test")"
expect_contains "$WORK/test" "SUCCESS"
echo "ok: alerts"
