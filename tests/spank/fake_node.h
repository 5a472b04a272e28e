/*
 * fake_node.h: a fake compute node for the platform tests, built on sysroot_util.h: the
 * CPU identity in proc/cpuinfo, the online CPUs, one sparse file per CPU as dev/cpu/N/msr
 * (8 bytes at offset = register, as the msr driver), and optionally cpufreq governors.
 * Also a holder process whose pid the tests can keep alive or let die.
 */
#ifndef SC_TEST_FAKE_NODE_H
#define SC_TEST_FAKE_NODE_H

#include "sysroot_util.h"

#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* CPU identities (vendor, family, model) and the prefetch registers the tests seed, with
   a seed value whose low bits mark "prefetch on" on every vendor. */
#define INTEL_CORE "GenuineIntel", 6, 0x55
#define INTEL_ATOM "GenuineIntel", 6, 0x5f
#define AMD_ZEN4 "AuthenticAMD", 0x19, 0x11
#define AMD_ZEN2 "AuthenticAMD", 0x17, 0x31
#define MSR_I SC_MSR_INTEL_MISC_FEATURE_CONTROL
#define MSR_A SC_MSR_AMD_PREFETCH_CONTROL
#define SEED 0xdeadbeef00000040ull
#define GOVS "performance powersave schedutil"

typedef struct fake_node {
    const char *vendor;
    int family, model;
    unsigned ncpus;
    uint32_t reg;          /* seeded register (0: no dev/cpu/N/msr files) */
    uint64_t seed;         /* its value on every CPU */
    const char *governors; /* scaling_available_governors; NULL: no cpufreq */
    const char *governor;  /* the current scaling_governor */
} fake_node;

static inline int fake_msr_put(const char *root, unsigned cpu, uint32_t reg, uint64_t value)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/dev/cpu/%u/msr", root, cpu);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    if (fd < 0)
        return -1;
    ssize_t n = pwrite(fd, &value, sizeof(value), (off_t)reg);
    close(fd);
    return n == (ssize_t)sizeof(value) ? 0 : -1;
}

/* The value at reg, or a poison value when the file or the offset is missing. */
static inline uint64_t fake_msr_get(const char *root, unsigned cpu, uint32_t reg)
{
    char path[PATH_MAX];
    uint64_t value = 0x5a5a5a5a5a5a5a5aull;
    snprintf(path, sizeof(path), "%s/dev/cpu/%u/msr", root, cpu);
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        if (pread(fd, &value, sizeof(value), (off_t)reg) != (ssize_t)sizeof(value))
            value = 0x5a5a5a5a5a5a5a5aull;
        close(fd);
    }
    return value;
}

/* Size of a CPU's msr file (a write to an unexpected offset grows it). */
static inline long long fake_msr_size(const char *root, unsigned cpu)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/dev/cpu/%u/msr", root, cpu);
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The first line of root/rel into buf ("" when missing). */
static inline const char *fake_line(const char *root, const char *rel, char *buf, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(buf, (int)len, f))
            buf[strcspn(buf, "\n")] = '\0';
        fclose(f);
    }
    return buf;
}

static inline const char *fake_governor(const char *root, unsigned cpu, char *buf, size_t len)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
    return fake_line(root, rel, buf, len);
}

/* Builds the tree; returns its malloc'd path (free with sysroot_remove()) or NULL. */
static inline char *fake_node_make(const fake_node *n)
{
    char *root = sysroot_make(), rel[160], text[256];
    char *cpuinfo = NULL;
    size_t len = 0;
    FILE *f = root ? open_memstream(&cpuinfo, &len) : NULL;
    int bad = !f;

    for (unsigned cpu = 0; f && cpu < n->ncpus; cpu++)
        fprintf(f,
                "processor\t: %u\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n"
                "model name\t: fake cpu\nflags\t\t: fpu msr\n\n",
                cpu, n->vendor, n->family, n->model);
    if (f)
        fclose(f);
    bad |= !cpuinfo || sysroot_put(root, "proc/cpuinfo", cpuinfo) < 0;
    free(cpuinfo);
    snprintf(text, sizeof(text), "0-%u\n", n->ncpus - 1);
    bad |= sysroot_put(root, "sys/devices/system/cpu/online", text) < 0;
    bad |= sysroot_put(root, "proc/sys/kernel/tainted", "0\n") < 0;
    for (unsigned cpu = 0; !bad && cpu < n->ncpus; cpu++) {
        snprintf(rel, sizeof(rel), "dev/cpu/%u/.keep", cpu);
        bad |= sysroot_put(root, rel, "") < 0;
        if (n->reg)
            bad |= fake_msr_put(root, cpu, n->reg, n->seed) < 0;
        if (!n->governors)
            continue;
        snprintf(rel, sizeof(rel),
                 "sys/devices/system/cpu/cpu%u/cpufreq/"
                 "scaling_available_governors",
                 cpu);
        snprintf(text, sizeof(text), "%s\n", n->governors);
        bad |= sysroot_put(root, rel, text) < 0;
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
        snprintf(text, sizeof(text), "%s\n", n->governor);
        bad |= sysroot_put(root, rel, text) < 0;
    }
    if (bad && root) {
        sysroot_remove(root);
        root = NULL;
    }
    return root;
}

/*
 * The topology of a fake node under root: cpu N's SMT siblings are the `smt` consecutive CPUs
 * of its core (topology/thread_siblings_list), its module the `module` consecutive CPUs
 * sharing an L2 (cache/index2/shared_cpu_list), its cpufreq policy the `policy` consecutive
 * CPUs of cpufreq/related_cpus (written only when the node has cpufreq). 0 leaves a file out.
 */
static inline int fake_topology(const char *root, unsigned ncpus, unsigned smt, unsigned module,
                                unsigned policy)
{
    static const struct {
        const char *rel;
        int which;
    } files[] = {{"topology/thread_siblings_list", 0},
                 {"cache/index2/shared_cpu_list", 1},
                 {"cpufreq/related_cpus", 2}};
    char rel[160], text[64];
    int bad = 0;

    for (unsigned cpu = 0; cpu < ncpus; cpu++) {
        for (size_t f = 0; f < 3; f++) {
            unsigned group = files[f].which == 0 ? smt : files[f].which == 1 ? module : policy;
            if (!group)
                continue;
            unsigned first = cpu / group * group;
            snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/%s", cpu, files[f].rel);
            if (group == 1)
                snprintf(text, sizeof(text), "%u\n", cpu);
            else
                snprintf(text, sizeof(text), "%u-%u\n", first, first + group - 1);
            bad |= sysroot_put(root, rel, text) < 0;
        }
    }
    return bad ? -1 : 0;
}

/* A live process to stand for a slurmstepd; it dies with the test. */
static inline pid_t fake_holder_start(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(120);
        for (;;)
            pause();
    }
    return pid;
}

/* Kills and reaps a holder: its pid is then dead (until reused). */
static inline void fake_holder_stop(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

#endif
