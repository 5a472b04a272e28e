/*
 * test_runenv.c: which environment variables count as the runtimes' (every pattern of the
 * brief, and names that only look alike), and the filter that keeps them from a process's
 * environment block, sorted, one line each, nothing else (no PATH, no secrets).
 */
#include "sc_runenv.h"
#include "sc_test.h"

#include <stdlib.h>

static void test_read(void)
{
    static const struct {
        const char *name;
        bool read;
    } cases[] = {
        {"OMP_WAIT_POLICY", true},   {"GOMP_SPINCOUNT", true},  {"KMP_BLOCKTIME", true},
        {"OPENBLAS_CORETYPE", true}, {"GOTO_NUM_THREADS", true}, {"MKL_CBWR", true},
        {"OMPI_MCA_btl", true},      {"OMPI_ALLOW_RUN_AS_ROOT", true},
        {"PMIX_MCA_gds", true},      {"FI_PROVIDER", true},     {"UCX_TLS", true},
        {"I_MPI_FABRICS", true},     {"MALLOC_ARENA_MAX", true}, {"GLIBC_TUNABLES", true},
        {"LD_PRELOAD", true},        {"LD_LIBRARY_PATH", true}, {"PATH", false},
        {"HOME", false},             {"OMP", false},            {"LD_PRELOADX", false},
        {"XOMP_A", false},           {"PMIX_RANK", false},      {"SLURM_JOB_ID", false},
        {"GLIBC_TUNABLES2", false},  {"SECRET_TOKEN", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        SC_CHECK_MSG(sc_runenv_read(cases[i].name, strlen(cases[i].name)) == cases[i].read,
                     "%s: expected %d", cases[i].name, cases[i].read);
    SC_CHECK(sc_runenv_placement("OMP_PLACES", 10));
    SC_CHECK(!sc_runenv_placement("OMP_WAIT_POLICY", 15));
    SC_CHECK(strstr(sc_runenv_patterns(), "LD_LIBRARY_PATH") != NULL);
}

static void test_filter(void)
{
    static const char block[] = "PATH=/bin\0OMP_WAIT_POLICY=active\0TOKEN=s3cret\0"
                                "FI_PROVIDER=tcp\0LD_PRELOAD=a b\tc\0OMP_=x\0NOEQUALS\0"
                                "OMPI_MCA_btl=tcp,self";
    char *out = NULL;

    SC_CHECK_INT_EQ(sc_runenv_filter(block, sizeof(block) - 1, &out), 0);
    SC_CHECK_STR_EQ(out, "FI_PROVIDER=tcp\nLD_PRELOAD=a b?c\nOMPI_MCA_btl=tcp,self\n"
                         "OMP_=x\nOMP_WAIT_POLICY=active\n");
    free(out);
    SC_CHECK_INT_EQ(sc_runenv_filter("", 0, &out), 0);
    SC_CHECK_STR_EQ(out, "");
    free(out);
}

int main(void)
{
    SC_TEST_RUN(test_read);
    SC_TEST_RUN(test_filter);
    return SC_TEST_RESULT();
}
