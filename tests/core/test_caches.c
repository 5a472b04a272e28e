/*
 * test_caches.c: the stream_array rule's caches (sc_caches.h): the probe's edge from its
 * points, the probe's output and caches.txt read back (a forged edge refused), whether a
 * report is believed on a fake sysroot, and the sizes the rule asks for.
 */
#include "sc_caches.h"
#include "sc_test.h"
#include "sysroot_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define MIB ((uint64_t)1 << 20)

/* A probe's curve: rates (GB/s) at sizes from 256 KiB in steps of sqrt(2). */
typedef struct curve_case {
    const char *name;
    double gbps[32];
    unsigned n;
    int rc;              /* of sc_caches_edge() */
    unsigned edge_index; /* the point that is the edge, when rc == 0 */
    bool disturbed;
} curve_case;

/* 23 points: 256 KiB .. 512 MiB. The clean curve of this project's 2-vCPU VM (Xeon, AVX-512,
   2 threads): L2 to 3 MiB, L3 to 128 MiB, memory beyond. */
#define CLEAN                                                                                      \
    {                                                                                              \
        151, 173, 204, 223, 238, 254, 265, 240, 103, 70, 61, 63, 66, 67, 62, 63, 63, 62, 61, 26,   \
            29, 32, 17                                                                             \
    }

static const curve_case curves[] = {
    {"clean", CLEAN, 23, 0, 19, false},
    /* Passes slowed by other work (a descheduled thread): low points in the caches' range
       are read through the envelope, and the probe is called disturbed. */
    {"low outliers",
     {151, 173, 204, 1,  238, 254, 265, 240, 103, 70, 61, 63,
      66,  2,   62,  63, 63,  62,  61,  26,  29,  32, 17},
     23,
     0,
     19,
     true},
    /* A quiet moment of the memory (a neighbour paused) is no cache. */
    {"one fast memory point",
     {151, 173, 204, 223, 238, 254, 265, 240, 103, 70, 61, 63,
      66,  67,  62,  63,  63,  62,  61,  26,  29,  32, 38},
     23,
     0,
     19,
     false},
    /* Rates that never fall: the probe saw no cache (the rule keeps the reported size). */
    {"flat", {20, 20, 21, 20, 20, 20, 20, 20, 20, 20, 20, 20}, 12, -ENODATA, 0, false},
    {"too few points", {100, 100, 10, 10, 10}, 5, -ENODATA, 0, true},
};

static void curve_fill(const curve_case *c, sc_llc *llc)
{
    memset(llc, 0, sizeof(*llc));
    for (unsigned i = 0; i < c->n; i++) {
        double size = 256 * 1024 * pow(1.4142135623730951, i); /* sqrt(2)^i */
        llc->points[i].bytes = (uint64_t)size / 4096 * 4096;
        llc->points[i].mbps = c->gbps[i] * 1000;
    }
    llc->n_points = c->n;
}

static void test_edge(void)
{
    for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++) {
        const curve_case *c = &curves[i];
        sc_llc llc;
        curve_fill(c, &llc);
        int rc = sc_caches_edge(&llc);
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, expected %d", c->name, rc, c->rc);
        if (rc == 0)
            SC_CHECK_MSG(llc.edge_bytes == llc.points[c->edge_index].bytes,
                         "%s: edge %llu, expected point %u (%llu)", c->name,
                         (unsigned long long)llc.edge_bytes, c->edge_index,
                         (unsigned long long)llc.points[c->edge_index].bytes);
        else
            SC_CHECK_MSG(llc.edge_bytes == 0, "%s: an edge without a rate to show it", c->name);
        SC_CHECK_MSG(sc_caches_probe_disturbed(&llc) == c->disturbed, "%s: disturbed %d", c->name,
                     !c->disturbed);
    }
}

