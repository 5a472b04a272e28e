#!/usr/bin/env bash
# A run that loads the machine's hwloc topology (one_per_core here; STREAM's caches) leaves
# hwloc's I/O plugins unloaded (PCI, OpenCL, GL, libxml2's XML: nothing a run asks for, and
# milliseconds of every run; wrapper/plan.c), without the variable that does it reaching
# the workload's environment; a HWLOC_PLUGINS_BLACKLIST the caller set is kept, as set.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

PLUGINS=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/hwloc
if ! ls "$PLUGINS"/hwloc_*.so >/dev/null 2>&1; then
    echo "SKIP: no hwloc plugins in $PLUGINS (Debian's libhwloc-plugins): nothing to leave out"
    exit 77
fi
# The workload prints its environment; one_per_core makes the run load the topology.
cat >"$WORK/env.yaml" <<'EOF'
version: 1
experiment:
  workload: exec
  command: [env]
  cpu_list: "0"
  one_per_core: true
  threads: 1
  expect:
    max_interference_pct: 100
EOF

# loaded: the libraries streamcard's own process (LD_DEBUG's first pid) initialised.
loaded() {
    local first
    first=$(grep -m1 -oE '^ *[0-9]+:' "$WORK/err" | tr -d ' :')
    [ -n "$first" ] || fail "LD_DEBUG=libs printed nothing: cannot tell what the run loaded"
    grep -E "^ *$first:.*calling init" "$WORK/err" >"$WORK/loads" || true
    grep -qF libhwloc "$WORK/loads" || fail "the run did not load hwloc: nothing was tested"
}

LD_DEBUG=libs expect_status 0 "$BIN/streamcard" run "$WORK/env.yaml" --output "$WORK/runs" --quiet
loaded
if grep -E '/hwloc/hwloc_[a-z_]+\.so|libxml2' "$WORK/loads" >"$WORK/plugins"; then
    fail "streamcard run loaded hwloc's I/O plugins: $(cat "$WORK/plugins")"
fi
B=$(bundle_of "$WORK/out")
expect_not_contains "$B/stream.log" "HWLOC_PLUGINS_BLACKLIST"

# The caller's own list is kept: the plugins it does not name load, the workload sees it.
HWLOC_PLUGINS_BLACKLIST=hwloc_gl LD_DEBUG=libs expect_status 0 "$BIN/streamcard" run \
    "$WORK/env.yaml" --output "$WORK/runs" --quiet
loaded
grep -qE '/hwloc/hwloc_[a-z_]+\.so' "$WORK/loads" ||
    fail "with the caller's HWLOC_PLUGINS_BLACKLIST=hwloc_gl no plugin loaded: the list was not the caller's"
expect_not_contains "$WORK/loads" "hwloc_gl.so"
B=$(bundle_of "$WORK/out")
expect_contains "$B/stream.log" "HWLOC_PLUGINS_BLACKLIST=hwloc_gl"
echo "ok: hwloc_plugins"
