/* test_hostlist.c: Slurm hostlist membership and syntax, table-driven. */
#include "sc_hostlist.h"
#include "sc_test.h"

typedef struct host_case {
    const char *list, *host;
    int member;
} host_case;

static const host_case members[] = {
    {"node[01-02]", "node01", 1},  {"node[01-02]", "node02", 1}, {"node[01-02]", "node03", 0},
    {"node[01-02]", "node1", 0},   {"node[1-10]", "node10", 1},  {"node[1-10]", "node01", 0},
    {"node[1-3,7]", "node7", 1},   {"node[1-3,7]", "node5", 0},  {"login1,vm", "vm", 1},
    {"login1,vm", "vm2", 0},       {"rack[1-2]-n", "rack2-n", 1}, {"rack[1-2]-n", "rack2", 0},
    {"n[0-3]", "n0", 1},           {"a[1-2],b[3-4]", "b4", 1},    {"a[1-2],b[3-4]", "a3", 0},
    {"node[001-100]", "node050", 1}, {"node[001-100]", "node50", 0},
};

static const struct {
    const char *list, *why;
} bad[] = {
    {"", "empty host list"},
    {"node[1-", "unbalanced"},
    {"node[3-1]", "is not a range"},
    {"node[a-b]", "is not a range"},
    {"no de", "character not allowed"},
    {"a,,b", "empty host name"},
    {"n[1-2][3]", "nested"},
};

static void test_members(void)
{
    for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
        SC_CHECK_MSG(sc_hostlist_check(members[i].list, NULL, 0) == 0, "%s rejected",
                     members[i].list);
        SC_CHECK_MSG(sc_hostlist_contains(members[i].list, members[i].host) == members[i].member,
                     "%s in %s: expected %d", members[i].host, members[i].list, members[i].member);
    }
}

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char why[128] = "";
        SC_CHECK_MSG(sc_hostlist_check(bad[i].list, why, sizeof(why)) < 0, "\"%s\" accepted",
                     bad[i].list);
        SC_CHECK_STR_CONTAINS(why, bad[i].why);
        SC_CHECK(!sc_hostlist_contains(bad[i].list, "node1"));
    }
}

static void test_count(void)
{
    SC_CHECK_INT_EQ(sc_hostlist_count("node[01-04],login1"), 5);
    SC_CHECK_INT_EQ(sc_hostlist_count("scn[1-2]"), 2);
    SC_CHECK_INT_EQ(sc_hostlist_count("a,b,c[1,3-5]"), 6);
    SC_CHECK_INT_EQ(sc_hostlist_count("vm"), 1);
    SC_CHECK_INT_EQ(sc_hostlist_count("n[3-1]"), 0);
}

int main(void)
{
    SC_TEST_RUN(test_members);
    SC_TEST_RUN(test_bad);
    SC_TEST_RUN(test_count);
    return SC_TEST_RESULT();
}
