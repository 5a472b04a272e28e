#!/usr/bin/env bash
# The sample output the docs show has the shape of what the commands print now: every block
# "<!-- sample NAME ..." of README.md and doc/*.md holds the rows, in order, of sample NAME
# as contrib/doc-samples makes it from real runs of this build. The shape of a line is its
# label: what comes before its first gap of two spaces or its first digit (a table row's
# name, "streamcard: verify: runs/stream_copy_", "ratio B/A: ..."), so figures and times may
# differ and rows may not; a "why:" line (there only when a verdict is overridden) is left
# out. Every sample is shown somewhere, and a block with a row taken out must fail.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

"$SRC/contrib/doc-samples" --bin "$BIN" --out "$WORK/samples" >"$WORK/gen.out" 2>&1 ||
    fail "contrib/doc-samples failed: $(tail -3 "$WORK/gen.out")"

# shape: one label per line of stdin, a block of a doc (its 4-space indent removed).
shape() {
    sed 's/^    //' | awk '
        NF == 0 { next }
        {
            line = $0
            sub(/^\*/, " ", line)                       # compare marks a differing row
            label = line
            if (match(label, /[^ ]  +/)) label = substr(label, 1, RSTART)
            if (match(label, /-?[0-9]/)) label = substr(label, 1, RSTART - 1)
            sub(/ +$/, "", label)
            if (label ~ /^ *why:/) next
            print label
        }'
}
# block DOC NAME: the lines of DOC between "<!-- sample NAME " and "<!-- end sample -->".
block() {
    awk -v name="$2" '
        /^<!-- end sample -->/ { on = 0 }
        on { print }
        $1 == "<!--" && $2 == "sample" && $3 == name { on = 1 }' "$1"
}
# check DOC NAME: the block's shape against the sample's; prints the difference.
check() {
    block "$1" "$2" >"$WORK/block"
    shape <"$WORK/block" >"$WORK/doc.shape"
    sed 's/^/    /' "$WORK/samples/$2" | shape >"$WORK/gen.shape"
    [ -s "$WORK/gen.shape" ] || { echo "sample $2 is empty"; return 1; }
    diff -u "$WORK/gen.shape" "$WORK/doc.shape" >"$WORK/diff" && return 0
    echo "$1: sample $2 differs in shape from what contrib/doc-samples prints now" \
         "(- now, + the doc; run contrib/doc-samples --update $1):"
    cat "$WORK/diff"
    return 1
}

status=0 blocks=0
for doc in "$SRC"/README.md "$SRC"/doc/*.md; do
    awk '$1 == "<!--" && $2 == "sample" { print $3 }' "$doc" >"$WORK/names"
    while read -r name; do
        [ -f "$WORK/samples/$name" ] ||
            { echo "$doc: sample $name is not one contrib/doc-samples makes"; status=1; continue; }
        check "$doc" "$name" || status=1
        blocks=$((blocks + 1))
        echo "$name" >>"$WORK/shown"
    done <"$WORK/names"
done
for f in "$WORK"/samples/*; do
    grep -qxF "$(basename "$f")" "$WORK/shown" 2>/dev/null ||
        { echo "sample $(basename "$f") is shown in no doc"; status=1; }
done
[ "$status" -eq 0 ] || fail "the docs' samples drifted (above)"

# The check can fail: the README's compare block without its "verdict (recomputed)" row.
grep -v 'verdict (recomputed)' "$SRC/README.md" >"$WORK/README.md"
if check "$WORK/README.md" compare >/dev/null; then
    fail "a compare block without its verdict row passed the check"
fi
echo "samples: ok: $blocks blocks have the rows of the samples made now"
