/* test_arch.c: CPU identification -> prefetch control class, table-driven. */
#include "sc_arch.h"
#include "fake_node.h"
#include "sc_test.h"

typedef struct arch_case {
    const char *name;
    const char *vendor;
    int family, model;
    sc_arch_kind expect;
    const char *reason; /* substring of the refusal; NULL when supported */
} arch_case;

static const arch_case cases[] = {
    {"Skylake-SP", "GenuineIntel", 6, 0x55, SC_ARCH_INTEL_CORE, NULL},
    {"Nehalem-EP", "GenuineIntel", 6, 0x1a, SC_ARCH_INTEL_CORE, NULL},
    {"Sapphire Rapids", "GenuineIntel", 6, 0x8f, SC_ARCH_INTEL_CORE, NULL},
    {"Alder Lake (hybrid)", "GenuineIntel", 6, 0x97, SC_ARCH_INTEL_CORE, NULL},
    {"Atom Goldmont-D (Denverton)", "GenuineIntel", 6, 0x5f, SC_ARCH_INTEL_ATOM, NULL},
    {"Atom Tremont-D (Snow Ridge)", "GenuineIntel", 6, 0x86, SC_ARCH_INTEL_ATOM, NULL},
    {"Atom Silvermont-D (Avoton)", "GenuineIntel", 6, 0x4d, SC_ARCH_INTEL_ATOM, NULL},
    {"Atom Silvermont (Bay Trail)", "GenuineIntel", 6, 0x37, SC_ARCH_UNSUPPORTED,
     "not in the list of CPUs with a known MSR 0x1A4 layout"},
    {"Crestmont (Sierra Forest)", "GenuineIntel", 6, 0xaf, SC_ARCH_UNSUPPORTED, "Crestmont"},
    {"Xeon Phi KNL", "GenuineIntel", 6, 0x57, SC_ARCH_UNSUPPORTED, "Xeon Phi swaps the bits"},
    {"Xeon Phi KNM", "GenuineIntel", 6, 0x85, SC_ARCH_UNSUPPORTED, "Xeon Phi swaps the bits"},
    {"Core 2 Penryn", "GenuineIntel", 6, 0x17, SC_ARCH_UNSUPPORTED, "Core 2 and older"},
    {"Core 2 Merom", "GenuineIntel", 6, 0x0f, SC_ARCH_UNSUPPORTED, "Core 2 and older"},
    {"NetBurst", "GenuineIntel", 15, 4, SC_ARCH_UNSUPPORTED, "only Intel family 6"},
    {"AMD Zen 2 (Rome)", "AuthenticAMD", 0x17, 0x31, SC_ARCH_UNSUPPORTED,
     "AuthenticAMD family 0x17 model 0x31 (Zen 1/2): its prefetch control registers are "
     "undocumented; refusing to write them"},
    {"AMD Zen 3 (Milan)", "AuthenticAMD", 0x19, 0x01, SC_ARCH_AMD_ZEN3_5, NULL},
    {"AMD Zen 3+ (Rembrandt)", "AuthenticAMD", 0x19, 0x44, SC_ARCH_AMD_ZEN3_5, NULL},
    {"AMD Zen 4 (Genoa)", "AuthenticAMD", 0x19, 0x11, SC_ARCH_AMD_ZEN3_5, NULL},
    {"AMD Zen 5 (Turin)", "AuthenticAMD", 0x1a, 0x02, SC_ARCH_AMD_ZEN3_5, NULL},
    {"AMD family 0x15", "AuthenticAMD", 0x15, 0x01, SC_ARCH_UNSUPPORTED,
     "only AMD families 0x19 and 0x1a"},
    {"Hygon", "HygonGenuine", 0x18, 0x01, SC_ARCH_UNSUPPORTED, "no prefetch control is known"},
    {"unknown vendor", "CentaurHauls", 6, 0x0f, SC_ARCH_UNSUPPORTED,
     "no prefetch control is known for this vendor"},
    {"no family", "GenuineIntel", -1, -1, SC_ARCH_UNSUPPORTED, "no cpu family or model"},
    /* Arm: every part refused, the known ones with their register's reason. */
    {"Neoverse-N1 (Graviton2)", "ARM", 0x41, 0xd0c, SC_ARCH_UNSUPPORTED,
     "ARM implementer 0x41 part 0xd0c: its prefetchers are set in CPUECTLR_EL1"},
    {"Neoverse-V1 (Graviton3)", "ARM", 0x41, 0xd40, SC_ARCH_UNSUPPORTED, "CPUECTLR_EL1"},
    {"Neoverse-V2 (Grace)", "ARM", 0x41, 0xd4f, SC_ARCH_UNSUPPORTED, "no msr device"},
    {"A64FX", "Fujitsu", 0x46, 0x001, SC_ARCH_UNSUPPORTED, "Fujitsu's IMP_PF_* system registers"},
    {"AmpereOne", "Ampere", 0xc0, 0xac3, SC_ARCH_UNSUPPORTED,
     "no Arm part has a prefetch control that Linux lets a process write"},
};

