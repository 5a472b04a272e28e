/* sysstate.c: the machine state recorded in every bundle (see sc_sysstate.h). */
#include "sc_sysstate.h"
#include "sc_cpulist.h"
#include "sc_text.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * "key   : value" lines of the first block of /proc/cpuinfo. The key must be the whole name
 * before the colon: "model" does not match the "model name" line.
 */
static void sc__cpuinfo_value(const char *text, const char *key, char *buf, size_t buflen)
{
    size_t klen = strlen(key);

    *buf = '\0';
    for (const char *line = text; *line && *line != '\n';) {
        const char *nl = strchr(line, '\n');
        if (strncmp(line, key, klen) == 0) {
            const char *colon = line + klen + strspn(line + klen, " \t");
            if (*colon == ':') {
                const char *v = colon + 1 + strspn(colon + 1, " \t");
                size_t n = nl ? (size_t)(nl - v) : strlen(v);
                if (n >= buflen)
                    n = buflen - 1;
                memcpy(buf, v, n);
                buf[n] = '\0';
                return;
            }
        }
        if (!nl)
            return;
        line = nl + 1;
    }
}

/* A "cpu family" or "model" number: decimal, 0..INT_MAX, else -1 (never truncated). */
static int sc__cpuinfo_number(const char *text)
{
    char *end = NULL;

    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end[strspn(end, " \t\r")] || v > INT_MAX)
        return -1;
    return (int)v;
}

/* A "0x41"-style field of an Arm cpuinfo: 0..0xfff, else -1. */
static int sc__cpuinfo_hex(const char *text)
{
    char *end = NULL;

    if (strncmp(text, "0x", 2) != 0 || !text[2])
        return -1;
    errno = 0;
    long v = strtol(text + 2, &end, 16);
    if (errno || end[strspn(end, " \t\r")] || v < 0 || v > 0xfff)
        return -1;
    return (int)v;
}

/* Arm implementers (the MIDR's top byte), as Linux's and the Arm ARM's tables name them. */
static const struct {
    int implementer;
    const char *name;
} sc__arm_vendors[] = {
    {0x41, "ARM"},       {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x61, "Apple"},     {0xc0, "Ampere"},
};

