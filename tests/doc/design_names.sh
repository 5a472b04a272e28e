#!/bin/sh
# design_names.sh PROGRAM DOC...: the contract files DOC... (doc/contracts/card.md, gates.md,
# environment.md; each a section known by its "# " title) name every card key, card flag,
# gate, gate run.conf key and environment hazard that PROGRAM (design_names) prints from the
# core's own tables:
#   card key    the first cell of a table row in the section "The experiment card"
#   card flag   `--flag` anywhere in that section
#   gate        the first cell of a table row in the section "The gates", its class the
#               start of the row's fourth cell
#   conf key    `<gate>_ok` anywhere in that section
#   hazard      the first cell of a table row in the section "Environment variables"
# A "# " line inside a ``` fence is a comment of an example, not a title.
# Then, so that no entry passes by accident, each entry's lines are removed from a copy of
# the files in turn: the check must fail on that copy and name the entry.
# The awk programs are single-quoted on purpose; the loop reads names and writes out.
# shellcheck disable=SC2016,SC2094
set -u
# shellcheck source=tests/doc/each_missing.sh
. "$(dirname "$0")/each_missing.sh"

prog=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The files in one text, each file's title a "# " line that starts a section.
doc=$tmp/contracts.md
cat -- "$@" >"$doc" || { echo "design_names: cannot read $*"; exit 1; }

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
        /^```/ { fence = !fence }
        !fence && /^# / {
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
            if (!seen["card"]) { print "missing section: no \"# The experiment card\" title"; bad = 1 }
            if (!seen["gates"]) { print "missing section: no \"# The gates\" title"; bad = 1 }
            if (!seen["env"]) { print "missing section: no \"# Environment variables\" title"; bad = 1 }
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
    echo "design_names: FAIL: $* lack the names above (they come from core/card/card_schema.c," \
         "the gate table and sc_envhazard.h; see doc/contracts/tests.md)"
    exit 1
fi

# remove KIND NAME: the document on stdin without that entry's lines.
remove() {
    awk -v kind="$1" -v name="$2" "$row"'
        (kind == "card" || kind == "gate" || kind == "hazard") && row($0, name) { next }
        (kind == "flag" || kind == "conf") && index($0, "`" name "`") { next }
        { print }'
}
each_missing design_names "$tmp/names" "$doc" || exit 1
echo "design_names: ok: $(wc -l <"$tmp/names") names, each present and each missing one caught"