/* The rule: the reported size where it is believed, the edge where it is not. */
static void test_rule(void)
{
    sc_llc llc;

    curve_fill(&curves[0], &llc);
    llc.bytes = 260 * MIB;
    sc_caches_edge(&llc);
    SC_CHECK_INT_EQ(sc_caches_rule_bytes(&llc), 260 * MIB);
    SC_CHECK_INT_EQ(sc_caches_min_array_size(&llc), 4 * 260 * MIB / 8);
    llc.untrusted = true;
    SC_CHECK_INT_EQ(sc_caches_rule_bytes(&llc), llc.points[19].bytes);
    SC_CHECK_INT_EQ(sc_caches_min_array_size(&llc), 4 * llc.points[19].bytes / 8);
    uint64_t autosize = sc_caches_auto_array_size(&llc);
    SC_CHECK(autosize >= sc_caches_min_array_size(&llc));
    SC_CHECK(autosize % SC_CACHES_AUTO_GRANULE == 0);
    SC_CHECK(autosize < sc_caches_min_array_size(&llc) + SC_CACHES_AUTO_GRANULE);
    /* No edge: the untrusted report still holds the rule (the larger, safe size). */
    llc.edge_bytes = 0;
    SC_CHECK_INT_EQ(sc_caches_rule_bytes(&llc), 260 * MIB);
    /* What the probe reads: twice the report, within a quarter of the free memory. */
    SC_CHECK_INT_EQ(sc_caches_probe_bytes(&llc, (uint64_t)64 << 30), 520 * MIB);
    SC_CHECK_INT_EQ(sc_caches_probe_bytes(&llc, (uint64_t)1 << 30), 256 * MIB);
    llc.bytes = 8 * MIB;
    SC_CHECK_INT_EQ(sc_caches_probe_bytes(&llc, (uint64_t)64 << 30), SC_CACHES_PROBE_MIN_BYTES);
}

