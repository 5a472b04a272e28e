#!/usr/bin/env bash
# health_scale.sh BUILD_DIR: what judging a link matrix costs from 8 to 4096 nodes
# (doc/contracts/analysis.md, "Link matrix": the target is 4096 nodes in under 2 s and 200 MB). Each
# size is a synthetic matrix of bandwidths (1000 MB/s with a deterministic +-5% wobble and 1% of
# the pairs not measured), one node at 30% of the others and one link between two healthy
# nodes at 40%: the bench fails unless exactly these two are named, so a fast wrong
# judgement does not pass. The judgement runs in tests/core/linkmatrix_bench.c
# (sc_linkmatrix_judge_pairs(), what health calls); reading the file is not timed, the peak
# RSS is the process's (the pairs it read included). Prints one line per size and the growth
# in time from the size before.
set -euo pipefail
BIN=$(cd "${1:?usage: health_scale.sh BUILD_DIR}" && pwd)/bin
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cpus"
printf '%6s %10s %9s %10s %8s\n' nodes pairs seconds peak_MiB growth
prev=
for n in 8 64 512 4096; do
    python3 - "$n" >"$W/m.csv" <<'PY'
import sys
n = int(sys.argv[1])
slow, la, lb = n // 2 + 1, 0, 1
out = sys.stdout
for i in range(n):
    row = []
    for j in range(i + 1, n):
        h = (i * 7919 + j * 104729) % 1009
        if h == 0 and (i, j) != (la, lb):
            continue  # 1 pair in ~1000 not measured
        v = 1000 * (1 + 0.05 * (h / 504.0 - 1))
        if slow in (i, j):
            v = 300
        elif (i, j) == (la, lb):
            v = 400
        row.append("%d,%d,%.2f\n" % (i, j, v))
    out.write("".join(row))
PY
    "$BIN/linkmatrix_bench" "$W/m.csv" "$n" >"$W/out"
    read -r nodes found secs mib <"$W/out"
    want=$(printf "node %d\nlink 0 1\n" $((n / 2 + 1)))
    if [ "$(tail -n +2 "$W/out")" != "$want" ]; then
        echo "FAIL: $n nodes: named $(tail -n +2 "$W/out" | tr '\n' ';') (want: $want)" >&2
        exit 1
    fi
    growth=-
    [ -n "$prev" ] && growth=$(python3 -c "print('x%.1f' % (max($secs, 1e-3) / max($prev, 1e-3)))")
    printf '%6s %10s %9s %10s %8s\n' "$n" $((n * (n - 1) / 2)) "$secs" "$mib" "$growth"
    prev=$secs
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
