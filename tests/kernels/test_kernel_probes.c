/*
 * test_kernel_probes.c: what workloads record about their own process: hardware counters
 * (or why there are none), every thread's CPU time, and the threading variables in force.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "perfcount.h"
#include "sc_test.h"
#include "taskcpu.h"

/* Text written by fn into a temporary stream. */
static char *capture(int (*fn)(FILE *, void *), void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (!f)
        return NULL;
    fn(f, arg);
    fclose(f);
    return text;
}

static int print_counts(FILE *f, void *arg)
{
    return sct_perf_print(f, "counters: ", arg);
}

static int print_env(FILE *f, void *arg)
{
    (void)arg;
    return sct_thread_env_print(f, "env: ");
}

/* The string value of key in o, or NULL. */
static const char *json_str(json_object *o, const char *key)
{
    json_object *v = NULL;

    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* Either counts that add up, or "unavailable" with a reason; both print and parse. */
static void test_counters(void)
{
    struct sct_perf p;
    struct sct_perf_counts total;
    volatile double x = 1;
    json_object *json, *v = NULL;
    char *text;

    sct_perf_counts_init(&total);
    int rc = sct_perf_open(&p);
    SC_CHECK(rc == 0 ? p.available : (!p.available && p.reason[0]));
    sct_perf_start(&p);
    for (int i = 0; i < 1000000; i++)
        x = x * 1.0000001 + 1e-9;
    sct_perf_stop(&p);
    sct_perf_add(&p, &total);
    text = capture(print_counts, &total);
    json = sct_perf_json(&total);
    SC_CHECK(text && json);
    if (rc == 0) {
        SC_CHECK(total.threads == 1 && total.value[SCT_PERF_INSTRUCTIONS] > 1000000);
        SC_CHECK_STR_CONTAINS(text, "counters: cycles=");
        SC_CHECK_STR_EQ(json_str(json, "status"), "ok");
        SC_CHECK(json_object_object_get_ex(json, "instructions", &v) &&
                 json_object_get_uint64(v) == total.value[SCT_PERF_INSTRUCTIONS]);
    } else {
        SC_CHECK_STR_CONTAINS(text, "counters: unavailable: perf_event_open cycles: ");
        SC_CHECK_STR_CONTAINS(json_str(json, "status"), "unavailable: perf_event_open cycles: ");
        SC_CHECK_INT_EQ(json_object_object_length(json), 1);
    }
    free(text);
    json_object_put(json);
}

/* This thread is in the snapshot, and CPU it burns shows up between two snapshots. */
static void test_task_cpu(void)
{
    struct sct_task_snapshot a, b;
    struct timespec t0, t;
    volatile unsigned long spin = 0;

    SC_CHECK(sct_task_snapshot_take(&a) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do { /* 50 ms of CPU */
        spin++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while (t.tv_sec == 0 && t.tv_nsec < 50000000);
    SC_CHECK(sct_task_snapshot_take(&b) == 0);
    double s = sct_task_seconds(&a, &b, gettid());
    SC_CHECK_MSG(s >= 0.02 && s < 5, "burnt %.3f s", s);
    SC_CHECK(sct_task_seconds(&a, &b, 0) == 0); /* no such thread */
    sct_task_snapshot_free(&a);
    sct_task_snapshot_free(&b);
}

/* The threading variables, sorted, escaped; others are left out. */
static void test_thread_env(void)
{
    json_object *json;
    char *text;

    setenv("OMP_WAIT_POLICY", "passive", 1);
    setenv("KMP_BLOCKTIME", "0", 1);
    setenv("OPENBLAS_X", "a\"b\\c\nTRACE_THREAD_BINDING thread=9 cpu=9", 1);
    setenv("NOT_OMP_X", "1", 1);
    text = capture(print_env, NULL);
    json = sct_thread_env_json();
    SC_CHECK(text && json);
    SC_CHECK_STR_CONTAINS(text, "env: KMP_BLOCKTIME=0\n");
    SC_CHECK_STR_CONTAINS(text, "env: OMP_WAIT_POLICY=passive\n");
    SC_CHECK_STR_CONTAINS(text, "env: OPENBLAS_X=a\\\"b\\\\c\\u000aTRACE_THREAD_BINDING");
    SC_CHECK(!strstr(text, "\nTRACE_"));
    SC_CHECK(!strstr(text, "NOT_OMP_X"));
    SC_CHECK(strstr(text, "KMP_BLOCKTIME") < strstr(text, "OMP_WAIT_POLICY"));
    SC_CHECK_STR_EQ(json_str(json, "OMP_WAIT_POLICY"), "passive");
    SC_CHECK_STR_EQ(json_str(json, "OPENBLAS_X"), "a\"b\\c\nTRACE_THREAD_BINDING thread=9 cpu=9");
    SC_CHECK(!json_str(json, "NOT_OMP_X"));
    /* Written, the newline in the value is escaped: no line of the file starts with it. */
    SC_CHECK_STR_CONTAINS(json_object_to_json_string_ext(json, JSON_C_TO_STRING_PRETTY),
                          "c\\nTRACE_THREAD_BINDING");
    free(text);
    json_object_put(json);
}

int main(void)
{
    SC_TEST_RUN(test_counters);
    SC_TEST_RUN(test_task_cpu);
    SC_TEST_RUN(test_thread_env);
    return SC_TEST_RESULT();
}
