/*
 * test_kernel_simdevents.c: which raw events count packed and scalar FP instructions, chosen
 * from /proc/cpuinfo texts of several CPUs; unknown CPUs get a reason naming them.
 */
#include "simdevents.h"
#include "sc_test.h"

#define CPUINFO(vendor, family, model)                                                             \
    "processor\t: 0\nvendor_id\t: " vendor "\ncpu family\t: " family "\nmodel\t\t: " model         \
    "\nmodel name\t: some cpu\n\nprocessor\t: 1\nvendor_id\t: Other\n"

typedef struct simd_case {
    const char *name, *cpuinfo;
    int known;
    unsigned long long packed, scalar;
    const char *why; /* substring, when not known */
} simd_case;

static const simd_case cases[] = {
    {"Skylake-SP", CPUINFO("GenuineIntel", "6", "85"), 1, 0xFCC7, 0x03C7, NULL},
    {"Ice Lake-SP", CPUINFO("GenuineIntel", "6", "106"), 1, 0xFCC7, 0x03C7, NULL},
    {"Sapphire Rapids", CPUINFO("GenuineIntel", "6", "143"), 1, 0xFCC7, 0x03C7, NULL},
    {"Haswell: no FP_ARITH", CPUINFO("GenuineIntel", "6", "63"), 0, 0, 0,
     "GenuineIntel family 6 model 63: no known raw event"},
    {"Alder Lake: hybrid", CPUINFO("GenuineIntel", "6", "151"), 0, 0, 0, "model 151"},
    {"Zen 4", CPUINFO("AuthenticAMD", "25", "17"), 0, 0, 0,
     "AuthenticAMD family 25 model 17: the PMU counts retired SSE/AVX operations"},
    {"no identity", "processor\t: 0\n", 0, 0, 0, "no vendor_id, cpu family and model"},
    {"empty", "", 0, 0, 0, "no vendor_id"},
    {"model name before model", "vendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                                "model name\t: Intel Xeon 85\nmodel\t\t: 63\n",
     0, 0, 0, "model 63"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const simd_case *c = &cases[i];
        struct sct_simd_events ev;
        sct_simd_events_for(c->cpuinfo, &ev);
        SC_CHECK_MSG(ev.known == c->known, "case %s: known %d (%s)", c->name, ev.known, ev.why);
        if (c->known) {
            SC_CHECK_MSG(ev.packed == c->packed && ev.scalar == c->scalar,
                         "case %s: packed %#llx scalar %#llx", c->name,
                         (unsigned long long)ev.packed, (unsigned long long)ev.scalar);
        } else {
            SC_CHECK_MSG(strstr(ev.why, c->why), "case %s: why \"%s\" lacks \"%s\"", c->name,
                         ev.why, c->why);
        }
    }
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    return SC_TEST_RESULT();
}
