/*
 * sc_netdev.h: bytes per network interface, as the kernel counts them for the calling
 * process's network namespace (/proc/self/net/dev: loopback and every NIC), and the
 * difference of two readings. libc only: an MPI rank reads it around its main loop, and
 * the readers of its trace lines share the parser.
 *
 * A namespace's counters are shared by every process in it: two ranks on one node in one
 * namespace read the same interfaces (sc_carrier.h counts them once).
 */
#ifndef SC_NETDEV_H
#define SC_NETDEV_H

#include <stddef.h>

/* Interfaces kept per reading (a container host may list hundreds of veths: the rest are
   counted in `dropped`). */
#define SC_NETDEV_MAX 48

typedef struct sc_netdev_if {
    char name[24]; /* IFNAMSIZ is 16 */
    unsigned long long rx_bytes, tx_bytes;
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
 * after - before per interface present in both (a counter that went backwards, or an
 * interface that came or went, counts 0), into out; netns is after's.
 */
void sc_netdev_delta(const sc_netdev *before, const sc_netdev *after, sc_netdev *out);

/* Sum of tx_bytes over the interfaces. */
unsigned long long sc_netdev_tx_total(const sc_netdev *d);

#endif
