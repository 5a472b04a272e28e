# shellcheck shell=bash disable=SC2034 # sourced: the scripts use what it sets
# tests/bench/pingpong_lib.sh: what the ping-pong benches (pingpong_vs_hpcc.sh,
# pingpong_vs_imb.sh) share. Sourced after lib.sh, with BIN (streamcard-pingpong), PLAIN
# (pingpong_plain), MPIRUN_ARGS, TMP and DATA set.
#
#   pp_defaults              the defaults of the options every ping-pong bench takes
#   pp_option OPTION VALUE   takes one of those (--bin --plain --rounds --iterations
#                            --lat-iterations --mpirun-args); false for any other
#   pp_launch_setup          LAUNCH: the one mpirun command line every tool runs under (two
#                            ranks, one a core, btl_base_verbose 1, then MPIRUN_ARGS), so
#                            every tool gets the same transport; as root, Open MPI's consent
#   pp_btl_of FILE           the BTL Open MPI's BML chose for the peer, from its verbose lines
#                            (none with a PML other than ob1)
#   pp_metric BYTES          the metric's name: lat8, bw1MiB, bw2MB, bw4MiB (bw<B>B else)
#   pp_rows ROUND TOOL       reads "bytes t_mean MBps_mean [t_best MBps_best]" lines and
#                            appends "round tool metric stat value" rows to $DATA: the half
#                            round trip in usec at 8 bytes, MB/s (1e6 B) at the others
#   pp_streamcard ROUND ARGS...   one streamcard-pingpong run into $DATA (mean and fastest
#                            batch); sets SC_TRANSPORT (its probe's verdict) and SC_BTL
#   pp_plain ROUND TOOL ARGS...   one pingpong_plain run (tests/mpi/pingpong_plain.c: the
#                            same repetitions, warm-up and batches as streamcard) into $DATA
#                            as TOOL; sets PLAIN_BTL
#   pp_value ROUND TOOL METRIC STAT   that row's value, empty when there is none; ROUND
#                            "all": every round's, one a line
MIB=1048576

pp_defaults() {
    BIN=$BENCH_SRC/build/bin/streamcard-pingpong
    PLAIN=$BENCH_SRC/build/bin/pingpong_plain
    ITERATIONS=1000       # round trips per bandwidth size, before the 40 MiB rule
    LAT_ITERATIONS=200000 # round trips at 8 bytes
    MPIRUN_ARGS=""
}

pp_option() {
    local var
    case $1 in
    --bin) var=BIN ;;
    --plain) var=PLAIN ;;
    --rounds) var=ROUNDS ;;
    --iterations) var=ITERATIONS ;;
    --lat-iterations) var=LAT_ITERATIONS ;;
    --mpirun-args) var=MPIRUN_ARGS ;;
    *) return 1 ;;
    esac
    [ $# -ge 2 ] || bench_die "$1: needs a value"
    printf -v "$var" '%s' "$2"
}

pp_launch_setup() {
    bench_need mpirun "Debian: apt-get install openmpi-bin libopenmpi-dev"
    [ -x "$BIN" ] || bench_die "$BIN: not executable (build first, or pass --bin)"
    [ -x "$PLAIN" ] || bench_die "$PLAIN: not executable (built with the tests; or pass --plain)"
    bench_need python3 "Debian: apt-get install python3"
    [ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # shellcheck disable=SC2206 # the extra options are meant to split
    LAUNCH=(mpirun -np 2 --bind-to core --map-by core --mca btl_base_verbose 1 $MPIRUN_ARGS)
}

pp_btl_of() {
    sed -n 's/.*mca: bml: Using \([a-z0-9_]*\) btl for send to .*/\1/p' "$1" | grep -vx self |
        sort -u | tr '\n' ',' | sed 's/,$//'
}

pp_metric() {
    case $1 in
    8) echo lat8 ;;
    "$MIB") echo bw1MiB ;;
    2000000) echo bw2MB ;;
    "$((4 * MIB))") echo bw4MiB ;;
    *) echo "bw${1}B" ;;
    esac
}

pp_rows() {
    local round=$1 tool=$2 bytes t_mean bw_mean t_best bw_best m
    while read -r bytes t_mean bw_mean t_best bw_best; do
        m=$(pp_metric "$bytes")
        if [ "$m" = lat8 ]; then
            echo "$round $tool $m mean $t_mean"
            [ -z "$t_best" ] || echo "$round $tool $m best $t_best"
        else
            echo "$round $tool $m mean $bw_mean"
            [ -z "$bw_best" ] || echo "$round $tool $m best $bw_best"
        fi
    done >>"$DATA"
}

pp_streamcard() {
    local round=$1
    shift
    "${LAUNCH[@]}" "$BIN" "$@" --json "$TMP/sc.json" >"$TMP/sc.out" 2>"$TMP/sc.err" ||
        bench_die "streamcard-pingpong $* failed: $(tail -3 "$TMP/sc.out" "$TMP/sc.err")"
    grep -q '^Solution Validates' "$TMP/sc.out" || bench_die "streamcard-pingpong did not validate"
    python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["metrics"]["sizes"]:
    print(s["bytes"], s["t_usec"], s["MBps"], s["t_min_usec"], s["MBps_max"])' "$TMP/sc.json" |
        pp_rows "$round" streamcard
    SC_TRANSPORT=$(sed -n 's/^TRACE_TRANSPORT //p' "$TMP/sc.out")
    SC_BTL=$(pp_btl_of "$TMP/sc.err")
}

pp_plain() {
    local round=$1 tool=$2
    shift 2
    "${LAUNCH[@]}" "$PLAIN" "$@" >"$TMP/plain.out" 2>"$TMP/plain.err" ||
        bench_die "plain loop $* failed: $(tail -3 "$TMP/plain.err")"
    sed -n 's/^PLAIN //p' "$TMP/plain.out" | pp_rows "$round" "$tool"
    PLAIN_BTL=$(pp_btl_of "$TMP/plain.err")
}

pp_value() {
    awk -v r="$1" -v t="$2" -v m="$3" -v s="$4" \
        '(r == "all" || $1 == r) && $2 == t && $3 == m && $4 == s { print $5 }' "$DATA"
}
