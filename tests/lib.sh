# lib.sh: helpers for the shell tests. Source it; every helper fails the test loudly.
# Usage in a test: . "$SRC/tests/lib.sh"; then use fail/expect_* and the $WORK directory.

set -euo pipefail

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_contains FILE TEXT: FILE holds TEXT (fixed string).
expect_contains() {
    grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 lacks: $2"; }
}

expect_not_contains() {
    if grep -qF -- "$2" "$1"; then
        echo "--- $1:" >&2; cat "$1" >&2; fail "$1 holds: $2"
    fi
}

# expect_line_count FILE N: FILE has exactly N lines (one per problem, none extra).
expect_line_count() {
    local got
    got=$(wc -l <"$1")
    [ "$got" -eq "$2" ] || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1: $got lines, expected $2"; }
}

# expect_status N CMD...: CMD exits with status N (output kept in $WORK/out, $WORK/err).
expect_status() {
    local want=$1; shift
    local got=0
    "$@" >"$WORK/out" 2>"$WORK/err" || got=$?
    if [ "$got" != "$want" ]; then
        echo "--- stdout:" >&2; cat "$WORK/out" >&2
        echo "--- stderr:" >&2; cat "$WORK/err" >&2
        fail "exit status $got, expected $want: $*"
    fi
}

# verdict_name: stdin's lines reduced to the comparison verdict that ends them (one of
# sc_stats_verdict_name's names; "drifting host: use --against" holds a colon itself).
verdict_name() {
    grep -oE '(B faster|B slower|no detectable difference|too noisy to tell|contaminated|drifting host: use --against|unconfirmed)$' || true
}

# bundle_of FILE: the BUNDLE= path printed into FILE.
bundle_of() {
    local b
    b=$(sed -n 's/^BUNDLE=//p' "$1" | tail -n 1)
    [ -n "$b" ] && [ -d "$b" ] || fail "no BUNDLE= directory in $1"
    echo "$b"
}

# json_key FILE KEY: the top-level KEY of the JSON file FILE ("" when absent).
json_key() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' \
        "$1" "$2"
}

WORK=$(mktemp -d /tmp/streamcard-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Open MPI 4.1's session directory (mpirun, also under streamcard run) in the test's own
# folder: two mpiruns that start at the same moment (ctest -j) race to create
# /tmp/ompi.<host>.<uid>, and the loser fails ("mkdir ... File exists").
export OMPI_MCA_orte_tmpdir_base="$WORK"

# iterations_for SECONDS KIND ARGS...: how many iterations make the main loop of the kernel
# KIND (stream or ipsearch, in $STREAMCARD_KERNEL_DIR or $BIN) with ARGS last at least
# SECONDS on this CPU, measured by a short run of the kernel itself (the fastest repetition
# of STREAM's first kernel; ipsearch's fastest search), at least 5; said on stderr. The
# caller's environment sizes it (OMP_NUM_THREADS=1 iterations_for ... for one thread). A test sized
# in elements on one CPU is too short on the next: a test that needs a main loop of a given
# length sizes it so.
iterations_for() {
    local secs=$1 kind=$2 dir=${STREAMCARD_KERNEL_DIR:-$BIN} each n
    shift 2
    case $kind in
    stream)
        each=$("$dir/streamcard-stream" "$@" --iterations 5 |
            awk '/^(Copy|Scale|Add|Triad):/ { print $4; exit }') ;;
    ipsearch)
        each=$("$dir/streamcard-ipsearch" "$@" --iterations 3 |
            sed -n 's/^qps=[0-9.]* wall_seconds=\([0-9.]*\) .*/\1/p' | tail -n 1) ;;
    *) fail "iterations_for: no kernel $kind" ;;
    esac
    [ -n "$each" ] || fail "iterations_for: $kind $* printed no time per iteration"
    n=$(awk -v s="$secs" -v e="$each" 'BEGIN { n = e > 0 ? int(s / e) + 1 : 1000000
                                               if (n < 5) n = 5; if (n > 1000000) n = 1000000
                                               print n }')
    echo "$kind $*: $each s per iteration here, $n iterations for a main loop of $secs s" >&2
    echo "$n"
}