/* Arm parts of HPC and cloud nodes (implementer, part number of the MIDR). */
static const struct {
    int implementer, part;
    const char *name;
} sc__arm_parts[] = {
    {0x41, 0xd0c, "Neoverse-N1"}, {0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"},
    {0x41, 0xd4f, "Neoverse-V2"}, {0x41, 0xd84, "Neoverse-V3"}, {0x41, 0xd8e, "Neoverse-N3"},
    {0x46, 0x001, "A64FX"},       {0xc0, 0xac3, "AmpereOne"},
};

/*
 * An arm64 cpuinfo block: the vendor is the implementer's name, family the implementer,
 * model the part, the model name the part's with its variant and revision (r<v>p<r>).
 * Returns 0, or -EINVAL without an implementer.
 */
static int sc__arm_identity(const char *text, sc_cpu_identity *id)
{
    char num[32] = "", variant[32] = "", revision[32] = "";
    const char *part_name = NULL;

    sc__cpuinfo_value(text, "CPU implementer", num, sizeof(num));
    if ((id->family = sc__cpuinfo_hex(num)) < 0)
        return -EINVAL;
    snprintf(id->vendor, sizeof(id->vendor), "Arm implementer 0x%02x", id->family);
    for (size_t i = 0; i < sizeof(sc__arm_vendors) / sizeof(sc__arm_vendors[0]); i++)
        if (sc__arm_vendors[i].implementer == id->family)
            snprintf(id->vendor, sizeof(id->vendor), "%s", sc__arm_vendors[i].name);
    sc__cpuinfo_value(text, "CPU part", num, sizeof(num));
    id->model = sc__cpuinfo_hex(num);
    for (size_t i = 0; i < sizeof(sc__arm_parts) / sizeof(sc__arm_parts[0]); i++)
        if (sc__arm_parts[i].implementer == id->family && sc__arm_parts[i].part == id->model)
            part_name = sc__arm_parts[i].name;
    sc__cpuinfo_value(text, "CPU variant", variant, sizeof(variant));
    sc__cpuinfo_value(text, "CPU revision", revision, sizeof(revision));
    int v = sc__cpuinfo_hex(variant), r = sc__cpuinfo_number(revision);
    char part[32];
    snprintf(part, sizeof(part), "part 0x%03x", (unsigned)(id->model < 0 ? 0 : id->model));
    if (v >= 0 && r >= 0)
        snprintf(id->model_name, sizeof(id->model_name), "%s r%dp%d", part_name ? part_name : part,
                 v, r);
    else
        snprintf(id->model_name, sizeof(id->model_name), "%s", part_name ? part_name : part);
    return 0;
}

/* The widest vector instructions of a flags (x86) or Features (arm64) list, into id->simd. */
static void sc__simd(const char *flags, sc_cpu_identity *id)
{
    static const char *const widest_first[][2] = {
        {"avx512f", "avx512f"}, {"avx2", "avx2"},   {"avx", "avx"},   {"sse4_2", "sse4_2"},
        {"sse4_1", "sse4_1"},   {"pni", "sse3"},    {"sse2", "sse2"}, {"sve2", "sve2"},
        {"sve", "sve"},         {"asimd", "asimd"},
    };

    id->simd[0] = '\0';
    for (size_t i = 0; i < sizeof(widest_first) / sizeof(widest_first[0]); i++)
        if (sc_word_in(flags, " \t", widest_first[i][0])) {
            snprintf(id->simd, sizeof(id->simd), "%s", widest_first[i][1]);
            return;
        }
}

int sc_cpu_identity_parse(const char *text, sc_cpu_identity *id)
{
    char num[32], flags[8192];

    memset(id, 0, sizeof(*id));
    id->family = id->model = -1;
    sc__cpuinfo_value(text, "vendor_id", id->vendor, sizeof(id->vendor));
    if (!*id->vendor) { /* arm64: no vendor_id, an implementer and a part */
        sc__cpuinfo_value(text, "Features", flags, sizeof(flags));
        sc__simd(flags, id);
        return sc__arm_identity(text, id);
    }
    sc__cpuinfo_value(text, "cpu family", num, sizeof(num));
    if (*num)
        id->family = sc__cpuinfo_number(num);
    sc__cpuinfo_value(text, "model", num, sizeof(num));
    if (*num)
        id->model = sc__cpuinfo_number(num);
    sc__cpuinfo_value(text, "model name", id->model_name, sizeof(id->model_name));
    sc__cpuinfo_value(text, "microcode", id->microcode, sizeof(id->microcode));
    sc__cpuinfo_value(text, "flags", flags, sizeof(flags));
    if (sc_word_in(flags, " \t", "hypervisor"))
        snprintf(id->flags_hint, sizeof(id->flags_hint), "hypervisor");
    sc__simd(flags, id);
    return *id->vendor ? 0 : -EINVAL;
}

int sc_cpu_identity_read(const sc_fsroot *root, sc_cpu_identity *id)
{
    char *text = NULL;
    int rc = sc_fsroot_read(root, "proc/cpuinfo", &text);

    if (rc < 0) {
        memset(id, 0, sizeof(*id));
        id->family = id->model = -1;
        return rc;
    }
    rc = sc_cpu_identity_parse(text, id);
    free(text);
    return rc;
}

void sc_sysstate_selected(const char *text, char *buf, size_t buflen)
{
    const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

    if (open && close) {
        snprintf(buf, buflen, "%.*s", (int)(close - open - 1), open + 1);
        return;
    }
    snprintf(buf, buflen, "%.*s", (int)strcspn(text, "\n"), text);
}

/* Records the first line of rel under key, or "unavailable". */
static void sc__record(const sc_fsroot *root, sc_kv *out, const char *key, const char *rel,
                       int choice)
{
    char line[512], value[512];

    if (sc_fsroot_read_linef(root, line, sizeof(line), "%s", rel) < 0) {
        sc_kv_addf(out, key, "unavailable");
        return;
    }
    if (choice) {
        sc_sysstate_selected(line, value, sizeof(value));
        sc_kv_addf(out, key, "%s", value);
    } else {
        sc_kv_addf(out, key, "%s", line);
    }
}

static void sc__record_cpu(const sc_fsroot *root, sc_kv *out, unsigned cpu)
{
    static const char *const files[][2] = {
        {"governor", "scaling_governor"},     {"cur_freq_khz", "scaling_cur_freq"},
        {"min_freq_khz", "scaling_min_freq"}, {"max_freq_khz", "scaling_max_freq"},
        {"driver", "scaling_driver"},
    };
    char key[64], rel[160];

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(key, sizeof(key), "cpu%u.%s", cpu, files[i][0]);
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cpufreq/%s", cpu, files[i][1]);
        sc__record(root, out, key, rel, 0);
    }
}

