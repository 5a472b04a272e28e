#!/usr/bin/env bash
# Paired runs, what does not depend on this machine's speed: the card form (against:) and
# the command form (--against) make the same pair; each pair's order is the seed's, AB or
# BA, never a side's runs in a row; one sealed directory holds both sides and pair.json,
# which verify recomputes (a changed seed, order, figure, a run swapped between the sides,
# a side verified alone: each refused); a pair inside a --stream-card job is the job's
# bundle; two cards that differ in two keys are refused; compare and classify read a pair.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}

# A small ipsearch card: 3 pairs (no interval: the figures are not what this test is
# about). The interference gate is open: this test runs beside others under ctest -j.
card() { # card FILE [LINE...]: the card, each LINE added at the top level
    local file=$1
    shift
    {
        printf 'version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n  threads: 1\n'
        printf '  nb: 2000\n  nq: 50\n  dim: 32\n  iterations: 2\n  runs: 3\n'
        printf '  expect:\n    max_interference_pct: 100\n'
        [ $# -eq 0 ] || printf '%s\n' "$@"
    } >"$file"
}
card "$WORK/a.yaml"
card "$WORK/pair.yaml" 'against:' '  nb: 2200'
sed 's/  nb: 2000/  nb: 2200/' "$WORK/a.yaml" >"$WORK/b.yaml"
pair_of() { sed -n 's/^PAIR=//p' "$1" | tail -n 1; }
reseal_pair() { # reseal_pair DIR: the pair's SHA256SUMS over everything, as a forger would
    (cd "$1" && find . -type f ! -path ./SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
        xargs sha256sum >SHA256SUMS)
}

# The card form and the command form: one pair, the same order for one seed.
expect_status 0 "$SC" run "$WORK/pair.yaml" --seed 11 --output "$WORK/runs" --quiet
P1=$(pair_of "$WORK/out")
expect_status 0 "$SC" run "$WORK/a.yaml" --against "$WORK/b.yaml" --seed 11 --output "$WORK/runs" --quiet
P2=$(pair_of "$WORK/out")
[ -n "$P1" ] && [ -n "$P2" ] && [ "$P1" != "$P2" ] || fail "no two pairs: $P1 $P2"
[ "$(sed -n 's/^BUNDLE=//p' "$WORK/out" | tail -n 1)" = "$P2" ] || fail "the last BUNDLE= is not the pair"
for p in "$P1" "$P2"; do
    for f in a/run.conf b/run.conf a/run-3/stream.log b/run-3/stream.log pair.json card.yaml SHA256SUMS; do
        [ -f "$p/$f" ] || fail "$p lacks $f"
    done
    grep -qx 'pair_side=A' "$p/a/run.conf" || fail "$p/a is not side A"
    grep -qx 'pair_side=B' "$p/b/run.conf" || fail "$p/b is not side B"
    expect_status 0 "$SC" verify "$p"
    expect_contains "$WORK/out" "intact; both sides' gates recomputed from the raw files hold; 3 pairs in the order seed 11 gives"
done
python3 - "$P1" "$P2" <<'PY' || fail "the two forms differ"
import json, sys
r = [json.load(open(p + "/pair.json")) for p in sys.argv[1:]]
for k in ("seed", "order", "variable", "differs"):
    assert r[0][k] == r[1][k], (k, r[0][k], r[1][k])
assert r[0]["variable"] == "nb" and r[0]["differs"] == [{"name": "nb", "a": "2000", "b": "2200"}], r[0]
assert len(r[0]["order"]) == 3 and set(r[0]["order"]) <= {"AB", "BA"}, r[0]["order"]
PY
grep -q '^against:' "$P2/card.yaml" || fail "the command form's card.yaml has no against:"
grep -q '^  nb: 2200' "$P2/card.yaml" || fail "the command form's against: is not nb: 2200"

# The runs' own clocks are in the recorded order: side A's run i before side B's for AB.
python3 - "$P1" <<'PY' || fail "the runs did not begin in the recorded order"
import json, sys
p = sys.argv[1]
order = json.load(open(p + "/pair.json"))["order"]
t = lambda s, i: float(open("%s/%s/run-%d/main_loop.ready" % (p, s, i)).read().split("\n")[0].split("=")[1])
last = 0
for i, o in enumerate(order, 1):
    for s in (o[0].lower(), o[1].lower()):
        assert t(s, i) > last, (i, o, s)
        last = t(s, i)
PY

# The dry run says the order the seed gives, and runs nothing.
expect_status 0 "$SC" run "$WORK/pair.yaml" --seed 11 --dry-run
expect_contains "$WORK/out" "streamcard pair: variable nb; A and B take turns"
expect_contains "$WORK/out" "seed 11: $(python3 -c "import json; print(' '.join(json.load(open('$P1/pair.json'))['order']))")"

# Over many pairs the seed draws both orders: never every pair one way.
expect_status 0 "$SC" run "$WORK/pair.yaml" --seed 11 --dry-run
grep -Eq 'seed 11:( (AB|BA)){8}' "$WORK/out" || fail "no order: $(cat "$WORK/out")"
orders=$(sed -n 's/.*seed 11:\(.*\) \.\.\./\1/p' "$WORK/out")
case "$orders" in *AB*BA* | *BA*AB*) ;; *) fail "one order only: $orders" ;; esac