# sysroot_or_skip: a test of in_sysroot below starts with it: skips (77) unless root can make
# a mount namespace, then sets ROOT=$WORK/sysroot with its sys and proc, and a home of its own.
sysroot_or_skip() {
    if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
        echo "SKIP: needs root, for a mount namespace of its own"
        exit 77
    fi
    ROOT=$WORK/sysroot
    mkdir -p "$ROOT/sys" "$ROOT/proc" "$WORK/home"
}

# msr CPU VALUE: in a sysroot_or_skip test, register 0x1a4 (offset 420) of CPU's fake msr
# device under $ROOT holds VALUE (0x0-0xf), the rest of its 8 bytes 0.
msr() {
    mkdir -p "$ROOT/dev/cpu/$1"
    # shellcheck disable=SC2059 # the format is the value's byte, on purpose
    printf "\\x0$(printf %x "$2")\\0\\0\\0\\0\\0\\0\\0" |
        dd of="$ROOT/dev/cpu/$1/msr" bs=1 seek=420 conv=notrunc status=none
}

# in_sysroot ROOT CPUINFO CMD...: CMD with STREAMCARD_SYSROOT=ROOT in a new mount namespace
# where ROOT/sys is this machine's sysfs, ROOT/proc its /proc and ROOT/proc/cpuinfo the file
# CPUINFO (root only; ROOT/sys and ROOT/proc must exist): a machine the test describes, read
# through the sysroot like the real one.
in_sysroot() {
    # shellcheck disable=SC2016 # the inner shell expands them
    unshare -m sh -c '
        set -e
        root=$1 cpuinfo=$2; shift 2
        mount --make-rprivate /
        mount -t sysfs sysfs "$root/sys"
        mount --bind /proc "$root/proc"
        mount --bind "$cpuinfo" "$root/proc/cpuinfo"
        STREAMCARD_SYSROOT=$root exec "$@"' sh "$@"
}

# claim_other_figure BUNDLE METRIC: results.json claims twice the figure METRIC the log
# shows, resealed as a forger would; verify must refuse it naming the metric.
claim_other_figure() {
    python3 - "$1" "$2" <<'PY'
import json, sys
p = sys.argv[1] + "/results.json"
r = json.load(open(p))
r["metrics"][sys.argv[2]] *= 2
json.dump(r, open(p, "w"))
PY
    reseal "$1"
    expect_status 1 "$BIN/streamcard" verify "$1"
    expect_contains "$WORK/err" "results.json: $2"
}

# reseal BUNDLE: rewrites SHA256SUMS over the bundle's files as they are now, as a forger
# would, so that only the consistency checks can tell.
reseal() {
    (cd "$1" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
        xargs sha256sum >SHA256SUMS)
}

# python_with MODULE: prints a python3 that can import MODULE (the Debian package's module
# is in /usr/bin/python3's path, which may not be the first python3 in PATH); "" when none.
python_with() {
    local p
    for p in python3 /usr/bin/python3; do
        if command -v "$p" >/dev/null && "$p" -c "import $1" 2>/dev/null; then
            echo "$p"
            return
        fi
    done
}

# expect_failed_bundle BUNDLE [GATE]: a failed run's bundle: what was written is hashed
# (sha256sum -c), its verdict is failed (and GATE's run.conf key 0, when given), and verify
# finds it intact but refuses the run. Needs $BIN (where streamcard is).
expect_failed_bundle() {
    (cd "$1" && sha256sum --quiet -c SHA256SUMS) || fail "$1: what was written is not hashed"
    grep -qx "verdict=failed" "$1/run.conf" || fail "$1: verdict is not failed"
    [ -z "${2:-}" ] || expect_contains "$1/run.conf" "$2=0"
    "$BIN/streamcard" verify "$1" >"$WORK/verify.out" 2>&1 && fail "$1: verify accepted it"
    expect_contains "$WORK/verify.out" "the bundle is intact and consistent, but the run FAILED"
}

# need_strace: skips the test (77) unless strace is installed and may trace here (the tests
# that count a command's opens of files).
need_strace() {
    command -v strace >/dev/null || { echo "SKIP: strace is not installed (it counts the opens)"; exit 77; }
    strace -f -o /dev/null true 2>/dev/null ||
        { echo "SKIP: strace cannot trace here (ptrace refused: kernel.yama.ptrace_scope?)"; exit 77; }
}

