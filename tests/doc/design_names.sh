#!/bin/sh
# design_names.sh PROGRAM DOC: DOC (doc/design.md) names every card key, card flag, gate
# and gate run.conf key that PROGRAM (design_names) prints from the core's own tables:
#   card key    the first cell of a table row in the section "The experiment card"
#   card flag   `--flag` anywhere in that section
#   gate        the first cell of a table row in the section "The gates", its class the
#               start of the row's fourth cell
#   conf key    `<gate>_ok` anywhere in that section
#   hazard      the first cell of a table row in the section "Environment variables"
# Then, so that no entry passes by accident, each entry's lines are removed from a copy of
# DOC in turn: the check must fail on that copy and name the entry.
# The awk programs are single-quoted on purpose; the loop reads names and writes out.
# shellcheck disable=SC2016,SC2094
set -u

prog=$1
doc=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! "$prog" >"$tmp/names"; then
    echo "design_names: $prog failed"
    exit 1
fi
for kind in card flag gate conf hazard; do
    if ! grep -q "^$kind " "$tmp/names"; then
        echo "design_names: $prog listed no $kind names"
        exit 1
    fi
done

# The awk function row(): line is a table row whose first cell starts with `name`.
row='function row(line, name,   p, c) {
         p = "| `" name "`"
         if (substr(line, 1, length(p)) != p)
             return 0
         c = substr(line, length(p) + 1, 1)
         return c == " " || c == "|"
     }'

# check NAMES DOC: one "missing <kind> <name>: ..." line per entry DOC lacks; exit 1 then.
check() {
    awk "$row"'
        function classed(line, cls,   c) {
            split(line, c, " [|] ")
            return index(c[4], cls) == 1
        }
        FNR == NR { kind[NR] = $1; name[NR] = $2; cls[NR] = $3; n = NR; next }
        /^## / {
            sec = ""
            if (index($0, "The experiment card")) sec = "card"
            else if (index($0, "The gates")) sec = "gates"
            else if (index($0, "Environment variables")) sec = "env"
            if (sec != "") seen[sec] = 1
            next
        }
        sec != "" {
            for (i = 1; i <= n; i++) {
                if (sec == "card" && kind[i] == "card" && row($0, name[i])) found[i] = 1
                if (sec == "card" && kind[i] == "flag" && index($0, "`" name[i] "`")) found[i] = 1
                if (sec == "gates" && kind[i] == "gate" && row($0, name[i]) && classed($0, cls[i])) found[i] = 1
                if (sec == "gates" && kind[i] == "conf" && index($0, "`" name[i] "`")) found[i] = 1
                if (sec == "env" && kind[i] == "hazard" && row($0, name[i])) found[i] = 1
            }
        }
        END {
            bad = 0
            if (!seen["card"]) { print "missing section: no \"## ... The experiment card\" heading"; bad = 1 }
            if (!seen["gates"]) { print "missing section: no \"## ... The gates\" heading"; bad = 1 }
            if (!seen["env"]) { print "missing section: no \"## ... Environment variables\" heading"; bad = 1 }
            for (i = 1; i <= n; i++) {
                if (found[i]) continue
                bad = 1
                if (kind[i] == "card") where = "not the first cell of a table row in \"The experiment card\""
                else if (kind[i] == "flag") where = "not in \"The experiment card\""
                else if (kind[i] == "gate") where = "not the first cell of a table row in \"The gates\" whose class is " cls[i]
                else if (kind[i] == "hazard") where = "not the first cell of a table row in \"Environment variables\""
                else where = "not in \"The gates\""
                printf "missing %s %s: `%s` is %s\n", kind[i], name[i], name[i], where
            }
            exit bad
        }' "$1" "$2"
}

if ! out=$(check "$tmp/names" "$doc"); then
    printf '%s\n' "$out"
    echo "design_names: FAIL: $doc lacks the names above (they come from core/card_schema.c" \
         "and the gate table; see section 18 of $doc)"
    exit 1
fi

status=0
while read -r kind name _; do
    awk -v kind="$kind" -v name="$name" "$row"'
        (kind == "card" || kind == "gate" || kind == "hazard") && row($0, name) { next }
        (kind == "flag" || kind == "conf") && index($0, "`" name "`") { next }
        { print }' "$doc" >"$tmp/doc.md"
    if check "$tmp/names" "$tmp/doc.md" >"$tmp/out"; then
        echo "design_names: FAIL: with $kind $name removed from a copy of $doc the check passes"
        status=1
    elif ! grep -qF "missing $kind $name:" "$tmp/out"; then
        echo "design_names: FAIL: with $kind $name removed the check fails without naming it:"
        cat "$tmp/out"
        status=1
    fi
done <"$tmp/names"
[ "$status" -eq 0 ] && echo "design_names: ok: $(wc -l <"$tmp/names") names, each present and each missing one caught"
exit "$status"
