#!/usr/bin/env bash
# The command line: --dry-run writes nothing, bad cards exit 2 with one line per problem,
# flags make or override the card, --help and unknown options.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
mkdir "$WORK/empty"
cd "$WORK/empty"

expect_status 0 "$SC" run --workload stream --kernel copy --cpu-list 0-1 --threads 2 --dry-run
for word in "workload:    stream, kernel copy" "binary:      $BIN/streamcard-stream" \
            "CPUs:        0-1 (2 CPUs)" "threads:     2" "memory node: not bound" \
            "prefetch:    unchanged" "governor:    unchanged" "output:      ." \
            "DRY-RUN complete; no files written."; do
    expect_contains "$WORK/out" "$word"
done
[ -z "$(ls -A "$WORK/empty")" ] || fail "--dry-run wrote files"

# The example cards: the standalone ones pass their dry run on this machine; every one
# says what it needs from Slurm (the sweep of prefetch needs the whole node).
for card in stream-copy ipsearch mpi-pingpong; do
    expect_status 0 "$SC" run "$SRC/contrib/cards/$card.yaml" --dry-run
done
expect_status 0 "$SC" resources "$SRC/contrib/cards/prefetch-sweep.yaml"
expect_contains "$WORK/out" "exclusive=yes"
expect_status 0 "$SC" resources "$SRC/contrib/cards/mpi-two-nodes.yaml"
expect_contains "$WORK/out" "nodes=scn[1-2]"

# Every problem of a bad card, one line each, naming field, line and what is valid.
cat >"$WORK/bad.yaml" <<'CARD'
version: 1
experiment:
  workload: stream
  cpu_list: 0-1
  threads: 17
  thread: 2
  memory_node: 7
  prefetch: sometimes
CARD
expect_status 2 "$SC" run "$WORK/bad.yaml" --dry-run
expect_contains "$WORK/err" "bad.yaml:6: unknown key \"thread\" (did you mean threads?)"
expect_contains "$WORK/err" "bad.yaml:8: prefetch: \"sometimes\" is not allowed (valid: on, off, unchanged)"
# Key and value errors come together with the rules that need the whole card.
expect_contains "$WORK/err" "bad.yaml:5: threads: 17 is more than the 2 CPUs of cpu_list 0-1"
expect_contains "$WORK/err" "bad.yaml:7: memory_node: 7 is not a NUMA node with memory on"
expect_line_count "$WORK/err" 4
cat >"$WORK/bad2.yaml" <<'CARD'
version: 1
experiment:
  workload: stream
  cpu_list: 0-1
  threads: 17
  memory_node: 7
CARD
expect_status 2 "$SC" run "$WORK/bad2.yaml" --dry-run
expect_contains "$WORK/err" "bad2.yaml:5: threads: 17 is more than the 2 CPUs of cpu_list 0-1 (valid: 1-2)"
expect_contains "$WORK/err" "bad2.yaml:6: memory_node: 7 is not a NUMA node with memory on"
expect_line_count "$WORK/err" 2
expect_status 2 "$SC" run --workload stream --cpu-list 3-1 --dry-run
expect_contains "$WORK/err" "--cpu-list: cpu_list: \"3-1\" is a reversed range"
expect_line_count "$WORK/err" 1
# A refused value is one line, with its line number: the rules then say nothing more about it.
printf 'version: 1\nexperiment:\n  workload: stream\n  cpu_list: 3-1\n' >"$WORK/reversed.yaml"
expect_status 2 "$SC" run "$WORK/reversed.yaml" --dry-run
expect_contains "$WORK/err" "reversed.yaml:4: cpu_list: \"3-1\" is a reversed range (write low-high) (valid: Linux cpulist such as 0-3,8,10-11)"
expect_line_count "$WORK/err" 1
# A bad option or flag does not hide the card's problems: every one is reported.
expect_status 2 "$SC" run --workload ipsearch --cpu-list 0 --dim 0 --k 200 --nb 100 \
    --timeout soon --dry-run
expect_contains "$WORK/err" "--timeout: \"soon\" is not a positive number of seconds"
expect_contains "$WORK/err" "--dim: dim: \"0\" is not in range (valid: 1-65536)"
expect_contains "$WORK/err" "--k: k: 200 is more than the 100 database vectors nb (valid: 1-100)"
expect_line_count "$WORK/err" 3
expect_status 2 "$SC" run "$WORK/bad2.yaml" --iterations 1 --dry-run
expect_contains "$WORK/err" "--iterations: iterations: \"1\" is not in range (valid: 2-1000000000)"
expect_contains "$WORK/err" "bad2.yaml:5: threads: 17 is more than the 2 CPUs of cpu_list 0-1"
expect_contains "$WORK/err" "bad2.yaml:6: memory_node: 7 is not a NUMA node with memory on"
expect_line_count "$WORK/err" 3
expect_status 2 "$SC" run --workload stream --cpu-list 0 --array-size 400000000000 --dry-run
expect_contains "$WORK/err" "array_size: 400000000000 needs"
expect_contains "$WORK/err" "(valid: at most"
expect_status 2 "$SC" run --workload stream --cpu-list 0 --prefetch off --dry-run
if [ "$(id -u)" -eq 0 ] && [ ! -e /dev/cpu/0/msr ]; then # root reads it back, when it can
    expect_contains "$WORK/err" "prefetch: off cannot be read back here, so it cannot be checked"
    expect_contains "$WORK/err" "(is the msr module loaded?)"