static void test_identify_table(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const arch_case *c = &cases[i];
        sc_cpu_identity id;
        sc_arch arch;

        memset(&id, 0, sizeof(id));
        snprintf(id.vendor, sizeof(id.vendor), "%s", c->vendor);
        id.family = c->family;
        id.model = c->model;
        sc_arch_identify(&id, &arch);
        SC_CHECK_MSG(arch.kind == c->expect, "%s: kind %s, expected %s (%s)", c->name,
                     sc_arch_name(arch.kind), sc_arch_name(c->expect), arch.reason);
        if (c->reason) {
            SC_CHECK_MSG(strstr(arch.reason, c->reason), "%s: reason \"%s\" lacks \"%s\"", c->name,
                         arch.reason, c->reason);
        } else {
            SC_CHECK_MSG(arch.reason[0] == '\0' && arch.uarch[0], "%s: reason \"%s\" uarch \"%s\"",
                         c->name, arch.reason, arch.uarch);
        }
    }
}

/* The same path the plugin takes: proc/cpuinfo under a sysroot. */
static void test_read_from_cpuinfo(void)
{
    fake_node n = {"AuthenticAMD", 0x19, 0x11, 2, 0, 0, NULL, NULL};
    char *root = fake_node_make(&n);
    sc_fsroot fs;
    sc_arch arch;

    SC_CHECK(root);
    SC_CHECK_INT_EQ(sc_fsroot_open(&fs, root), 0);
    SC_CHECK_INT_EQ(sc_arch_read(&fs, &arch), 0);
    sc_fsroot_close(&fs);
    SC_CHECK_STR_EQ(sc_arch_name(arch.kind), "amd-zen3-5");
    SC_CHECK_STR_EQ(arch.cpu, "AuthenticAMD family 0x19 model 0x11");
    sysroot_remove(root);
}

/* An arm64 node's cpuinfo (Graviton2) under a sysroot: read, and the change refused. */
static void test_read_arm_cpuinfo(void)
{
    char *root = sysroot_make();
    sc_fsroot fs;
    sc_arch arch;

    SC_CHECK(root);
    SC_CHECK(sysroot_put(root, "proc/cpuinfo",
                         "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm\n"
                         "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n"
                         "CPU part\t: 0xd0c\nCPU revision\t: 1\n") == 0);
    SC_CHECK_INT_EQ(sc_fsroot_open(&fs, root), 0);
    SC_CHECK_INT_EQ(sc_arch_read(&fs, &arch), 0);
    sc_fsroot_close(&fs);
    sysroot_remove(root);
    SC_CHECK_INT_EQ(arch.kind, SC_ARCH_UNSUPPORTED);
    SC_CHECK_STR_EQ(arch.uarch, "Neoverse-N1 (Graviton2, Ampere Altra)");
    SC_CHECK_STR_CONTAINS(arch.reason, "ARM implementer 0x41 part 0xd0c: its prefetchers");
}

static void test_no_cpuinfo(void)
{
    char *root = sysroot_make();
    sc_fsroot fs;
    sc_arch arch;

    SC_CHECK(root);
    SC_CHECK_INT_EQ(sc_fsroot_open(&fs, root), 0);
    SC_CHECK_INT_EQ(sc_arch_read(&fs, &arch), -ENOENT);
    sc_fsroot_close(&fs);
    SC_CHECK_INT_EQ(arch.kind, SC_ARCH_UNSUPPORTED);
    SC_CHECK_STR_CONTAINS(arch.reason, "cannot identify the CPU from proc/cpuinfo");
    sysroot_remove(root);
}

int main(void)
{
    SC_TEST_RUN(test_identify_table);
    SC_TEST_RUN(test_read_from_cpuinfo);
    SC_TEST_RUN(test_read_arm_cpuinfo);
    SC_TEST_RUN(test_no_cpuinfo);
    return SC_TEST_RESULT();
}
