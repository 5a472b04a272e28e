/* test_cpulist.c: Linux cpulist parsing and formatting, table-driven. */
#include "sc_cpulist.h"
#include "sc_test.h"

#include <stdlib.h>

typedef struct cpulist_case {
    const char *text;
    int weight;         /* -1: must be rejected */
    const char *canon;  /* formatted back, or the expected reason */
} cpulist_case;

static const cpulist_case cases[] = {
    {"0", 1, "0"},
    {"0-15", 16, "0-15"},
    {"0-3,8,10-11", 7, "0-3,8,10-11"},
    {"3,1,2", 3, "1-3"},
    {"0-3,2-5", 6, "0-5"},
    {"65535", 1, "65535"},
    {"3-1", -1, "\"3-1\" is a reversed range"},
    {"", -1, "empty cpu list"},
    {"a", -1, "\"a\" is not a cpu number or range"},
    {"1-", -1, "\"1-\" is a range without an end"},
    {"1,", -1, "ends with a comma"},
    {",1", -1, "\"\" is not a cpu number or range"},
    {"0-4000000000", -1, "has a cpu number above 65535"},
    {"1 2", -1, "is not a cpu number or range"},
    {"-1", -1, "\"-1\" is not a cpu number or range"},
    {"0x3", -1, "\"0x3\" is not a cpu number or range"},
};

static void test_cases(void)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char why[128] = "";
        int rc = sc_cpulist_parse(cases[i].text, set, why, sizeof(why));
        if (cases[i].weight < 0) {
            SC_CHECK_MSG(rc < 0, "\"%s\" accepted", cases[i].text);
            SC_CHECK_STR_CONTAINS(why, cases[i].canon);
            continue;
        }
        SC_CHECK_MSG(rc == 0, "\"%s\" rejected: %s", cases[i].text, why);
        SC_CHECK_INT_EQ(hwloc_bitmap_weight(set), cases[i].weight);
        char *text = sc_cpulist_format(set);
        SC_CHECK_STR_EQ(text, cases[i].canon);
        free(text);
    }
    hwloc_bitmap_free(set);
}

/* One hardware thread per physical core, on a synthetic node of 2 cores x 2 threads (PUs
   0,1 on core 0 and 2,3 on core 1, hwloc's synthetic numbering): the lowest CPU of each
   core in the list is kept; a CPU the node does not have is kept as it is. */
static void test_one_per_core(void)
{
    static const struct {
        const char *in, *out;
    } opc[] = {{"0-3", "0,2"}, {"1-3", "1-2"}, {"1,3", "1,3"}, {"0-1", "0"}, {"0-1,9", "0,9"}};
    hwloc_topology_t topo;

    SC_CHECK_INT_EQ(hwloc_topology_init(&topo), 0);
    SC_CHECK_INT_EQ(hwloc_topology_set_synthetic(topo, "core:2 pu:2"), 0);
    SC_CHECK_INT_EQ(hwloc_topology_load(topo), 0);
    for (size_t i = 0; i < sizeof(opc) / sizeof(opc[0]); i++) {
        hwloc_bitmap_t in = hwloc_bitmap_alloc(), out = hwloc_bitmap_alloc();
        char why[128];
        SC_CHECK_INT_EQ(sc_cpulist_parse(opc[i].in, in, why, sizeof(why)), 0);
        SC_CHECK_INT_EQ(sc_cpulist_one_per_core(topo, in, out), 0);
        char *text = sc_cpulist_format(out);
        SC_CHECK_STR_EQ(text, opc[i].out);
        free(text);
        hwloc_bitmap_free(in);
        hwloc_bitmap_free(out);
    }
    hwloc_topology_destroy(topo);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_one_per_core);
    return SC_TEST_RESULT();
}