elif [ "$(id -u)" -ne 0 ]; then
    expect_contains "$WORK/err" "prefetch: off needs the streamcard SPANK plugin"
    expect_contains "$WORK/err" "or streamcard run as root to read it back as it is"
fi
expect_status 2 "$SC" run "$WORK/nonexistent.yaml"
expect_contains "$WORK/err" "nonexistent.yaml: cannot read the card: No such file or directory"
expect_status 2 "$SC" run --bogus
expect_contains "$WORK/err" "--bogus: unknown option"
expect_status 2 "$SC" run
expect_contains "$WORK/err" "no card"
# A mistyped option: one line naming the closest option, and its value is taken as the
# value of the option meant, not as a second card ("only one card per run").
CARD="$SRC/contrib/cards/stream-copy.yaml"
expect_status 2 "$SC" run "$CARD" --ouput runs --dry-run
expect_contains "$WORK/err" "streamcard: --ouput: unknown option (did you mean --output?) (see streamcard run --help)"
expect_line_count "$WORK/err" 1
expect_status 2 "$SC" run --ouput=runs "$CARD" --dry-run
expect_contains "$WORK/err" "--ouput=runs: unknown option (did you mean --output?)"
expect_line_count "$WORK/err" 1
expect_status 2 "$SC" run "$CARD" --threds 1 --dry-run
expect_contains "$WORK/err" "--threds: unknown option (did you mean --threads?)"
expect_line_count "$WORK/err" 1
# Far from every option: its word may still be its value; nothing more is said.
expect_status 2 "$SC" run --bogus x "$CARD" --dry-run
expect_contains "$WORK/err" "--bogus: unknown option (see streamcard run --help)"
expect_line_count "$WORK/err" 1
# Every other command the same way (classify exits 128 for usage: git bisect run's abort).
for mistake in "verify --kyes k B|verify: --kyes: unknown option (did you mean --keys?)" \
    "keygen --ot DIR|keygen: --ot: unknown option (did you mean --out?)" \
    "export --in-totto B|export: --in-totto: unknown option (did you mean --in-toto?)" \
    "export --in-toto --ouptut F B|export: --ouptut: unknown option (did you mean --output?)" \
    "export --promethues B|export: --promethues: unknown option (did you mean --prometheus?)" \
    "resources --hepl|resources: --hepl: unknown option (did you mean --help?)" \
    "compare --independant x A B|compare: --independant: unknown option (did you mean --independent?)" \
    "classify B --baseline A --tolerence 5|classify: --tolerence: unknown option (did you mean --tolerance?)" \
    "report B --ouptut F|report: --ouptut: unknown option (did you mean --output?)" \
    "health --hlep|health: --hlep: unknown option (did you mean --help?)" \
    "verfy B|verfy: unknown command (did you mean verify?)"; do
    read -r -a words <<<"${mistake%%|*}"
    status=2
    [ "${words[0]}" != classify ] || status=128
    expect_status "$status" "$SC" "${words[@]}"
    expect_contains "$WORK/err" "streamcard: ${mistake#*|}"
    expect_line_count "$WORK/err" 1
done
# A card key in the wrong section is named with where it belongs.
printf 'version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0\n  max_interference_pct: 5\n' >"$WORK/section.yaml"
expect_status 2 "$SC" run "$WORK/section.yaml" --dry-run
expect_contains "$WORK/err" "section.yaml:5: max_interference_pct: belongs under expect:, not under experiment: (move it there)"
expect_line_count "$WORK/err" 1
[ -z "$(ls -A "$WORK/empty")" ] || fail "a refused card wrote files"

# pairs: all without ranks: the plan shows the ranks the launcher is given, not 0.
printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0\n  pairs: all\n' >"$WORK/pairs.yaml"
if command -v mpirun >/dev/null; then
    expect_status 0 env -u SLURM_JOB_ID "$SC" run "$WORK/pairs.yaml" --dry-run
    expect_contains "$WORK/out" "ranks:       2, on this host's cpu_list (pairs: all; under Slurm one per node of the job)"
    expect_contains "$WORK/out" "mpirun -np 2 "
fi

# Flags override the card; the bundle's card.yaml is then the resolved card.
expect_status 0 "$SC" run "$SRC/contrib/cards/stream-copy.yaml" --threads 1 --cpu-list 1 \
    --array-size 100000 --cache-resident accept --iterations 3 --expect-max-interference 100 \
    --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "card_origin=file+flags"
expect_contains "$B/card.yaml" "threads: 1"
expect_contains "$B/card.yaml" "cpu_list: 1"
expect_contains "$B/threads_at_ready.txt" " 1 "
expect_status 0 "$SC" verify "$B"

# What a card needs from Slurm (read by the cli_filter at submit time).
expect_status 0 "$SC" resources "$SRC/contrib/cards/stream-copy.yaml"
expect_contains "$WORK/out" "cpus=2"
expect_contains "$WORK/out" "exclusive=no"
printf 'version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0-3,8\n  prefetch: off\n' >"$WORK/pf.yaml"
expect_status 0 "$SC" resources "$WORK/pf.yaml"
expect_contains "$WORK/out" "cpus=5"
expect_contains "$WORK/out" "exclusive=yes"
expect_status 2 "$SC" resources "$WORK/bad2.yaml"
expect_contains "$WORK/err" "threads: 17 is more than"

expect_status 0 "$SC" --help
expect_contains "$WORK/out" "verify BUNDLE"
expect_status 0 "$SC" run --help
expect_contains "$WORK/out" "--cpu-list"
expect_status 2 "$SC" frobnicate
expect_contains "$WORK/err" "frobnicate: unknown command"
echo "ok: cli"