/* The counters of one node's numastat file ("numa_hit 123" lines), in the file's order. */
typedef struct sc__node_counts {
    char names[SC_NUMASTAT_MAX_COUNTERS][24];
    unsigned long long values[SC_NUMASTAT_MAX_COUNTERS];
    size_t n;
} sc__node_counts;

static int sc__node_numastat(const sc_fsroot *root, unsigned node, sc__node_counts *c)
{
    char *text = NULL, rel[96];

    c->n = 0;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/numastat", node);
    int rc = sc_fsroot_read(root, rel, &text);
    for (const char *p = text; rc == 0 && p && *p && c->n < SC_NUMASTAT_MAX_COUNTERS;) {
        size_t len = strcspn(p, "\n");
        char name[24];
        unsigned long long v;
        char line[128];
        snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
        if (sscanf(line, "%23[a-z_] %llu", name, &v) == 2) {
            snprintf(c->names[c->n], sizeof(c->names[0]), "%s", name);
            c->values[c->n++] = v;
        }
        p += len + (p[len] == '\n');
    }
    free(text);
    return rc < 0 ? rc : (c->n ? 0 : -ENODATA);
}

/* The NUMA nodes under the root (sys/devices/system/node/online), into nodes. */
static int sc__nodes_online(const sc_fsroot *root, hwloc_bitmap_t nodes)
{
    char line[4096];
    int rc = sc_fsroot_read_linef(root, line, sizeof(line), "sys/devices/system/node/online");

    return rc < 0 ? rc : sc_cpulist_parse(line, nodes, NULL, 0);
}

/* One node's counters as a table row ("node0 123 0 ..."), its header first when asked. */
static void sc__numastat_row(sc_kv *table, unsigned node, const sc__node_counts *c, bool header)
{
    char line[512];
    size_t used;

    if (header) {
        used = (size_t)snprintf(line, sizeof(line), "node");
        for (size_t i = 0; i < c->n && used < sizeof(line); i++)
            used += (size_t)snprintf(line + used, sizeof(line) - used, " %s", c->names[i]);
        sc_kv_append(table, line);
        sc_kv_append(table, "\n");
    }
    used = (size_t)snprintf(line, sizeof(line), "node%u", node);
    for (size_t i = 0; i < c->n && used < sizeof(line); i++)
        used += (size_t)snprintf(line + used, sizeof(line) - used, " %llu", c->values[i]);
    sc_kv_append(table, line);
    sc_kv_append(table, "\n");
}

