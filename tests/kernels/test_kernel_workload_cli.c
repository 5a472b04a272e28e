/*
 * test_kernel_workload_cli.c: the option and test-fault helpers every workload's main() uses.
 */
#include <errno.h>
#include <stdlib.h>

#include "workload_cli.h"
#include "sc_test.h"

static void test_count(void)
{
    static const struct {
        const char *text;
        unsigned long long min, max;
        int rc;
        unsigned long long value;
    } cases[] = {
        {"0", 0, 10, 0, 0},
        {"10", 0, 10, 0, 10},
        {"11", 0, 10, -EINVAL, 0},
        {"1", 2, 10, -EINVAL, 0},
        {"18446744073709551615", 0, ~0ULL, 0, ~0ULL},
        {"18446744073709551616", 0, ~0ULL, -EINVAL, 0},
        {"", 0, 10, -EINVAL, 0},
        {"-1", 0, 10, -EINVAL, 0},
        {"+1", 0, 10, -EINVAL, 0},
        {" 1", 0, 10, -EINVAL, 0},
        {"1 ", 0, 10, -EINVAL, 0},
        {"1k", 0, 10, -EINVAL, 0},
        {"0x10", 0, 100, -EINVAL, 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned long long v = 12345;
        int rc =
            sct_cli_count("test", "--n", cases[i].text, cases[i].min, cases[i].max, "valid", &v);
        SC_CHECK_MSG(rc == cases[i].rc, "'%s': rc %d, expected %d", cases[i].text, rc, cases[i].rc);
        SC_CHECK_MSG(rc != 0 || v == cases[i].value, "'%s': value %llu", cases[i].text, v);
    }
}

static void test_fault(void)
{
    static const struct {
        const char *value; /* NULL: unset */
        int rc;
        enum sct_fault fault;
    } cases[] = {
        {NULL, 0, SCT_FAULT_NONE},         {"", 0, SCT_FAULT_NONE},
        {"corrupt", 0, SCT_FAULT_CORRUPT}, {"crash", 0, SCT_FAULT_CRASH},
        {"hang", 0, SCT_FAULT_HANG},       {"Crash", -EINVAL, SCT_FAULT_NONE},
        {"boom", -EINVAL, SCT_FAULT_NONE},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum sct_fault f = SCT_FAULT_HANG;
        if (cases[i].value)
            setenv("STREAMCARD_FAULT", cases[i].value, 1);
        else
            unsetenv("STREAMCARD_FAULT");
        SC_CHECK_INT_EQ(sct_fault_read("test", &f), cases[i].rc);
        SC_CHECK_INT_EQ(f, cases[i].fault);
    }
    unsetenv("STREAMCARD_FAULT");
    sct_fault_strike(SCT_FAULT_NONE); /* returns */
    sct_fault_strike(SCT_FAULT_CORRUPT);
}

int main(void)
{
    SC_TEST_RUN(test_count);
    SC_TEST_RUN(test_fault);
    return SC_TEST_RESULT();
}
