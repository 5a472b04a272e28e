/*
 * test_jobcpus.c: the job's CPUs from its cpuset cgroup, found through /proc/self/cgroup
 * lines, against a fake cgroup tree (v1 cpuset hierarchy and v2 unified) under /tmp.
 */
#include "jobcpus.h"
#include "sc_test.h"

#include <errno.h>
#include <stdlib.h>

static char root[] = "/tmp/sc-test-jobcpus.XXXXXX";

static void put(const char *rel, const char *text)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s/%s)\" && printf '%%s' '%s' >%s/%s", root,
             rel, text, root, rel);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot write %s\n", rel);
}

typedef struct job_case {
    const char *name, *proc_cgroup;
    unsigned job;
    int rc;
    const char *cpus; /* expected, when rc is 0 */
} job_case;

static const job_case cases[] = {
    {"v1, a task of step 0", "12:cpuset:/slurm_n1/uid_1001/job_42/step_0/task_0\n0::/x\n", 42, 0,
     "0-3"},
    {"v1, the batch step",
     "3:memory:/slurm_n1/uid_1001/job_42/step_batch\n"
     "4:cpuset:/slurm_n1/uid_1001/job_42/step_batch\n",
     42, 0, "0-3"},
    {"v1, another job's id as a prefix", "4:cpuset:/slurm_n1/uid_1001/job_4/step_0\n", 42, -ENOENT,
     NULL},
    {"v1, job_42 not a whole component", "4:cpuset:/slurm_n1/uid_1001/job_420/step_0\n", 42,
     -ENOENT, NULL},
    {"v2 unified", "0::/system.slice/slurmstepd.scope/job_7/step_1/user/task_0\n", 7, 0, "1,3"},
    {"no cgroup of the job (task/affinity only)", "0::/user.slice/session-1.scope\n", 42, -ENOENT,
     NULL},
    {"hybrid: the v2 line leads nowhere, the v1 line is read",
     "0::/slurm_n1/uid_1001/job_9/step_0\n4:cpuset:/slurm_n1/uid_1001/job_9/step_0\n", 9, 0, "2"},
    {"a line without colons", "garbage\n", 42, -ENOENT, NULL},
};

static void test_cases(void)
{
    SC_CHECK(mkdtemp(root) != NULL);
    put("cpuset/slurm_n1/uid_1001/job_42/cpuset.cpus", "0-3\n");
    put("cpuset/slurm_n1/uid_1001/job_42/step_0/cpuset.cpus", "1\n"); /* the step's share */
    put("cpuset/slurm_n1/uid_1001/job_4/cpuset.cpus", "0\n");
    put("cpuset/slurm_n1/uid_1001/job_420/cpuset.cpus", "0\n");
    put("system.slice/slurmstepd.scope/job_7/cpuset.cpus.effective", "1,3\n");
    put("cpuset/slurm_n1/uid_1001/job_9/cpuset.cpus", "2\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const job_case *c = &cases[i];
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        int rc = sc_job_cpuset(c->proc_cgroup, c->job, root, set);
        char got[64] = "";
        hwloc_bitmap_list_snprintf(got, sizeof(got), set);
        hwloc_bitmap_free(set);
        SC_CHECK_MSG(rc == c->rc, "case \"%s\": rc %d, expected %d", c->name, rc, c->rc);
        if (c->rc == 0)
            SC_CHECK_MSG(strcmp(got, c->cpus) == 0, "case \"%s\": cpus %s, expected %s", c->name,
                         got, c->cpus);
    }
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    SC_CHECK_INT_EQ(system(cmd), 0);
}

/* The other jobs beside ours, from the cgroup trees of cgroup v1 (cpuset and freezer, under
   every uid) and v2; a job in no cgroup cannot see them. */
static void test_jobs_beside(void)
{
    static const struct {
        const char *name, *proc_cgroup;
        unsigned job;
        int rc;
        const char *jobs;
    } beside[] = {
        {"v1: other users' jobs, one only in freezer",
         "12:cpuset:/slurm_n1/uid_1001/job_42/step_0/task_0\n"
         "7:freezer:/slurm_n1/uid_1001/job_42/step_0\n0::/x\n",
         42, 0, "43 77 88"},
        {"v1: alone", "12:cpuset:/slurm_n2/uid_1001/job_5/step_batch\n", 5, 0, ""},
        {"v2: the node's scope", "0::/system.slice/n1_slurmstepd.scope/job_7/step_0/user/task_0\n",
         7, 0, "8"},
        {"no cgroup of the job", "0::/user.slice/session-1.scope\n", 42, -ENOENT, ""},
    };
    put("cpuset/slurm_n1/uid_1001/job_42/cpuset.cpus", "0-1\n");
    put("cpuset/slurm_n1/uid_1001/job_43/cpuset.cpus", "2\n");
    put("cpuset/slurm_n1/uid_1002/job_77/cpuset.cpus", "3\n");
    put("cpuset/slurm_n1/uid_1002/not_a_job/x", "\n");
    put("cpuset/slurm_n1/uid_1002/job_077/x", "\n"); /* not a canonical job id */
    put("freezer/slurm_n1/uid_1002/job_88/freezer.state", "THAWED\n");
    put("cpuset/slurm_n2/uid_1001/job_5/cpuset.cpus", "0\n");
    put("system.slice/n1_slurmstepd.scope/job_7/cpuset.cpus.effective", "0\n");
    put("system.slice/n1_slurmstepd.scope/job_8/cpuset.cpus.effective", "1\n");
    for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
        uint32_t *jobs = NULL;
        size_t n = 0;
        char got[256] = "";
        int rc = sc_jobs_beside(beside[i].proc_cgroup, beside[i].job, root, &jobs, &n);
        for (size_t j = 0; j < n; j++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", j ? " " : "", jobs[j]);
        free(jobs);
        SC_CHECK_MSG(rc == beside[i].rc && strcmp(got, beside[i].jobs) == 0,
                     "%s: rc %d, jobs \"%s\" (want %d, \"%s\")", beside[i].name, rc, got,
                     beside[i].rc, beside[i].jobs);
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    SC_CHECK(system(cmd) == 0);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_jobs_beside);
    return SC_TEST_RESULT();
}