/* The probe's own output, as streamcard-stream --cache-probe prints it. */
static void test_probe_parse(void)
{
    static const char good[] = "cache_probe threads=2 isa=avx2 cpus=0,1\n"
                               "cache_probe bytes=262144 MBps=150000.0\n"
                               "cache_probe bytes=524288 MBps=150000.0\n"
                               "cache_probe bytes=1048576 MBps=60000.0\n"
                               "cache_probe bytes=2097152 MBps=60000.0\n"
                               "cache_probe bytes=4194304 MBps=15000.0\n"
                               "cache_probe bytes=8388608 MBps=15000.5\n"
                               "cache_probe bytes=16777216 MBps=14000.0\n";
    sc_llc llc = {0};

    SC_CHECK_INT_EQ(sc_caches_probe_parse(good, &llc), 0);
    SC_CHECK_INT_EQ(llc.n_points, 7);
    SC_CHECK_INT_EQ(llc.probe_threads, 2);
    SC_CHECK_STR_EQ(llc.probe_isa, "avx2");
    SC_CHECK_STR_EQ(llc.probe_cpus, "0,1");
    SC_CHECK_INT_EQ(llc.edge_bytes, 4194304);
    /* Sizes must grow; a set-up line is needed; too few points show nothing. */
    static const char *const bad[] = {
        ("cache_probe threads=2 isa=avx2 cpus=0\ncache_probe bytes=2 MBps=1\ncache_probe bytes=1 "
         "MBps=1\n"),
        "cache_probe bytes=262144 MBps=1.0\ncache_probe bytes=524288 MBps=1.0\n",
        "cache_probe threads=1 isa=avx2 cpus=0\ncache_probe bytes=262144 MBps=1.0\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        SC_CHECK_MSG(sc_caches_probe_parse(bad[i], &llc) == -EBADMSG, "bad %zu parsed", i);
}

/* caches.txt: written and read back; an edited edge or point is refused. */
static void test_text_roundtrip(void)
{
    sc_llc llc, back;

    curve_fill(&curves[0], &llc);
    llc.level = 3;
    llc.instances = 1;
    llc.bytes = 260 * MIB;
    llc.cores = 2;
    llc.untrusted = true;
    snprintf(llc.why, sizeof(llc.why), "a hypervisor (cpuinfo's flags)");
    llc.probe_threads = 2;
    snprintf(llc.probe_isa, sizeof(llc.probe_isa), "avx512f");
    snprintf(llc.probe_cpus, sizeof(llc.probe_cpus), "0,1");
    sc_caches_edge(&llc);
    char *text = sc_caches_text(&llc);
    SC_CHECK(text);
    SC_CHECK_STR_CONTAINS(text, "llc_trusted=no\n");
    SC_CHECK_STR_CONTAINS(text, "probe_edge_bytes=");
    int rc = sc_caches_parse(text, &back);
    SC_CHECK_INT_EQ(rc, 0);
    SC_CHECK(back.untrusted);
    SC_CHECK_INT_EQ(back.edge_bytes, llc.edge_bytes);
    SC_CHECK_INT_EQ(back.n_points, llc.n_points);
    SC_CHECK_STR_EQ(back.why, llc.why);

    /* An edge that is not the one the points give: refused. */
    char forged[8192];
    snprintf(forged, sizeof(forged), "%sprobe_edge_bytes=262144\n", text);
    SC_CHECK_INT_EQ(sc_caches_parse(forged, &back), -EBADMSG);
    free(text);
    /* A point edited (a memory-speed working set made fast) with the edge left as it was:
       the points now give another edge, so the claim is refused. */
    llc.points[19].mbps = 70000;
    SC_CHECK((text = sc_caches_text(&llc)));
    SC_CHECK_INT_EQ(sc_caches_parse(text, &back), -EBADMSG);
    free(text);
    /* Points out of order: refused. */
    SC_CHECK_INT_EQ(sc_caches_parse("llc_bytes=1\nllc_trusted=no\nprobe_points=2:1 1:1 3:1 4:1 "
                                    "5:1 6:1\nprobe_edge_bytes=0\n",
                                    &back),
                    -EBADMSG);

    /* A bundle written before the rule measured: believed, as it was then. */
    SC_CHECK_INT_EQ(sc_caches_parse("llc_level=3\nllc_instances=1\nllc_bytes=33554432\n", &back),
                    0);
    SC_CHECK(!back.untrusted);
    SC_CHECK_INT_EQ(sc_caches_rule_bytes(&back), 32 * MIB);
    SC_CHECK_INT_EQ(sc_caches_parse("llc_level=3\n", &back), -ENODATA);
    SC_CHECK_INT_EQ(sc_caches_parse(NULL, &back), -ENODATA);
}

/* Whether a report is believed, on fake machines. */
static void test_assess(void)
{
    static const char intel[] = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                                "flags\t\t: fpu sse2 avx2\n";
    static const char vm[] = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                             "flags\t\t: fpu sse2 avx2 hypervisor\n";
    struct {
        const char *name, *cpuinfo;
        bool cache_dirs;
        uint64_t bytes;
        unsigned cores;
        const char *why; /* NULL: believed */
    } cases[] = {
        {"bare metal", intel, true, 105 * MIB, 56, NULL},
        {"hypervisor", vm, true, 32 * MIB, 8, "a hypervisor (cpuinfo's flags)"},
        {"no sysfs caches", intel, false, 32 * MIB, 8, "no sysfs cache folder for cpu 0"},
        {"508 MiB per vCPU", intel, true, 1016 * MIB, 2, "508.0 MiB of L3 per core"},
        {"EPYC 9184X", intel, true, 768 * MIB, 16, NULL},
        {"no size", intel, true, 0, 0, "no last-level cache size"},
    };
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();

    SC_CHECK(cpus);
    hwloc_bitmap_set_range(cpus, 0, 1);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *root = sysroot_make();
        sc_fsroot fs;
        sc_llc llc = {.level = 3, .instances = 1, .bytes = cases[i].bytes, .cores = cases[i].cores};
        SC_CHECK(sysroot_put(root, "proc/cpuinfo", cases[i].cpuinfo) == 0);
        for (int c = 0; c < 2 && cases[i].cache_dirs; c++) {
            char rel[96];
            snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cache/index0/level", c);
            SC_CHECK(sysroot_put(root, rel, "1\n") == 0);
        }
        SC_CHECK(sc_fsroot_open(&fs, root) == 0);
        sc_caches_assess(&fs, cpus, &llc);
        sc_fsroot_close(&fs);
        sysroot_remove(root);
        SC_CHECK_MSG(llc.untrusted == (cases[i].why != NULL), "%s: untrusted %d (%s)",
                     cases[i].name, llc.untrusted, llc.why);
        if (cases[i].why)
            SC_CHECK_MSG(strstr(llc.why, cases[i].why), "%s: why \"%s\"", cases[i].name, llc.why);
    }
    hwloc_bitmap_free(cpus);
}

int main(void)
{
    SC_TEST_RUN(test_edge);
    SC_TEST_RUN(test_rule);
    SC_TEST_RUN(test_probe_parse);
    SC_TEST_RUN(test_text_roundtrip);
    SC_TEST_RUN(test_assess);
    return SC_TEST_RESULT();
}
