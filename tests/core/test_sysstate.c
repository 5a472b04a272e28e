/*
 * test_sysstate.c: the CPU identity from /proc/cpuinfo text (sc_cpu_identity_parse), and the
 * NUMA counters per node from a fake tree (sc_sysstate_numastat).
 */
#include "sc_sysstate.h"
#include "sc_test.h"
#include "sysroot_util.h"

#include <errno.h>

typedef struct cpuinfo_case {
    const char *name;
    const char *text;
    int rc;
    const char *vendor;
    int family, model;
    const char *model_name;
    const char *hint;
} cpuinfo_case;

static const cpuinfo_case cases[] = {
    {"skylake-x",
     "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
     "model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\nmicrocode\t: 0x2007006\n"
     "flags\t\t: fpu vme de pse\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n",
     0, "GenuineIntel", 6, 85, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", ""},
    /* The "model name" line must not be read as "model", whichever comes first. */
    {"model-name-first",
     "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel name\t: Intel(R) Xeon(R)\n"
     "model\t\t: 85\n",
     0, "GenuineIntel", 6, 85, "Intel(R) Xeon(R)", ""},
    /* A family that does not fit an int is unknown, not truncated to 6. */
    {"family-overflow", "vendor_id\t: GenuineIntel\ncpu family\t: 4294967302\nmodel\t\t: 85\n", 0,
     "GenuineIntel", -1, 85, "", ""},
    {"not-a-number", "vendor_id\t: AuthenticAMD\ncpu family\t: 0x19\nmodel\t\t: 17 \r\n", 0,
     "AuthenticAMD", -1, 17, "", ""},
    {"hypervisor", "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: fpu hypervisor lahf\n",
     0, "AuthenticAMD", 25, -1, "", "hypervisor"},
    {"not-hypervisor", "vendor_id\t: AuthenticAMD\nflags\t\t: fpu hypervisor_x\n", 0,
     "AuthenticAMD", -1, -1, "", ""},
    /* arm64: the implementer and part of the MIDR (Graviton2, Grace, A64FX). */
    {"arm64 Neoverse-N1",
     "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 "
     "crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\n"
     "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
     "CPU revision\t: 1\n\nprocessor\t: 1\n",
     0, "ARM", 0x41, 0xd0c, "Neoverse-N1 r3p1", ""},
    {"arm64 Neoverse-V2",
     "CPU implementer\t: 0x41\nCPU variant\t: 0x0\nCPU part\t: 0xd4f\n"
     "CPU revision\t: 0\n",
     0, "ARM", 0x41, 0xd4f, "Neoverse-V2 r0p0", ""},
    {"arm64 A64FX",
     "CPU implementer\t: 0x46\nCPU variant\t: 0x1\nCPU part\t: 0x001\n"
     "CPU revision\t: 0\n",
     0, "Fujitsu", 0x46, 0x001, "A64FX r1p0", ""},
    {"arm64 unknown part", "CPU implementer\t: 0x99\nCPU part\t: 0x123\n", 0,
     "Arm implementer 0x99", 0x99, 0x123, "part 0x123", ""},
    {"arm64 no implementer", "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n", -EINVAL, "",
     -1, -1, "", ""},
    {"arm64 implementer not hex", "CPU implementer\t: 65\n", -EINVAL, "", -1, -1, "", ""},
    {"empty", "", -EINVAL, "", -1, -1, "", ""},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cpuinfo_case *c = &cases[i];
        sc_cpu_identity id;
        int rc = sc_cpu_identity_parse(c->text, &id);
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, expected %d", c->name, rc, c->rc);
        SC_CHECK_MSG(strcmp(id.vendor, c->vendor) == 0, "%s: vendor \"%s\"", c->name, id.vendor);
        SC_CHECK_MSG(id.family == c->family, "%s: family %d, expected %d", c->name, id.family,
                     c->family);
        SC_CHECK_MSG(id.model == c->model, "%s: model %d, expected %d", c->name, id.model,
                     c->model);
        SC_CHECK_MSG(strcmp(id.model_name, c->model_name) == 0, "%s: model name \"%s\"", c->name,
                     id.model_name);
        SC_CHECK_MSG(strcmp(id.flags_hint, c->hint) == 0, "%s: hint \"%s\"", c->name,
                     id.flags_hint);
    }
}

/* Two nodes online, each with its numastat; the table is numastat's, the keys per node. */
static void test_numastat(void)
{
    char *root = sysroot_make();
    sc_fsroot fs;
    sc_kv table, keys;

    SC_CHECK(root != NULL);
    if (!root)
        return;
    sc_kv_init(&table);
    sc_kv_init(&keys);
    SC_CHECK_INT_EQ(sysroot_put(root, "sys/devices/system/node/online", "0-1\n"), 0);
    SC_CHECK_INT_EQ(sysroot_put(root, "sys/devices/system/node/node0/numastat",
                                "numa_hit 100\nnuma_miss 2\nnuma_foreign 3\n"),
                    0);
    SC_CHECK_INT_EQ(sysroot_put(root, "sys/devices/system/node/node1/numastat",
                                "numa_hit 7\nnuma_miss 0\nnuma_foreign 9\n"),
                    0);
    SC_CHECK_INT_EQ(sc_fsroot_open(&fs, root), 0);
    SC_CHECK_INT_EQ(sc_sysstate_numastat(&fs, &table, &keys), 0);
    SC_CHECK_STR_CONTAINS(table.text, "\nnode numa_hit numa_miss numa_foreign\n"
                                      "node0 100 2 3\nnode1 7 0 9\n");
    SC_CHECK_STR_CONTAINS(keys.text, "node0.numa_miss=2\n");
    SC_CHECK_STR_CONTAINS(keys.text, "node1.numa_foreign=9\n");
    sc_fsroot_close(&fs);
    sc_kv_free(&table);
    sc_kv_init(&table);
    /* No node directory at all: said, not an empty table. */
    SC_CHECK_INT_EQ(sysroot_put(root, "sys/devices/system/node/online", "4\n"), 0);
    SC_CHECK_INT_EQ(sc_fsroot_open(&fs, root), 0);
    SC_CHECK_INT_EQ(sc_sysstate_numastat(&fs, &table, NULL), -ENODATA);
    sc_fsroot_close(&fs);
    sc_kv_free(&table);
    sc_kv_free(&keys);
    sysroot_remove(root);
}

int main(void)
{
    SC_TEST_RUN(test_numastat);
    SC_TEST_RUN(test_cases);
    return SC_TEST_RESULT();
}