int sc_sysstate_numastat(const sc_fsroot *root, sc_kv *table, sc_kv *keys)
{
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    sc__node_counts c;
    size_t rows = 0;
    char key[64];
    unsigned node;
    int rc = nodes ? sc__nodes_online(root, nodes) : -ENOMEM;

    if (rc == 0 && table)
        sc_kv_append(table, "# NUMA allocation counters per node (pages since boot, the whole "
                            "machine) at main_loop_begin, from "
                            "/sys/devices/system/node/node<N>/numastat, as numastat prints them\n");
    if (rc == 0) {
        hwloc_bitmap_foreach_begin(node, nodes)
        {
            if (sc__node_numastat(root, node, &c) < 0)
                continue;
            if (table)
                sc__numastat_row(table, node, &c, rows == 0);
            for (size_t i = 0; keys && i < c.n; i++) {
                snprintf(key, sizeof(key), "node%u.%s", node, c.names[i]);
                sc_kv_addf(keys, key, "%llu", c.values[i]);
            }
            rows++;
        }
        hwloc_bitmap_foreach_end();
    }
    hwloc_bitmap_free(nodes);
    if (rc == 0 && rows == 0)
        rc = -ENODATA;
    if ((table && table->failed) || (keys && keys->failed))
        rc = -ENOMEM;
    return rc;
}

int sc_sysstate_capture(const sc_fsroot *root, hwloc_const_bitmap_t cpus, sc_kv *out)
{
    sc_cpu_identity id;
    char stamp[64], line[4096];
    struct timespec now;
    struct tm tm;
    hwloc_bitmap_t online = hwloc_bitmap_alloc();
    unsigned cpu;

    if (!online)
        return -ENOMEM;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    sc_kv_addf(out, "captured_at", "%s", stamp);
    sc_kv_addf(out, "sysroot", "%s", root->path);
    sc__record(root, out, "kernel.osrelease", "proc/sys/kernel/osrelease", 0);
    if (sc_cpu_identity_read(root, &id) == 0) {
        sc_kv_addf(out, "cpu.vendor", "%s", id.vendor);
        sc_kv_addf(out, "cpu.family", "%d", id.family);
        sc_kv_addf(out, "cpu.model", "%d", id.model);
        sc_kv_addf(out, "cpu.model_name", "%s", id.model_name);
        sc_kv_addf(out, "cpu.microcode", "%s", *id.microcode ? id.microcode : "unavailable");
        sc_kv_addf(out, "cpu.virtualized", "%s", *id.flags_hint ? "yes" : "no");
        sc_kv_addf(out, "cpu.simd", "%s", *id.simd ? id.simd : "unavailable");
    } else {
        sc_kv_addf(out, "cpu.vendor", "unavailable");
    }
    sc__record(root, out, "cpus.online", "sys/devices/system/cpu/online", 0);
    sc__record(root, out, "smt.control", "sys/devices/system/cpu/smt/control", 0);
    sc__record(root, out, "thp.enabled", "sys/kernel/mm/transparent_hugepage/enabled", 1);
    sc__record(root, out, "thp.defrag", "sys/kernel/mm/transparent_hugepage/defrag", 1);
    sc__record(root, out, "kernel.numa_balancing", "proc/sys/kernel/numa_balancing", 0);
    sc__record(root, out, "kernel.tainted", "proc/sys/kernel/tainted", 0);
    sc__record(root, out, "msr.allow_writes", "sys/module/msr/parameters/allow_writes", 0);
    if (!cpus) {
        if (sc_fsroot_read_linef(root, line, sizeof(line), "sys/devices/system/cpu/online") == 0)
            sc_cpulist_parse(line, online, NULL, 0);
        cpus = online;
    }
    hwloc_bitmap_foreach_begin(cpu, cpus)
    {
        sc__record_cpu(root, out, cpu);
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(online);
    /* The machine's NUMA counters per node (numa_hit, numa_miss, ...): what moved between
       before and after is the run's share and everybody else's. */
    if (sc_sysstate_numastat(root, NULL, out) == -ENOMEM)
        return -ENOMEM;
    return out->failed ? -ENOMEM : 0;
}
