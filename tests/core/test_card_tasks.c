/*
 * test_card_tasks.c: what a card asks of Slurm (sc_card_tasks_of(), the cli_filter's request
 * through `streamcard resources`), and the node's refusal of a job without the card's CPUs,
 * which names that request: an MPI card's ranks as tasks, not -c.
 */
#include "card_util.h"
#include "sc_card.h"
#include "sc_machine.h"
#include "sc_test.h"
#include "sysroot_util.h"

#include <errno.h>
#include <stdlib.h>

#define HEAD "version: 1\nexperiment:\n"

/* The card of body (after HEAD), parsed and checked; NULL when it is not valid. */
static sc_card *checked(const char *body)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml), HEAD "%s", body);
    return sc_test_card(yaml);
}

static const struct {
    const char *body, *ask;
    long ntasks, nodes, per_node, cpus_per_task;
} task_cases[] = {
    {"  workload: stream\n  cpu_list: 0-1\n", "-c 2", 1, 1, 1, 2},
    {"  workload: stream\n  cpu_list: 0\n", "-c 1", 1, 1, 1, 1},
    {"  workload: ipsearch\n  cpu_list: 0-3\n  nodes: n[1-2]\n", "-c 4", 1, 1, 1, 4},
    /* Two ranks on one node, each on its CPU of cpu_list: two tasks of one CPU. */
    {"  workload: mpi-pingpong\n  cpu_list: 0-1\n", "-n 2", 2, 1, 2, 1},
    /* More CPUs than ranks: the ranks' tasks hold all of cpu_list between them. */
    {"  workload: mpi-pingpong\n  cpu_list: 0-3\n", "-n 2 -c 2", 2, 1, 2, 2},
    /* One rank on each of the card's two nodes. */
    {"  workload: mpi-pingpong\n  cpu_list: 0\n  nodes: n[1-2]\n", "-N 2 --ntasks-per-node=1", 2, 2,
     1, 1},
    {"  workload: mpi-pingpong\n  cpu_list: 0\n  pairs: all\n  nodes: n[1-4]\n",
     "-N 4 --ntasks-per-node=1", 4, 4, 1, 1},
    /* pairs: all without nodes: one rank per node of whatever allocation the job gets. */
    {"  workload: mpi-pingpong\n  cpu_list: 0\n  pairs: all\n", "-N NODES --ntasks-per-node=1", 0,
     0, 1, 1},
};

static void test_tasks(void)
{
    for (size_t i = 0; i < sizeof(task_cases) / sizeof(task_cases[0]); i++) {
        sc_card *card = checked(task_cases[i].body);
        sc_card_tasks t;
        char ask[96];
        SC_CHECK_MSG(card != NULL, "case %zu: not a valid card", i);
        sc_card_tasks_of(card, &t);
        sc_card_tasks_format(&t, ask, sizeof(ask));
        SC_CHECK_MSG(t.ntasks == task_cases[i].ntasks && t.nodes == task_cases[i].nodes &&
                         t.per_node == task_cases[i].per_node &&
                         t.cpus_per_task == task_cases[i].cpus_per_task,
                     "case %zu: ntasks %ld nodes %ld per node %ld cpus per task %ld", i, t.ntasks,
                     t.nodes, t.per_node, t.cpus_per_task);
        SC_CHECK_STR_EQ(ask, task_cases[i].ask);
        sc_card_free(card);
    }
}

/* The node refuses a job that holds only CPU 0 of the card's 0-1, naming the request that
   gives a job of this card its CPUs: for an MPI card, its ranks as tasks. */
static void test_refusal_names_the_request(void)
{
    static const struct {
        const char *body, *fix;
    } cases[] = {
        {"  workload: stream\n  cpu_list: 0-1\n", "(valid: 0; ask Slurm for the card's CPUs: "
                                                  "sbatch --exclusive, or -c 2)"},
        {"  workload: mpi-pingpong\n  cpu_list: 0-1\n", "(valid: 0; ask Slurm for the card's "
                                                        "CPUs: sbatch --exclusive, or -n 2)"},
    };
    char *root_path = sysroot_make();
    sc_fsroot root;
    sc_machine m;

    SC_CHECK(root_path != NULL);
    sysroot_put(root_path, "sys/devices/system/cpu/online", "0-15\n");
    sysroot_put(root_path, "sys/devices/system/node/has_memory", "0\n");
    sysroot_put(root_path, "sys/devices/system/node/node0/meminfo",
                "Node 0 MemTotal:        8388608 kB\n");
    SC_CHECK_INT_EQ(sc_fsroot_open(&root, root_path), 0);
    SC_CHECK_INT_EQ(sc_machine_load(&m, &root), 0);
    hwloc_bitmap_only(m.cpus_allowed, 0); /* the job's cpuset: CPU 0 */
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_card *card = checked(cases[i].body);
        sc_diag d;
        SC_CHECK_MSG(card != NULL, "case %zu: not a valid card", i);
        sc_diag_init(&d);
        SC_CHECK_INT_EQ(sc_card_check_machine(card, &m, true, &d), -EINVAL);
        SC_CHECK_INT_EQ(d.count, 1);
        if (d.count) {
            SC_CHECK_STR_CONTAINS(d.lines[0], "cpu_list: CPUs 1 are outside the CPUs this job may "
                                              "use on");
            SC_CHECK_STR_CONTAINS(d.lines[0], cases[i].fix);
        }
        sc_diag_free(&d);
        sc_card_free(card);
    }
    sc_machine_free(&m);
    sc_fsroot_close(&root);
    sysroot_remove(root_path);
}

int main(void)
{
    SC_TEST_RUN(test_tasks);
    SC_TEST_RUN(test_refusal_names_the_request);
    return SC_TEST_RESULT();
}
