#!/usr/bin/env bash
# The man pages: groff reports no warnings; streamcard-card(5) documents every card key,
# streamcard(1) every command, run option and controlled variable, spank_streamcard(8)
# every plugstack.conf argument and callback; `cmake --install` puts them, gzipped, in
# man1/5/8.
# Skipped (77) without groff.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
MAN="$SRC/contrib/man"
command -v groff >/dev/null || { echo "skip: no groff"; exit 77; }

for page in streamcard.1 streamcard-card.5 spank_streamcard.8; do
    groff -man -ww -z "$MAN/$page" 2>"$WORK/warnings" || fail "groff failed on $page"
    [ ! -s "$WORK/warnings" ] || { cat "$WORK/warnings" >&2; fail "groff warns about $page"; }
done

# documented PAGE WORD...: each WORD is a bold term (.B, .BR, .BI, .TP item) of PAGE.
documented() {
    local page=$1 word
    shift
    for word in "$@"; do
        grep -Eq "^\.(B|BR|BI|IB) +\"?${word//\\/\\\\}([\" ]|$)" "$MAN/$page" ||
            fail "$page does not document $word"
    done
}

# Every card key: the flags of `streamcard run --help` name them, plus the YAML-only keys.
keys=(version env controlled_variables expect transport min_rate_MBps at_bytes max_latency_us
      max_interference_pct)
while read -r flag; do
    case "$flag" in
    expect-*) ;;
    *) keys+=("${flag//-/_}") ;;
    esac
done < <("$SC" run --help | sed -n '/^card keys as flags/,$p' | sed -n 's/^  --\([a-z-]*\) .*/\1/p')
[ "${#keys[@]}" -gt 20 ] || fail "found only ${#keys[@]} card keys in run --help"
documented streamcard-card.5 "${keys[@]}"
grep -q '^\.SH SWEEPS' "$MAN/streamcard-card.5" || fail "no SWEEPS section"

# Every command of `streamcard --help`, every fixed run option, every controlled variable.
cmds=$("$SC" --help | sed -n 's/^  \([a-z]*\) .*/\1/p')
[ -n "$cmds" ] || fail "no commands in streamcard --help"
for c in $cmds; do
    grep -Eq "^\.B streamcard $c( |$)" "$MAN/streamcard.1" || fail "streamcard.1: no synopsis of $c"
done
while read -r opt; do
    grep -qF -- "${opt//-/\\-}" "$MAN/streamcard.1" || fail "streamcard.1 does not document run $opt"
done < <("$SC" run --help | sed -n '/^options:/,/^card keys/p' | sed -n 's/^  \(--[a-z-]*\).*/\1/p')
while read -r var _; do
    [ "$var" = variable ] && continue
    grep -qw -- "$var" "$MAN/streamcard.1" || fail "streamcard.1 does not name the variable $var"
done < <("$SC" compare --variables)

# Every plugstack.conf argument the policy parser knows, every callback the plugin defines.
args=$(grep -o 'strncmp(arg, "[a-z_]*"' "$SRC/spank/policy.c" | sed 's/.*"\(.*\)"/\1/')
[ -n "$args" ] || fail "no arguments found in spank/policy.c"
for a in $args; do
    grep -Eq "^\.(BI|BR) $a=" "$MAN/spank_streamcard.8" || fail "spank_streamcard.8 lacks $a="
done
for cb in $(sed -n 's/^int \(slurm_spank_[a-z_]*\)(.*/\1/p' "$SRC/spank/plugin.c"); do
    documented spank_streamcard.8 "$cb"
done

# cmake --install puts each page in its section (the man component alone here).
BUILD=$(dirname "$BIN")
cmake --install "$BUILD" --component man --prefix "$WORK/inst" >"$WORK/install.out" 2>&1 ||
    { cat "$WORK/install.out" >&2; fail "cmake --install"; }
# Compressed as Debian's policy wants them, each the page of contrib/man/.
for p in man1/streamcard.1 man5/streamcard-card.5 man8/spank_streamcard.8; do
    [ -s "$WORK/inst/share/man/$p.gz" ] || fail "cmake --install did not install share/man/$p.gz"
    gzip -dc "$WORK/inst/share/man/$p.gz" | cmp -s - "$MAN/${p#*/}" ||
        fail "share/man/$p.gz is not contrib/man/${p#*/}"
done
echo "ok: man"
