/*
 * test_netdev.c: /proc/net/dev tables as the kernel prints them (a captured one, with a
 * counter wide enough to touch the interface name), the difference of two readings, and a
 * real reading of this process's namespace (loopback is always there).
 */
#include <errno.h>

#include "sc_netdev.h"
#include "sc_test.h"

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

int main(void)
{
    SC_TEST_RUN(test_parse_and_delta);
    SC_TEST_RUN(test_not_a_table);
    SC_TEST_RUN(test_many_interfaces);
    SC_TEST_RUN(test_read_self);
    return SC_TEST_RESULT();
}
