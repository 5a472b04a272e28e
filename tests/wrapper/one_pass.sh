#!/usr/bin/env bash
# One pass over a bundle (doc/contracts/bundle.md, "One pass"): verify, compare and report
# open each file of a bundle of several runs once, hashing the bytes they parse, instead of
# once per reader (the hash check, verify's runs, the facts). Counted with strace -f -y,
# which names the file each openat returned; skipped when strace is not installed or cannot
# trace here. Nothing is timed (tests/bench/analysis_cost.sh measures the cost).
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}
need_strace

small_card "$WORK/card.yaml" "" '  runs: 4'
run_card() { # run_card NAME: a bundle of the card's 4 runs
    expect_status 0 "$SC" run "$WORK/card.yaml" --run-name "$1" --output "$WORK/runs" --quiet
    bundle_of "$WORK/out"
}
A=$(run_card a)
B=$(run_card b)

# opens TRACE BUNDLE: "COUNT PATH" for every regular file of BUNDLE, COUNT the openat calls
# of TRACE that returned it (0 when none did).
opens() {
    local trace=$1 bundle=$2
    sed -n 's/.*openat(.*= [0-9][0-9]*<\(.*\)>$/\1/p' "$trace" | grep -F "$bundle/" |
        sort | uniq -c >"$WORK/counts"
    find "$bundle" -type f | sort | while read -r f; do
        n=$(awk -v p="$f" '$2 == p { print $1 }' "$WORK/counts")
        echo "${n:-0} $f"
    done
}

# once NAME CMD...: CMD, traced, must open every file of A (and of B when CMD names it) once.
once() {
    local name=$1 bad
    shift
    # LeakSanitizer cannot run under ptrace (a sanitized build): the opens are this test's.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -y -e trace=openat -o "$WORK/$name.trace" "$@" >"$WORK/out" 2>"$WORK/err" ||
        fail "$name: exit status $?: $(cat "$WORK/err")"
    for b in "$A" "$B"; do
        case " $* " in *" $b "*) ;; *) continue ;; esac
        bad=$(opens "$WORK/$name.trace" "$b" | awk '$1 != 1')
        [ -z "$bad" ] || fail "$name: files of $(basename "$b") not opened once (count, file):
$bad"
    done
    echo "$name: each of $(find "$A" -type f | wc -l) files per bundle opened once"
}

once verify "$SC" verify "$A"
once compare "$SC" compare "$A" "$B"
once report "$SC" report "$A" "$B" -o "$WORK/page.html"
[ -s "$WORK/page.html" ] || fail "report wrote no page"
echo "PASS: one pass over a bundle"
