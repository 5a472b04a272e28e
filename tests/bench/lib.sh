# shellcheck shell=bash disable=SC2034 # sourced: the scripts use what it sets
# tests/bench/lib.sh: what the benchmark scripts share. Sourced, not run; the script sets
# BENCH_NAME (its messages' prefix) first.
#
#   BENCH_SRC                   the source tree (two folders above this file)
#   bench_die MESSAGE...        "<BENCH_NAME>: MESSAGE" on stderr, exit 2
#   bench_help SCRIPT           prints SCRIPT's header comment (its --help)
#   bench_posint VALUE...       dies unless every VALUE is a positive integer
#   bench_need TOOL HOW         dies with "TOOL: not found (HOW)" when TOOL is not on PATH
#   bench_machine               one line: CPU model (vendor, family, model), widest SIMD ISA,
#                               cpus, kernel
#   bench_load                  the load average (1, 5 and 15 minutes)
#   bench_a_first ROUND         true when round ROUND runs its first tool first: odd rounds
#                               run the tools in the given order, even rounds in reverse, so
#                               every pair of tools is measured in both orders
#   bench_in_order ROUND TOOL...  the tools in round ROUND's order, one a line
#   bench_stats VALUES...       "median min max" of the values (3 decimals)
#   bench_ratio_line LABEL VALUES...
#                               "LABEL  median [min-max] (N pairs)"
# The figures these scripts print come from a machine shared with whatever else runs: each
# prints the load before and after, and ratios of interleaved pairs rather than the rates.

BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

bench_die() {
    echo "${BENCH_NAME:-bench}: $*" >&2
    exit 2
}

bench_help() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$1"
}

bench_posint() {
    local v
    for v in "$@"; do
        [[ $v =~ ^[1-9][0-9]*$ ]] || bench_die "$v: not a positive integer"
    done
}

bench_need() {
    command -v "$1" >/dev/null || bench_die "$1: not found ($2)"
}

# The CPU as /proc/cpuinfo names it (a VM's model name can be generic: vendor, family and
# model say which part it is) and the widest SIMD the CPU and kernel offer.
bench_machine() {
    local model vendor family num isa=unknown flags
    model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    vendor=$(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -1)
    family=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)
    num=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
    flags=" $(sed -n 's/^\(flags\|Features\)[[:space:]]*: //p' /proc/cpuinfo | head -1) "
    for f in avx512f avx2 avx sse2 sve asimd; do
        case $flags in *" $f "*) isa=$f && break ;; esac
    done
    echo "cpu: ${model:-$(uname -m)} (${vendor:-?} family ${family:-?} model ${num:-?})," \
        "widest SIMD: $isa, $(nproc) cpus, $(uname -sr)"
}

bench_load() {
    cut -d' ' -f1-3 /proc/loadavg
}

bench_a_first() {
    [ $(($1 % 2)) -eq 1 ]
}

bench_in_order() {
    local round=$1
    shift
    if bench_a_first "$round"; then
        printf '%s\n' "$@"
    else
        printf '%s\n' "$@" | tac
    fi
}

bench_stats() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

bench_ratio_line() {
    local label=$1 med lo hi
    shift
    [ $# -gt 0 ] || { printf '  %-34s -\n' "$label"; return; }
    read -r med lo hi < <(bench_stats "$@")
    printf '  %-34s %s [%s-%s] (%d pairs)\n' "$label" "$med" "$lo" "$hi" $#
}