# verify holds pair.json to the sides' files.
tamper() { # tamper NAME PYTHON: a copy of P1 edited by PYTHON (r: pair.json), resealed
    rm -rf "$WORK/t_$1"
    cp -r "$P1" "$WORK/t_$1"
    python3 - "$WORK/t_$1" "$2" <<'PY'
import json, sys
d, code = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/pair.json"))
exec(code)
json.dump(r, open(d + "/pair.json", "w"))
PY
    reseal_pair "$WORK/t_$1"
    echo "$WORK/t_$1"
}
t=$(tamper seed 'r["seed"] = str(int(r["seed"]) + 1)')
expect_status 1 "$SC" verify "$t"
expect_contains "$WORK/err" "order is"
expect_contains "$WORK/err" "but the seed gives"
t=$(tamper ratio 'r["primary"]["ratio"] *= 1.01')
expect_status 1 "$SC" verify "$t"
expect_contains "$WORK/err" "pair.json: primary is not what the sides' files give"
t=$(tamper stopped 'r["stopped"] = "runs: 2 pairs done"')
expect_status 1 "$SC" verify "$t"
expect_contains "$WORK/err" "pair.json: stopped \"runs: 2 pairs done\", but the pairs show: runs: 3 pairs done"
t=$(tamper variable 'r["variable"] = "nq"')
expect_status 1 "$SC" verify "$t"
expect_contains "$WORK/err" "pair.json: variable nq, but the pair's card changes nb"
# A run swapped between the sides, each side resealed: the sides' cards and clocks say so.
rm -rf "$WORK/t_swap" && cp -r "$P1" "$WORK/t_swap"
mv "$WORK/t_swap/a/run-2" "$WORK/t_swap/x" && mv "$WORK/t_swap/b/run-2" "$WORK/t_swap/a/run-2" &&
    mv "$WORK/t_swap/x" "$WORK/t_swap/b/run-2"
for s in a b; do reseal "$WORK/t_swap/$s"; done
reseal_pair "$WORK/t_swap"
expect_status 1 "$SC" verify "$WORK/t_swap"
expect_contains "$WORK/err" "FAILED"
# A side alone is not evidence: its runs end by the pair's rule.
expect_status 1 "$SC" verify "$P1/a"
expect_contains "$WORK/err" "a side (A) of a paired run: its runs end by the pair's rule"

# compare and classify read the pair: side B against side A, pair by pair.
expect_status 0 "$SC" compare "$P1" --max-interference 100
expect_contains "$WORK/out" "paired run $P1: variable nb, 3 pairs"
expect_contains "$WORK/out" "ratio B/A: paired: Hodges-Lehmann ratio of B over A from the pairs' log ratios"
expect_contains "$WORK/out" "paired, variable nb: qps queries/s "
expect_contains "$WORK/out" "interval unavailable (3 and 3 runs; 6 a side give one): change unconfirmed"
expect_status 125 "$SC" classify "$P1" --allow nb --max-interference 100
expect_contains "$WORK/out" "interval unavailable: at least 6 runs a side"
expect_status 0 "$SC" classify "$P1" --allow nb --gates-only
expect_contains "$WORK/out" "every gate that held on the baseline holds"
expect_status 1 "$SC" compare "$WORK/t_ratio"
expect_contains "$WORK/err" "refused: 1 problems (pair.json: primary is not what the sides' files give"

