/* test_card_machine.c: the card against the machine it runs on (sc_card_check_machine()):
   online CPUs, NUMA nodes and their memory, cpufreq governors, the plugin's platform
   control, the card's nodes; and what sc_machine_load() reads of a fake sysroot. */
#include "sc_card.h"
#include "sc_machine.h"
#include "card_cases.h"
#include "sc_test.h"
#include "sysroot_util.h"

#include <stdbool.h>
#include <stdio.h>

/* A 16-CPU, one-node machine with 8 GiB and no cpufreq. */
static char *make_machine_root(int with_cpufreq)
{
    char *root = sysroot_make();
    if (!root)
        return NULL;
    sysroot_put(root, "sys/devices/system/cpu/online", "0-15\n");
    sysroot_put(root, "sys/devices/system/node/has_memory", "0\n");
    sysroot_put(root, "sys/devices/system/node/node0/meminfo",
                "Node 0 MemTotal:        8388608 kB\nNode 0 MemFree:         8000000 kB\n");
    for (int cpu = 0; with_cpufreq && cpu < 16; cpu++) {
        char rel[128];
        snprintf(rel, sizeof(rel),
                 "sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_governors", cpu);
        sysroot_put(root, rel,
                    cpu == 3 ? "performance powersave\n"
                             : "conservative ondemand userspace powersave performance\n");
    }
    return root;
}

typedef struct machine_case {
    const char *name;
    const char *body;
    int cpufreq, platform_control;
    const char *expect[SC_MAX_LINES]; /* as in card_case */
} machine_case;

static const machine_case machine_cases[] = {
    {"fits", "  cpu_list: 0-15\n  memory_node: 0\n  array_size: 1000000\n", 0, 0, {NULL}},
    {"node 7 absent",
     "  cpu_list: 0-15\n  memory_node: 7\n",
     0,
     0,
     {"card.yaml:5: memory_node: 7 is not a NUMA node with memory on"}},
    {"cpus offline",
     "  cpu_list: 0-31\n",
     0,
     0,
     {"card.yaml:4: cpu_list: CPUs 16-31 are not online on"}},
    {"arrays too big",
     "  cpu_list: 0-3\n  memory_node: 0\n  array_size: 4096000000\n",
     0,
     0,
     {"card.yaml:6: array_size: 4096000000 needs 91.6 GiB for 3 arrays of 8-byte elements but "
      "NUMA node 0 has 8.0 GiB (valid: at most 322122547"}},
    {"governor without cpufreq",
     "  cpu_list: 0\n  governor: performance\n",
     0,
     1,
     {"governor: performance cannot be set: "}},
    {"governor offered everywhere", "  cpu_list: 0\n  governor: performance\n", 1, 1, {NULL}},
    {"governor not on every cpu",
     "  cpu_list: 0\n  governor: ondemand\n",
     1,
     1,
     {"governor: ondemand is not offered on"}},
    {"governor without the plugin",
     "  cpu_list: 0\n  governor: performance\n",
     1,
     0,
     {"governor: performance needs the streamcard SPANK plugin"}},
    {"prefetch without the plugin",
     "  cpu_list: 0\n  prefetch: off\n",
     0,
     0,
     {"card.yaml:5: prefetch: off needs the streamcard SPANK plugin"}},
    {"prefetch with the plugin", "  cpu_list: 0\n  prefetch: off\n", 0, 1, {NULL}},
    {"another host's card",
     "  cpu_list: 0\n  nodes: elsewhere[1-2]\n",
     0,
     0,
     {"card.yaml:5: nodes: this host "}},
};

static void test_machine_cases(void)
{
    int failures = 0;

    for (size_t i = 0; i < sizeof(machine_cases) / sizeof(machine_cases[0]); i++) {
        const machine_case *c = &machine_cases[i];
        char *root_path = make_machine_root(c->cpufreq);
        char yaml[1024];
        sc_fsroot root;
        sc_machine m;
        sc_diag d;
        SC_CHECK(root_path != NULL);
        SC_CHECK_INT_EQ(sc_fsroot_open(&root, root_path), 0);
        SC_CHECK_INT_EQ(sc_machine_load(&m, &root), 0);
        snprintf(yaml, sizeof(yaml), HEAD "  workload: stream\n%s", c->body);
        sc_card *card = sc_card_new();
        sc_diag_init(&d);
        int rc = parse_and_check(card, yaml, &d);
        if (rc == 0)
            rc = sc_card_check_machine(card, &m, c->platform_control, &d);
        bool ok = (c->expect[0] ? rc < 0 : rc == 0) && lines_match(&d, c->expect);
        if (!ok)
            report_case(c->name, c->expect, rc, &d);
        sc_diag_free(&d);
        sc_card_free(card);
        sc_machine_free(&m);
        sc_fsroot_close(&root);
        sysroot_remove(root_path);
        failures += !ok;
    }
    SC_CHECK_MSG(failures == 0, "%d of the cases failed (see above)", failures);
}

static void test_machine_facts(void)
{
    char *root_path = make_machine_root(1);
    sc_fsroot root;
    sc_machine m;
    SC_CHECK_INT_EQ(sc_fsroot_open(&root, root_path), 0);
    SC_CHECK_INT_EQ(sc_machine_load(&m, &root), 0);
    SC_CHECK_INT_EQ(hwloc_bitmap_weight(m.cpus_online), 16);
    SC_CHECK_INT_EQ(m.n_node_mem, 1);
    SC_CHECK_INT_EQ(m.node_mem_bytes[0], 8388608ull * 1024);
    SC_CHECK(m.has_cpufreq);
    /* cpu3 offers only two governors: the common set is their intersection. */
    SC_CHECK_STR_EQ(m.governors, "powersave performance");
    sc_machine_free(&m);
    sc_fsroot_close(&root);
    sysroot_remove(root_path);
}

int main(void)
{
    SC_TEST_RUN(test_machine_cases);
    SC_TEST_RUN(test_machine_facts);
    return SC_TEST_RESULT();
}
