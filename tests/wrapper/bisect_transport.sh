#!/usr/bin/env bash
# git bisect run finds a gate regression: in a toy repository that holds an MPI card, one
# commit adds `OMPI_MCA_btl: tcp,self` to the card's env (the silent fall-back to TCP, over
# loopback). Each bisection step really runs the card with mpirun and classifies the run
# against a baseline of the first commit: the transport gate is an outcome gate, so the
# fall-back is bad (1), not skip, and the card's env, which lives in the bisected
# repository, counts as part of the revision because --allow env names it. Without
# --allow env the same run is skipped, naming env. Then the same history bisected on its
# gates alone (--gates-only): no figure is judged, so one run a step decides it.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }

repo="$WORK/repo"
# The card opens the interference gate (max_interference_pct: 100): this test runs beside
# others under ctest -j; tests/wrapper/interference.sh tests the gate. It has 6 runs, the
# fewest whose interval lets classify call a commit good (a failing run ends the series).
card() { # card good|bad: bad adds the TCP fall-back
    printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n'
    printf '  min_bytes: 1\n  max_bytes: 4096\n  iterations: 20\n  runs: 6\n'
    printf '  expect:\n    transport: shm\n    max_interference_pct: 100\n'
    if [ "$1" = bad ]; then
        printf '  env:\n    OMPI_MCA_btl: "tcp,self"\n    OMPI_MCA_btl_tcp_if_include: lo\n'
    fi
}
TCP="commit 4 adds the TCP fall-back"
toy_history "$repo" 4 "$TCP" card

# The baseline: the first commit's card.
git -C "$repo" show HEAD~5:card.yaml >"$WORK/base.yaml"
expect_status 0 "$SC" run "$WORK/base.yaml" --run-name base --output "$WORK/runs" --quiet
base=$(bundle_of "$WORK/out")

# A step classifies a separate series against the baseline's, so a series whose runs trend
# with their order is skipped as a drifting host (right: its interval says nothing then).
# The trend test of six runs flags p < 0.05 by chance in about one series of twenty, and a
# skipped step can leave the bisection undecided (seen in fresh roots: rho 0.89, p 0.033),
# so a step measures again after such a skip, as a user would, up to 3 series; only the
# last series' verdict is the step's (the others' lines go to drifted.out). When the trend
# is the baseline's own (A's: seen in CI, rho 1.00, p 0.003, every step of that bisection
# skipped), measuring the step again cannot help: the step measures the baseline again and
# every later step classifies against the new one (its path lives in base.path).
printf '%s\n' "$base" >"$WORK/base.path"
cat >"$WORK/step.sh" <<STEP
#!/bin/sh
# One bisection step: run this commit's card, then classify the run.
for try in 1 2 3; do
    base=\$(cat "$WORK/base.path")
    out=\$("$SC" run card.yaml --run-name step --output "$WORK/runs" --quiet 2>>"$WORK/steps.err")
    bundle=\$(printf '%s\n' "\$out" | sed -n 's/^BUNDLE=//p')
    [ -n "\$bundle" ] || exit 125
    verdict=\$("$SC" classify "\$bundle" --baseline "\$base" --allow env --metric bw_4KiB \
        --tolerance 99 --max-interference 100 2>&1)
    rc=\$?
    case \$rc:\$verdict in
    125:*"drifting host"*)
        [ \$try = 3 ] || {
            printf '%s\n' "\$verdict" >>"$WORK/drifted.out"
            case \$verdict in
            *"A's runs trend"*)
                "$SC" run "$WORK/base.yaml" --run-name base --output "$WORK/runs" --quiet \
                    2>>"$WORK/steps.err" | sed -n 's/^BUNDLE=//p' >"$WORK/base.new"
                [ -s "$WORK/base.new" ] && mv "$WORK/base.new" "$WORK/base.path" ;;
            esac
            continue
        } ;;
    esac
    printf '%s\n' "\$verdict"
    exit \$rc
done
STEP
chmod +x "$WORK/step.sh"

# Without --allow env, a run of the TCP commit proves nothing about the revision.
(cd "$repo" && "$SC" run card.yaml --run-name tcp --output "$WORK/runs" --quiet) \
    >"$WORK/tcp.out" 2>"$WORK/tcp.err" && fail "the TCP fall-back passed its gates"
tcp=$(bundle_of "$WORK/tcp.out")
expect_contains "$WORK/tcp.err" "expected transport shm, the data went over tcp"
expect_status 125 "$SC" classify "$tcp" --baseline "$base"
expect_contains "$WORK/out" "not comparable with the baseline: env (OMPI_MCA_btl, OMPI_MCA_btl_tcp_if_include) differs"
expect_status 1 "$SC" classify "$tcp" --baseline "$base" --allow env
expect_contains "$WORK/out" "outcome gates failed where the baseline held them: transport (expected transport shm, the data went over tcp; the selection was set by btl=tcp,self from the environment (rank 0: tcp"

bisect_blames "$repo" "$WORK/step.sh" "$WORK/bisect.out" "$TCP"
expect_contains "$WORK/bisect.out" "bad: step_"
expect_not_contains "$WORK/bisect.out" "skip: "

# --gates-only: the transport gate decides, with one run a step and no figure (a baseline
# of one run too). A run of the TCP commit is bad (1), one of a shared-memory commit good (0).
expect_status 0 "$SC" run "$WORK/base.yaml" --run-name base1 --runs 1 --output "$WORK/runs" --quiet
base1=$(bundle_of "$WORK/out")
expect_status 1 "$SC" classify "$tcp" --baseline "$base" --allow env --gates-only
expect_contains "$WORK/out" "gates that held on the baseline failed: transport (expected transport shm, the data went over tcp"
"$SC" run "$WORK/base.yaml" --run-name one --runs 1 --output "$WORK/runs" --quiet \
    >"$WORK/one.out" 2>>"$WORK/steps.err" || fail "a shared-memory run failed: $(cat "$WORK/steps.err")"
expect_status 0 "$SC" classify "$(bundle_of "$WORK/one.out")" --baseline "$base1" --allow env \
    --gates-only
expect_contains "$WORK/out" "every gate that held on the baseline holds"
cat >"$WORK/gates.sh" <<STEP
#!/bin/sh
# One bisection step on the gates alone: one run of this commit's card.
out=\$("$SC" run card.yaml --run-name gates --runs 1 --output "$WORK/runs" --quiet \
    2>>"$WORK/steps.err")
bundle=\$(printf '%s\n' "\$out" | sed -n 's/^BUNDLE=//p')
[ -n "\$bundle" ] || exit 125
exec "$SC" classify "\$bundle" --baseline "$base1" --allow env --gates-only
STEP
chmod +x "$WORK/gates.sh"
bisect_blames "$repo" "$WORK/gates.sh" "$WORK/gates.out" "$TCP"
expect_contains "$WORK/gates.out" "bad: gates_"
expect_contains "$WORK/gates.out" "gates that held on the baseline failed: transport"
expect_not_contains "$WORK/gates.out" "skip: "
echo "ok: bisect_transport"
