/*
 * test_netdev.c: /proc/net/dev tables as the kernel prints them (a captured one, with a
 * counter wide enough to touch the interface name), the difference of two readings, a
 * real reading of this process's namespace (loopback is always there), and the fabric
 * ports' counters in a fake sysroot (InfiniBand in 4-byte words, CXI's "value@time")
 * advanced between two readings.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "openat2_util.h"
#include "sc_netdev.h"
#include "sc_test.h"
#include "tmpdir_util.h"

/* Captured on Debian 12 (Linux 6.1), then eth0's counters grown past the column width. */
static const char table_before[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 1875622   18043    0    0    0     0          0         0  1875622   18043    0 "
    "   0    0     0       0          0\n"
    "  eth0: 64881213   53377    0    0    0     0          0         0  3319410   31571    0 "
    "   0    0     0       0          0\n";
static const char table_after[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo: 30875622   28043    0    0    0     0          0         0 30875622   28043    0 "
    "   0    0     0       0          0\n"
    "  eth0:12345678901234   53377    0    0    0     0          0         0  3319410   31571 "
    "   0    0    0     0       0          0\n"
    "veth1: 5 1 0 0 0 0 0 0 7 1 0 0 0 0 0 0\n";

static void test_parse_and_delta(void)
{
    sc_netdev a, b, d;

    SC_CHECK_INT_EQ(sc_netdev_parse(table_before, &a), 0);
    SC_CHECK_INT_EQ(a.n, 2);
    SC_CHECK_STR_EQ(a.ifs[0].name, "lo");
    SC_CHECK_INT_EQ(a.ifs[1].rx_bytes, 64881213);
    SC_CHECK_INT_EQ(a.ifs[1].tx_bytes, 3319410);
    SC_CHECK_INT_EQ(sc_netdev_parse(table_after, &b), 0);
    SC_CHECK_INT_EQ(b.n, 3);
    SC_CHECK_STR_EQ(b.ifs[1].name, "eth0");
    SC_CHECK(b.ifs[1].rx_bytes == 12345678901234ULL);
    snprintf(b.netns, sizeof(b.netns), "4026531840");
    sc_netdev_delta(&a, &b, &d);
    SC_CHECK_STR_EQ(d.netns, "4026531840");
    SC_CHECK_INT_EQ(d.n, 3);
    SC_CHECK_INT_EQ(d.ifs[0].tx_bytes, 29000000);
    SC_CHECK_INT_EQ(d.ifs[1].tx_bytes, 0);
    SC_CHECK_INT_EQ(d.ifs[2].tx_bytes, 0); /* came during the loop: no baseline, counts 0 */
    SC_CHECK_INT_EQ(sc_netdev_tx_total(&d), 29000000);
    sc_netdev_delta(&b, &a, &d); /* counters that went backwards (a reset) count 0 */
    SC_CHECK_INT_EQ(sc_netdev_tx_total(&d), 0);
}

static void test_not_a_table(void)
{
    sc_netdev a;

    SC_CHECK_INT_EQ(sc_netdev_parse("lo: 1 2 3 4 5 6 7 8 9\n", &a), -EINVAL);
    SC_CHECK_INT_EQ(sc_netdev_parse(NULL, &a), -EINVAL);
    SC_CHECK_INT_EQ(
        sc_netdev_parse("Receive Transmit\nx\nbroken: 1 2\nok: 1 2 3 4 5 6 7 8 9\n", &a), 0);
    SC_CHECK_INT_EQ(a.n, 1);
    SC_CHECK_INT_EQ(a.ifs[0].tx_bytes, 9);
}

static void test_many_interfaces(void)
{
    char text[16384];
    size_t used = (size_t)snprintf(text, sizeof(text), "Receive Transmit\nheader\n");
    sc_netdev a;

    for (int i = 0; i < SC_NETDEV_MAX + 5; i++)
        used += (size_t)snprintf(text + used, sizeof(text) - used,
                                 "veth%d: 1 0 0 0 0 0 0 0 2 0 0 0 0 0 0 0\n", i);
    SC_CHECK_INT_EQ(sc_netdev_parse(text, &a), 0);
    SC_CHECK_INT_EQ(a.n, SC_NETDEV_MAX);
    SC_CHECK_INT_EQ(a.dropped, 5);
}

static void test_read_self(void)
{
    sc_netdev a;
    int lo = 0;

    SC_CHECK_INT_EQ(sc_netdev_read(&a), 0);
    SC_CHECK(a.netns[0] >= '1' && a.netns[0] <= '9');
    for (size_t i = 0; i < a.n; i++)
        lo |= !strcmp(a.ifs[i].name, "lo");
    SC_CHECK(lo);
}

/* root/rel with every missing parent directory, holding text (NULL: a directory). */
static void put(const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/%s", root, rel);

    for (char *p = path + strlen(root) + 1; p < path + n; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    if (!text) {
        mkdir(path, 0755);
        return;
    }
    FILE *f = fopen(path, "w");
    SC_CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void link_at(const char *root, const char *target, const char *rel)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", root, rel);
    SC_CHECK_INT_EQ(symlink(target, path), 0);
}

static const sc_netdev_if *find(const sc_netdev *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->ifs[i].name, name))
            return &d->ifs[i];
    return NULL;
}

#define IB "sys/devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0/ports/1/counters/"
#define CXI "sys/devices/pci0000:00/0000:00:03.0/telemetry/"

/* Two readings of a fake sysroot, its counters advanced in between, as sysfs lays them out:
   class entries are symlinks into devices/ (the CXI one absolute: it must resolve inside
   the root, not on this host). */
static void test_fabric(void)
{
    if (!sc_test_have_openat2("test_fabric"))
        return;
    char *root = sc_test_tmpdir("sc-netdev");
    sc_netdev a = {.n = 0}, b = {.n = 0}, d;
    const sc_netdev_if *f;

    SC_CHECK(root != NULL);
    if (!root)
        return;
    put(root, IB "port_xmit_data", "1000\n");
    put(root, IB "port_rcv_data", "2000\n");
    put(root, "sys/class/infiniband", NULL);
    link_at(root, "../../devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0",
            "sys/class/infiniband/mlx5_0");
    put(root, "sys/class/infiniband/mlx4_0/ports/1/counters/port_xmit_data", "5\n"); /* no rcv */
    put(root, CXI "hni_sts_tx_ok_octets", "700@1764633600.000000001\n");
    put(root, CXI "hni_sts_rx_ok_octets", "900@1764633600.000000001\n");
    put(root, "sys/devices/pci0000:00/0000:00:03.0/cxi/cxi0", NULL);
    link_at(root, "../..", "sys/devices/pci0000:00/0000:00:03.0/cxi/cxi0/device");
    put(root, "sys/class/cxi", NULL);
    link_at(root, "/sys/devices/pci0000:00/0000:00:03.0/cxi/cxi0", "sys/class/cxi/cxi0");

    int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    SC_CHECK(fd >= 0);
    SC_CHECK_INT_EQ(sc_netdev_parse(table_before, &a), 0); /* lo, eth0, then the fabric */
    SC_CHECK_INT_EQ(sc_netdev_read_fabric(fd, &a), 0);
    SC_CHECK_INT_EQ(a.n, 4);
    SC_CHECK_INT_EQ(a.dropped, 1); /* mlx4_0:1 without port_rcv_data */
    f = find(&a, "mlx5_0:1");
    SC_CHECK(f && f->kind == SC_NETDEV_IB && f->tx_bytes == 4000 && f->rx_bytes == 8000);
    f = find(&a, "cxi0");
    SC_CHECK(f && f->kind == SC_NETDEV_CXI && f->tx_bytes == 700 && f->rx_bytes == 900);

    /* The main loop: 2.5 GB in words through the IB port, 3 MB through the CXI NIC. */
    put(root, IB "port_xmit_data", "625001000\n");
    put(root, IB "port_rcv_data", "625002000\n");
    put(root, CXI "hni_sts_tx_ok_octets", "3000700@1764633601.5\n");
    put(root, CXI "hni_sts_rx_ok_octets", "3000900@1764633601.5\n");
    SC_CHECK_INT_EQ(sc_netdev_parse(table_after, &b), 0);
    SC_CHECK_INT_EQ(sc_netdev_read_fabric(fd, &b), 0);
    sc_netdev_delta(&a, &b, &d);
    f = find(&d, "mlx5_0:1");
    SC_CHECK(f && f->tx_bytes == 2500000000ULL && f->rx_bytes == 2500000000ULL);
    f = find(&d, "cxi0");
    SC_CHECK(f && f->tx_bytes == 3000000 && f->rx_bytes == 3000000);
    /* The carrier decision weighs the kernel's interfaces only (lo's 29 MB). */
    SC_CHECK_INT_EQ(sc_netdev_tx_total(&d), 29000000);

    /* A counter that is not one leaves its port out. */
    put(root, CXI "hni_sts_tx_ok_octets", "n/a\n");
    b.n = b.dropped = 0;
    SC_CHECK_INT_EQ(sc_netdev_read_fabric(fd, &b), 0);
    SC_CHECK(find(&b, "mlx5_0:1") && !find(&b, "cxi0"));
    SC_CHECK_INT_EQ(b.dropped, 2);
    close(fd);
    sc_test_rmtree(root);
}

int main(void)
{
    SC_TEST_RUN(test_parse_and_delta);
    SC_TEST_RUN(test_not_a_table);
    SC_TEST_RUN(test_many_interfaces);
    SC_TEST_RUN(test_read_self);
    SC_TEST_RUN(test_fabric);
    return SC_TEST_RESULT();
}