# small_card FILE PREFETCH [LINE...]: the small STREAM card of the shell tests (no prefetch
# line when PREFETCH is ""); each LINE is added under experiment: as it is (indent included).
# Its 0.8 MiB arrays are accepted as cache-resident, and the interference gate is opened:
# these tests run beside others under ctest -j (tests/wrapper/interference.sh tests the gate).
small_card() {
    local file=$1 prefetch=$2
    shift 2
    {
        printf 'version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n'
        printf '  cpu_list: 0-1\n  threads: 2\n'
        [ -z "$prefetch" ] || printf '  prefetch: %s\n' "$prefetch"
        printf '  array_size: 100000\n  cache_resident: accept\n  iterations: 3\n'
        [ $# -eq 0 ] || printf '%s\n' "$@"
        printf '  expect:\n    max_interference_pct: 100\n'
    } >"$file"
}

# plugin_bundle DIR PREFETCH OBSERVED [VALID]: what the SPANK plugin leaves in a job's bundle
# before the job runs (the plugin's part played by the test): the card asking for PREFETCH,
# the readback OBSERVED (VALID: 1 unless given) of its CPUs 0-1 and a control log. RUN is
# what the plugin signs beside the readback (the run a restore must name).
plugin_bundle() {
    mkdir -p "$1/prefetch/state" "$1/platform"
    small_card "$1/card.yaml" "$2"
    plugin_state "$1/prefetch/state/state.env" "$2" "$3" "${4:-1}"
    echo "plugin: wrote MSR 0x1a4" >"$1/prefetch/control.log"
}

# plugin_state FILE PREFETCH OBSERVED [VALID]: the readback as plugin_bundle writes it.
plugin_state() {
    printf 'REQUESTED_PREFETCH=%s\nOBSERVED_STATE=%s\nSTATE_VALID=%s\nREQUESTED_GOVERNOR=unchanged\nCPUS=0-1\nRUN=0-1700000000\n' \
        "${2:-unchanged}" "$3" "${4:-1}" >"$1"
}

# in_job DIR CMD...: CMD with the variables the plugin exports to a job whose bundle is DIR.
in_job() {
    local d=$1
    shift
    env STREAMCARD_BUNDLE="$d" STREAMCARD_CARD="$d/card.yaml" \
        STREAMCARD_CARD_SHA256="$(sha256sum <"$d/card.yaml" | cut -d' ' -f1)" "$@"
}

# toy_history REPO BAD MESSAGE CARD: a git repository of 6 commits (a card.yaml and a notes
# file), card.yaml the output of "CARD good" before commit BAD and of "CARD bad" from it
# on, commit BAD's message MESSAGE (the others "commit <i>"): what a bisection searches.
toy_history() {
    local repo=$1 bad=$2 message=$3 card=$4 i msg
    git init -q "$repo"
    git -C "$repo" config user.email t@example.org
    git -C "$repo" config user.name test
    for i in 1 2 3 4 5 6; do
        if [ "$i" -ge "$bad" ]; then "$card" bad; else "$card" good; fi >"$repo/card.yaml"
        echo "change $i" >"$repo/notes"
        git -C "$repo" add card.yaml notes
        msg="commit $i"
        [ "$i" = "$bad" ] && msg=$message
        git -C "$repo" commit -q -m "$msg"
    done
}

# bisect_blames REPO STEP OUT MESSAGE: git bisect run of STEP over REPO's six commits (its
# output in OUT) blames the commit whose message is MESSAGE; the bisection is reset after.
bisect_blames() {
    local repo=$1 step=$2 out=$3 message=$4 first_bad
    (cd "$repo" && git bisect start HEAD HEAD~5 >/dev/null && git bisect run "$step" >"$out" 2>&1) ||
        { cat "$out" >&2; fail "git bisect run $step"; }
    first_bad=$(git -C "$repo" rev-parse refs/bisect/bad)
    [ "$(git -C "$repo" log -1 --format=%s "$first_bad")" = "$message" ] ||
        { cat "$out" >&2; fail "$step blamed $(git -C "$repo" log -1 --format=%s "$first_bad")"; }
    expect_contains "$out" "is the first bad commit"
    git -C "$repo" bisect reset >/dev/null 2>&1
}
