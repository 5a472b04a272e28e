/*
 * test_rankadopt.c: which rank an observer counts as the job's own under srun (sc_rankadopt.h),
 * over a tree laid out as /proc: a binding line is held to the process it names (this host,
 * started after the workload, its environment naming this observer and this job, the whole
 * entry), and any other line, host or process is not adopted.
 */
#include "sc_rankadopt.h"
#include "sc_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[64];

/* ROOT/<pid>/stat started at start (clock ticks), named comm; ROOT/<pid>/environ the n
   NUL-separated entries of env. */
static void process(int pid, const char *comm, unsigned long long start, const char *const *env,
                    size_t n)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%d", g_root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%d/stat", g_root, pid);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d (%s) R 1 %d %d 0 -1 4194304 100 0 0 0 10 0 0 0 20 0 1 0 %llu 1000 100\n",
                pid, comm, pid, pid, start);
        fclose(f);
    }
    snprintf(path, sizeof(path), "%s/%d/environ", g_root, pid);
    if ((f = fopen(path, "w"))) {
        for (size_t i = 0; i < n; i++)
            fwrite(env[i], 1, strlen(env[i]) + 1, f);
        fclose(f);
    }
}

#define LINE(host, pid) "TRACE_RANK_BINDING rank=1 host=" host " cpu=1 pid=" pid " allowed=1"

static void test_lines(void)
{
    const char *const ours[] = {"PATH=/bin", "STREAMCARD_OBSERVER=77@n01", "SLURM_JOB_ID=5"};
    const char *const other_job[] = {"STREAMCARD_OBSERVER=77@n01", "SLURM_JOB_ID=6"};
    const char *const other_observer[] = {"STREAMCARD_OBSERVER=76@n01", "SLURM_JOB_ID=5"};
    const char *const longer[] = {"STREAMCARD_OBSERVER=77@n01x", "SLURM_JOB_ID=5"};
    const char *const no_job[] = {"STREAMCARD_OBSERVER=77@n01"};

    process(200, "pingpong", 1000, ours, 3);
    process(201, "a) b (c", 1000, other_job, 2); /* a name with spaces and parentheses */
    process(202, "pingpong", 1000, other_observer, 2);
    process(203, "pingpong", 1000, longer, 2);
    process(204, "pingpong", 1000, no_job, 1);
    process(205, "old", 800, ours, 3); /* started before the workload */
    int root = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    SC_CHECK(root >= 0);
    SC_CHECK(sc_rankadopt_start_ticks(root, "201/stat") == 1000ULL);
    SC_CHECK(sc_rankadopt_start_ticks(root, "299/stat") == 0ULL);
    sc_rankadopt a = {root, "n01", 77, "5", 900};

    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "200")), 200);
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "201")), 0); /* another job */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "202")), 0); /* another observer */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "203")), 0); /* the entry, not a prefix */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "204")), 0); /* no job named */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "205")), 0); /* older than the workload */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n02", "200")), 0); /* another host */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "299")), 0); /* no such process */
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "0")), 0);
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "99999999999")), 0);
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "200") " x"), 0);
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, "TRACE_RANK_THREAD rank=1 host=n01 pid=200 tid=200 "
                                          "cpu=1"),
                    0);
    /* outside a Slurm job no job is asked for */
    a.job_id = NULL;
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "204")), 204);
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "201")), 201);
    /* a workload whose start is unknown adopts nobody */
    a.workload_start = 0;
    SC_CHECK_INT_EQ(sc_rankadopt_line(&a, LINE("n01", "200")), 0);
    close(root);
}

int main(void)
{
    snprintf(g_root, sizeof(g_root), "/tmp/sc-rankadopt-XXXXXX");
    if (!mkdtemp(g_root))
        return 1;
    SC_TEST_RUN(test_lines);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", g_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_root);
    return SC_TEST_RESULT();
}
