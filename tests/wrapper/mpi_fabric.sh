#!/usr/bin/env bash
# Fabric ports' own counters, end to end: `streamcard run` with a sysroot whose sys/class
# holds one InfiniBand port (mlx5_0, port 1) and one CXI NIC (cxi0), in a mount and network
# namespace of the test's own. Their counter files are bind mounts of that namespace's
# loopback counters (a sysfs mounted inside it), so they advance exactly while the two ranks
# ping-pong over TCP on loopback: the port's port_xmit_data reads as 4-byte words (4 x
# loopback's bytes in the bundle), cxi0's octets as bytes. The ranks read them under the
# sysroot before and after the main loop; the bundle names both with what counted them; the
# 90% rule picks the port a card expects, and fails a card expecting a port that is absent,
# naming every port's bytes.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
if [ "$(id -u)" -ne 0 ] || ! unshare -m -n true 2>/dev/null; then
    echo "SKIP: needs root, for a mount and network namespace of its own"
    exit 77
fi
ROOT=$WORK/sysroot
card() { # card NAME INTERFACE
    { printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n'
      printf '  min_bytes: 1\n  max_bytes: 65536\n  iterations: 50\n'
      printf '  env:\n    OMPI_MCA_btl: "tcp,self"\n    OMPI_MCA_btl_tcp_if_include: lo\n'
      printf '    OMPI_MCA_oob_tcp_if_include: lo\n'
      # The interference gate opened: this test runs beside others under ctest -j.
      printf '  expect:\n    interface: %s\n    max_interference_pct: 100\n' "$2"; } >"$WORK/$1"
}

# in_fabric CMD...: CMD with STREAMCARD_SYSROOT=$ROOT in new mount and network namespaces
# (loopback up): $ROOT/sys is a sysfs of that namespace with $ROOT/class over its class/,
# $ROOT/proc this machine's /proc. The mounts go with the namespace.
in_fabric() {
    # shellcheck disable=SC2016 # the inner shell expands them
    unshare -m -n sh -c '
        set -e
        root=$1; shift
        ip link set lo up
        mount --make-rprivate /
        mkdir -p "$root/sys" "$root/proc"
        mount -t sysfs sysfs "$root/sys"
        mount --bind /proc "$root/proc"
        lo=$root/sys/class/net/lo/statistics
        ib=$root/class/infiniband/mlx5_0/ports/1/counters
        cxi=$root/class/cxi/cxi0/device/telemetry
        mkdir -p "$ib" "$cxi"
        for f in "$ib/port_xmit_data" "$ib/port_rcv_data" "$cxi/hni_sts_tx_ok_octets" \
                 "$cxi/hni_sts_rx_ok_octets"; do : >"$f"; done
        mount --bind "$lo/tx_bytes" "$ib/port_xmit_data"
        mount --bind "$lo/rx_bytes" "$ib/port_rcv_data"
        mount --bind "$lo/tx_bytes" "$cxi/hni_sts_tx_ok_octets"
        mount --bind "$lo/rx_bytes" "$cxi/hni_sts_rx_ok_octets"
        mount --rbind "$root/class" "$root/sys/class"
        STREAMCARD_SYSROOT=$root exec "$@"' sh "$ROOT" "$@"
}

card ib.yaml mlx5_0:1
expect_status 0 in_fabric "$BIN/streamcard" run "$WORK/ib.yaml" --output "$WORK/runs" --quiet
grep -q "interface mlx5_0:1 carried the [0-9]* payload bytes: [0-9]* bytes through lo, [0-9]* through mlx5_0:1, [0-9]* through cxi0" "$WORK/err" ||
    fail "the gate's note: $(grep -i interface "$WORK/err")"
B=$(bundle_of "$WORK/out")
grep -q "^transport_fabric=rank=0 host=[^ ]* port=mlx5_0:1 rx=[1-9][0-9]* tx=[1-9][0-9]*$" "$B/run.conf" ||
    fail "run.conf lacks rank 0's InfiniBand port: $(grep transport_fabric "$B/run.conf")"
python3 - "$B/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for rank in r["transport"]["ranks"]:
    b = rank["main_loop_bytes"]
    ifs = b["interfaces"]
    lo, ib, cxi = ifs["lo"], ifs["mlx5_0:1"], ifs["cxi0"]
    assert lo["counted_by"] == "netdev" and ib["counted_by"] == "infiniband", ifs
    assert cxi["counted_by"] == "cxi", ifs
    # The port's counters are loopback's, read a few microseconds after it: in 4-byte words.
    assert ib["tx"] % 4 == 0 and ib["rx"] % 4 == 0, ib
    assert 3.96 * lo["tx"] <= ib["tx"] <= 4.04 * lo["tx"] and lo["tx"] > 0, (lo, ib)
    assert 0.99 * lo["tx"] <= cxi["tx"] <= 1.01 * lo["tx"], (lo, cxi)
    assert b["payload_sent"] > 0 or rank["rank"] == 1, b
print("rank bytes: lo %d, mlx5_0:1 %d, cxi0 %d" % (lo["tx"], ib["tx"], cxi["tx"]))
PY
expect_status 0 "$BIN/streamcard" verify "$B"

# A card expecting a port the host does not have: the gate fails, naming every port's bytes.
card absent.yaml mlx5_1:1
expect_status 1 in_fabric "$BIN/streamcard" run "$WORK/absent.yaml" --output "$WORK/runs" --quiet
grep -q "expected interface mlx5_1:1 to carry 90% of the [0-9]* payload bytes, it sent 0: [0-9]* bytes through lo, [0-9]* through mlx5_0:1, [0-9]* through cxi0" "$WORK/err" ||
    fail "the failure: $(grep -i interface "$WORK/err")"
expect_failed_bundle "$(bundle_of "$WORK/out")" transport_ok
echo "PASS mpi_fabric"
