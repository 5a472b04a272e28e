/*
 * test_workloads.c: the table of workload modules (sc_workload.h) holds together: every
 * workload of the enum has its module, found by enum and by name; the keys a module lists
 * are card keys; what a workload reads and which gates are its own follow from the lists.
 */
#include "sc_card.h"
#include "sc_metric.h"
#include "sc_test.h"

#include <string.h>

static void test_lookup(void)
{
    size_t n = 0;

    SC_CHECK(sc_workload_ops_of(SC_WORKLOAD_NONE) == NULL);
    SC_CHECK(sc_workload_ops_of(SC_WORKLOAD_COUNT) == NULL);
    SC_CHECK(sc_workload_lookup("none") == NULL && sc_workload_lookup(NULL) == NULL);
    SC_CHECK_STR_EQ(sc_workload_name(SC_WORKLOAD_NONE), "none");
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops)); n++) {
        SC_CHECK(sc_workload_ops_of(ops->id) == ops);
        SC_CHECK(sc_workload_lookup(ops->name) == ops);
        SC_CHECK_STR_EQ(sc_workload_name(ops->id), ops->name);
        SC_CHECK(ops->program && strncmp(ops->program, "streamcard-", 11) == 0);
        SC_CHECK(ops->n_metrics > 0 && ops->metric_defaults && ops->metric_primary);
        for (size_t k = 0; k < ops->n_keys; k++)
            SC_CHECK(ops->keys[k] > SC_CF_WORKLOAD && ops->keys[k] < SC_CF_COUNT);
    }
    SC_CHECK_INT_EQ((long)n, (long)SC_WORKLOAD_COUNT - 1);
}

static void test_names(void)
{
    char names[128];

    sc_workload_names(", ", names, sizeof(names));
    SC_CHECK_STR_EQ(names, "stream, ipsearch, mpi-pingpong");
    sc_workload_readers(SC_CF_KERNEL, " or ", names, sizeof(names));
    SC_CHECK_STR_EQ(names, "stream or mpi-pingpong");
    sc_workload_readers(SC_CF_THREADS, " or ", names, sizeof(names));
    SC_CHECK_STR_EQ(names, ""); /* every workload's: no module lists it */
}

/* The table answers for keys and MPI, never naming a workload to its callers. */
static void test_questions(void)
{
    const sc_workload_ops *stream = sc_workload_lookup("stream");
    const sc_workload_ops *ipsearch = sc_workload_lookup("ipsearch");
    const sc_workload_ops *mpi = sc_workload_lookup("mpi-pingpong");
    sc_card card = {0};

    SC_CHECK(stream && ipsearch && mpi);
    SC_CHECK(sc_workload_reads(stream->id, SC_CF_ARRAY_SIZE));
    SC_CHECK(!sc_workload_reads(ipsearch->id, SC_CF_ARRAY_SIZE));
    SC_CHECK(sc_workload_reads(ipsearch->id, SC_CF_BLAS));
    SC_CHECK(!sc_workload_reads(mpi->id, SC_CF_MEMORY_NODE));
    SC_CHECK(sc_workload_reads(mpi->id, SC_CF_CPU_LIST) && sc_workload_reads(0, SC_CF_CPU_LIST));
    SC_CHECK(!sc_workload_reads(SC_WORKLOAD_NONE, SC_CF_ITERATIONS));
    SC_CHECK(sc_workload_own_key(SC_CF_NB) && !sc_workload_own_key(SC_CF_ENV));
    card.workload = mpi->id;
    SC_CHECK(sc_workload_mpi(&card));
    card.workload = stream->id;
    SC_CHECK(!sc_workload_mpi(&card) && !sc_workload_mpi(NULL));
    SC_CHECK(stream->n_gates == 2 && stream->gate && ipsearch->n_gates == 0);
}

/* Each module's metrics are found by name in the registry, as its own. */
static void test_metrics(void)
{
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops));) {
        sc_card card = {.workload = ops->id, .min_bytes = 8, .max_bytes = 1024};
        sc_metric m[SC_METRIC_MAX], primary;
        size_t n = sc_metric_defaults(&card, NULL, SC_METRIC_ALL, m, SC_METRIC_MAX);
        SC_CHECK_MSG(n > 0, "%s: no default metric", ops->name);
        for (size_t i = 0; i < n; i++)
            SC_CHECK_INT_EQ(m[i].workload, ops->id);
        SC_CHECK(sc_metric_primary(&card, NULL, &primary) == 0 && primary.workload == ops->id);
    }
}

int main(void)
{
    SC_TEST_RUN(test_lookup);
    SC_TEST_RUN(test_names);
    SC_TEST_RUN(test_questions);
    SC_TEST_RUN(test_metrics);
    return SC_TEST_RESULT();
}