# Two builds of one card (--against-kernel-dir): the pair's variable is the build, and the
# sides differ in the binary only.
mkdir -p "$WORK/k2"
cp "$STREAMCARD_KERNEL_DIR/streamcard-ipsearch" "$WORK/k2/"
printf '\0' >>"$WORK/k2/streamcard-ipsearch"
expect_status 0 "$SC" run "$WORK/a.yaml" --against-kernel-dir "$WORK/k2" --output "$WORK/runs" --quiet
PB=$(pair_of "$WORK/out")
expect_status 0 "$SC" verify "$PB"
python3 - "$PB" <<'PY' || fail "the build pair's record"
import json, sys
r = json.load(open(sys.argv[1] + "/pair.json"))
assert r["variable"] == "build", r["variable"]
assert [d["name"] for d in r["differs"]] == ["binary_sha256"], r["differs"]
PY
expect_status 2 "$SC" run "$WORK/a.yaml" --against "$WORK/b.yaml" --against-kernel-dir "$WORK/k2" \
    --output "$WORK/runs"
expect_contains "$WORK/err" "--against-kernel-dir: side B differs in nb already: a pair has one variable"

# A pair card inside a --stream-card job (the plugin's part played as in adopt.sh): the
# job's bundle holds the pair.
J="$WORK/job"
mkdir -p "$J"
cp "$WORK/pair.yaml" "$J/card.yaml"
in_job "$J" SLURM_JOB_ID=4242 "$SC" run --seed 5 --quiet >"$WORK/job.out" 2>"$WORK/job.err" ||
    { cat "$WORK/job.err" >&2; fail "the pair in a job failed"; }
[ "$(pair_of "$WORK/job.out")" = "$J" ] || fail "the job's pair is not its bundle: $(cat "$WORK/job.out")"
expect_status 0 "$SC" verify "$J"
# ... and refused when its card is not the one submitted.
J2="$WORK/job2"
mkdir -p "$J2"
cp "$WORK/pair.yaml" "$J2/card.yaml"
in_job "$J2" SLURM_JOB_ID=4243 sh -c 'echo "# edited" >>"$STREAMCARD_CARD"; exec "$0" run --quiet' "$SC" \
    >"$WORK/job2.out" 2>"$WORK/job2.err" && fail "an edited card ran"
expect_contains "$WORK/job2.err" "cannot hold the pair"

# What a pair cannot be: one line each, nothing runs.
card "$WORK/two.yaml"
sed -i 's/  nb: 2000/  nb: 2200/; s/  nq: 50/  nq: 60/' "$WORK/two.yaml"
expect_status 2 "$SC" run "$WORK/a.yaml" --against "$WORK/two.yaml" --output "$WORK/runs"
expect_contains "$WORK/err" "--against $WORK/two.yaml: differs from $WORK/a.yaml in 2 keys (nb, nq): a pair answers one question"
card "$WORK/twokeys.yaml" 'against:' '  nb: 2200' '  nq: 60'
expect_status 2 "$SC" run "$WORK/twokeys.yaml" --output "$WORK/runs"
expect_contains "$WORK/err" "against: changes 2 keys (nb, nq): a pair answers one question"
card "$WORK/gov.yaml" 'against:' '  governor: performance'
expect_status 2 "$SC" run "$WORK/gov.yaml" --output "$WORK/runs"
expect_contains "$WORK/err" "against: governor: the sides take turns in one job"
expect_status 2 "$SC" run "$WORK/pair.yaml" --against "$WORK/b.yaml" --output "$WORK/runs"
expect_contains "$WORK/err" "--against: $WORK/pair.yaml holds against: already"
expect_status 2 "$SC" run "$WORK/a.yaml" --against "$WORK/b.yaml" --seed -1 --output "$WORK/runs"
expect_contains "$WORK/err" "--seed: \"-1\" is not a whole number"
[ -z "$(find "$WORK/runs" -maxdepth 1 -newer "$J2" -name 'pair_*')" ] || fail "a refused pair ran"
echo "ok: pair_card"
