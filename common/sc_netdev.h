/*
 * sc_netdev.h: bytes per network interface, as the kernel counts them for the calling
 * process's network namespace (/proc/self/net/dev: loopback and every NIC), plus the fabric
 * ports' own counters (InfiniBand, Slingshot CXI) under the sysroot, and the difference of
 * two readings. libc only: an MPI rank reads it around its main loop, and the readers of
 * its trace lines share the parser.
 *
 * A namespace's counters are shared by every process in it: two ranks on one node in one
 * namespace read the same interfaces (sc_carrier.h counts them once). A fabric port's
 * counters belong to the host, whatever the namespace: ranks on one host read the same.
 */
#ifndef SC_NETDEV_H
#define SC_NETDEV_H

#include <stddef.h>

/* Interfaces kept per reading (a container host may list hundreds of veths: the rest are
   counted in `dropped`). */
#define SC_NETDEV_MAX 48

/* What counted an entry's bytes. */
typedef enum sc_netdev_kind {
    SC_NETDEV_KERNEL = 0, /* a network interface of the namespace (/proc/self/net/dev) */
    SC_NETDEV_IB,         /* an InfiniBand port's own counters, "<device>:<port>" */
    SC_NETDEV_CXI,        /* a Slingshot CXI NIC's telemetry, "<device>" */
} sc_netdev_kind;

typedef struct sc_netdev_if {
    char name[24]; /* IFNAMSIZ is 16; a fabric port "mlx5_0:1" */
    unsigned long long rx_bytes, tx_bytes;
    int kind; /* sc_netdev_kind */
} sc_netdev_if;

/* One reading. Fixed-size and pointer-free: gathered between ranks as bytes. */
typedef struct sc_netdev {
    char netns[32]; /* the namespace's inode number ("4026531840"), "" when unknown */
    size_t n, dropped;
    sc_netdev_if ifs[SC_NETDEV_MAX];
} sc_netdev;

/*
 * The interfaces of a /proc/net/dev text (two header lines, then "name: rx_bytes ... tx_bytes
 * ..." per interface) into out (netns untouched). Returns 0, or -EINVAL when text is not
 * such a table.
 */
int sc_netdev_parse(const char *text, sc_netdev *out);

/* This process's namespace and its interfaces now. Returns 0 or -errno. */
int sc_netdev_read(sc_netdev *out);

/*
 * Appends to out the fabric ports under the root directory rootfd (the sysroot; "/" in
 * production), whatever the namespace: per InfiniBand port, ports/<n>/counters/
 * port_xmit_data and port_rcv_data of sys/class/infiniband/<device>/ (4-byte words, so
 * times 4) as "<device>:<n>"; per CXI NIC, device/telemetry/hni_sts_tx_ok_octets and
 * hni_sts_rx_ok_octets of sys/class/cxi/<device>/ ("<octets>@<seconds>.<nanoseconds>") as
 * "<device>". A port whose counters cannot be read, or whose name is too long, is left out
 * (counted in dropped, as past SC_NETDEV_MAX); no fabric at all is no error. Returns 0.
 */
int sc_netdev_read_fabric(int rootfd, sc_netdev *out);

/*
 * after - before per interface present in both (same name and kind; a counter that went
 * backwards, or an interface that came or went, counts 0), into out; netns is after's.
 */
void sc_netdev_delta(const sc_netdev *before, const sc_netdev *after, sc_netdev *out);

/* Sum of tx_bytes over the kernel's interfaces (SC_NETDEV_KERNEL): what the carrier
   decision weighs. The fabric ports are left out: their bytes bypass the kernel (and
   IPoIB's would count twice). */
unsigned long long sc_netdev_tx_total(const sc_netdev *d);

#endif
