#!/bin/sh
# man_card_keys.sh PROGRAM MANPAGE: streamcard-card(5) (MANPAGE, its roff source) has an
# entry for every card key that PROGRAM (design_names) prints as "card" from the schema
# table: a ".TP" line followed by ".B <key>" (a '-' in the key written "\-"). Then, so that
# no key passes by accident, each key's ".B" line is removed from a copy in turn: the check
# must fail on that copy and name the key.
# The awk program is single-quoted on purpose.
# shellcheck disable=SC2016
set -u
# shellcheck source=tests/doc/each_missing.sh
. "$(dirname "$0")/each_missing.sh"

prog=$1
man=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! "$prog" >"$tmp/all"; then
    echo "man_card_keys: $prog failed"
    exit 1
fi
awk '$1 == "card" { print "key", $2 }' "$tmp/all" >"$tmp/keys"
if ! [ -s "$tmp/keys" ]; then
    echo "man_card_keys: $prog listed no card keys"
    exit 1
fi

# check KEYS MAN: one "missing key <key>" line per key without its entry; exit 1 then.
check() {
    awk '
        FNR == NR { key[NR] = $2; n = NR; next }
        prev == ".TP" && $1 == ".B" { entry[$2] = 1 }
        { prev = $0 }
        END {
            bad = 0
            for (i = 1; i <= n; i++) {
                k = key[i]
                gsub(/-/, "\\-", k)
                if (k in entry) continue
                printf "missing key %s: no \".TP\" then \".B %s\" entry\n", key[i], k
                bad = 1
            }
            exit bad
        }' "$1" "$2"
}

if ! out=$(check "$tmp/keys" "$man"); then
    printf '%s\n' "$out"
    echo "man_card_keys: FAIL: $man lacks an entry for the card keys above (they come from" \
         "core/card/card_schema.c; each belongs under KEYS with what it means and its valid values)"
    exit 1
fi

# remove KIND KEY: the man page on stdin without the key's ".B" lines.
remove() {
    B=".B $(printf '%s' "$2" | sed 's/-/\\-/g')" awk '$0 != ENVIRON["B"]'
}
each_missing man_card_keys "$tmp/keys" "$man" || exit 1
echo "man_card_keys: ok: $(wc -l <"$tmp/keys") card keys, each with its entry and each missing one caught"
