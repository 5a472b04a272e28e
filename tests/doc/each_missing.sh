# each_missing.sh: sourced by the doc tests (design_names.sh, man_card_keys.sh).
# each_missing TEST NAMES DOC: for every "<kind> <name>" line of NAMES, a copy of DOC without
# that entry (the caller's `remove KIND NAME`, a filter from stdin to stdout) must fail the
# caller's `check NAMES COPY` and name the entry ("missing <kind> <name>:"), so that no entry
# passes by accident. Writes in the caller's $tmp; returns 1 when an entry passes.
# shellcheck shell=sh disable=SC2154,SC2094
each_missing() {
    _status=0
    while read -r _kind _name _; do
        remove "$_kind" "$_name" <"$3" >"$tmp/copy"
        if check "$2" "$tmp/copy" >"$tmp/out"; then
            echo "$1: FAIL: with $_kind $_name removed from a copy of $3 the check passes"
            _status=1
        elif ! grep -qF "missing $_kind $_name:" "$tmp/out"; then
            echo "$1: FAIL: with $_kind $_name removed the check fails without naming it:"
            cat "$tmp/out"
            _status=1
        fi
    done <"$2"
    return "$_status"
}
