/*
 * fabric.c: the fabric ports' own byte counters under a root directory (see sc_netdev.h).
 * Kernel-bypass traffic (InfiniBand verbs, Slingshot's CXI) never shows in /proc/net/dev:
 * these files are where its bytes are counted.
 */
#include "sc_dir.h"
#include "sc_netdev.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The decimal counter a sysfs file under rootfd starts with: "1234\n", or CXI's
   "1234@1700000000.123456789". Returns 0 or -errno (-EINVAL: not a counter). */
static int sc__fabric_counter(int rootfd, const char *rel, unsigned long long *out)
{
    char buf[64], *end;
    int fd = sc_dir_open_in_root(rootfd, rel, O_RDONLY);
    ssize_t n;

    if (fd < 0)
        return fd;
    n = read(fd, buf, sizeof(buf) - 1);
    int rc = n < 0 ? -errno : 0;
    close(fd);
    if (n <= 0)
        return n < 0 ? rc : -EINVAL;
    buf[n] = '\0';
    if (!isdigit((unsigned char)buf[0]))
        return -EINVAL;
    errno = 0;
    *out = strtoull(buf, &end, 10);
    if (errno != 0 || (*end != '\0' && *end != '\n' && *end != '@'))
        return -EINVAL;
    return 0;
}

/* One port's tx and rx counters (files tx_rel and rx_rel under rootfd), times scale, as
   name into out; a port that cannot be read or named is counted in dropped. */
static void sc__fabric_port(int rootfd, sc_netdev *out, int kind, const char *name,
                            const char *tx_rel, const char *rx_rel, unsigned scale)
{
    unsigned long long tx = 0, rx = 0;

    if (out->n == SC_NETDEV_MAX || strlen(name) >= sizeof(out->ifs[0].name) ||
        sc__fabric_counter(rootfd, tx_rel, &tx) != 0 ||
        sc__fabric_counter(rootfd, rx_rel, &rx) != 0) {
        out->dropped++;
        return;
    }
    sc_netdev_if *f = &out->ifs[out->n];
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->tx_bytes = tx * scale;
    f->rx_bytes = rx * scale;
    f->kind = kind;
    out->n++;
}

/* Directory rel under rootfd as a stream; NULL when it is not there or cannot be read. */
static DIR *sc__fabric_dir(int rootfd, const char *rel)
{
    int fd = sc_dir_open_in_root(rootfd, rel, O_RDONLY | O_DIRECTORY);
    DIR *dir = fd >= 0 ? sc_dir_openat(fd, ".", 0) : NULL;

    if (fd >= 0)
        close(fd);
    return dir;
}

/* A device or port entry: not ".", "..", or a hidden name; short enough for the paths. */
static bool sc__fabric_entry(const struct dirent *e)
{
    return e->d_name[0] != '.' && strlen(e->d_name) < 64;
}

/* Every port of one InfiniBand device: "<device>:<port>", 4-byte words. */
static void sc__fabric_ib_device(int rootfd, const char *dev, sc_netdev *out)
{
    char rel[256], name[160], tx[320], rx[320];
    DIR *ports;
    struct dirent *e;

    snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports", dev);
    ports = sc__fabric_dir(rootfd, rel);
    while (ports && (e = readdir(ports)) != NULL) {
        if (!sc__fabric_entry(e))
            continue;
        snprintf(name, sizeof(name), "%s:%s", dev, e->d_name);
        snprintf(tx, sizeof(tx), "%s/%s/counters/port_xmit_data", rel, e->d_name);
        snprintf(rx, sizeof(rx), "%s/%s/counters/port_rcv_data", rel, e->d_name);
        sc__fabric_port(rootfd, out, SC_NETDEV_IB, name, tx, rx, 4);
    }
    if (ports)
        closedir(ports);
}

int sc_netdev_read_fabric(int rootfd, sc_netdev *out)
{
    char tx[256], rx[256];
    DIR *dir = sc__fabric_dir(rootfd, "sys/class/infiniband");
    struct dirent *e;

    while (dir && (e = readdir(dir)) != NULL)
        if (sc__fabric_entry(e))
            sc__fabric_ib_device(rootfd, e->d_name, out);
    if (dir)
        closedir(dir);
    dir = sc__fabric_dir(rootfd, "sys/class/cxi");
    while (dir && (e = readdir(dir)) != NULL) {
        if (!sc__fabric_entry(e))
            continue;
        snprintf(tx, sizeof(tx), "sys/class/cxi/%s/device/telemetry/hni_sts_tx_ok_octets",
                 e->d_name);
        snprintf(rx, sizeof(rx), "sys/class/cxi/%s/device/telemetry/hni_sts_rx_ok_octets",
                 e->d_name);
        sc__fabric_port(rootfd, out, SC_NETDEV_CXI, e->d_name, tx, rx, 1);
    }
    if (dir)
        closedir(dir);
    return 0;
}
