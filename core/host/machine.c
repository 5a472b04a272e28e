/* machine.c: facts about the node under a sysroot (see sc_machine.h). */
#include "sc_machine.h"
#include "sc_cpulist.h"
#include "sc_file.h"
#include "sc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a cpulist file (".../online") under root into set. */
static int sc__machine_read_list(const sc_fsroot *root, const char *rel, hwloc_bitmap_t set)
{
    char line[4096];
    int rc = sc_fsroot_read_linef(root, line, sizeof(line), "%s", rel);

    if (rc < 0)
        return rc;
    return sc_cpulist_parse(line, set, NULL, 0);
}

/* MemTotal of a node from nodeN/meminfo ("Node 0 MemTotal:  24576000 kB"). */
static int sc__machine_node_mem(const sc_fsroot *root, unsigned node, uint64_t *bytes)
{
    char rel[128], *text = NULL;
    uint64_t kb = 0;

    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/meminfo", node);
    int rc = sc_fsroot_read(root, rel, &text);
    if (rc < 0)
        return rc;
    const char *p = strstr(text, "MemTotal:");
    rc = (p && sscanf(p, "MemTotal: %" SCNu64, &kb) == 1) ? 0 : -EINVAL;
    free(text);
    *bytes = kb * 1024;
    return rc;
}

/* Whole-machine MemTotal from proc/meminfo, for kernels without NUMA sysfs. */
static int sc__machine_total_mem(const sc_fsroot *root, uint64_t *bytes)
{
    char line[256];
    uint64_t kb = 0;
    int rc = sc_fsroot_read_linef(root, line, sizeof(line), "proc/meminfo");

    if (rc < 0)
        return rc;
    if (sscanf(line, "MemTotal: %" SCNu64, &kb) != 1)
        return -EINVAL;
    *bytes = kb * 1024;
    return 0;
}

static int sc__machine_nodes(sc_machine *m, const sc_fsroot *root)
{
    int rc = sc__machine_read_list(root, "sys/devices/system/node/has_memory", m->nodes);
    int last;

    if (rc < 0)
        rc = sc__machine_read_list(root, "sys/devices/system/node/online", m->nodes);
    if (rc < 0) {
        /* No NUMA sysfs: one node 0 holding all memory. */
        hwloc_bitmap_only(m->nodes, 0);
        m->node_mem_bytes = calloc(1, sizeof(uint64_t));
        if (!m->node_mem_bytes)
            return -ENOMEM;
        m->n_node_mem = 1;
        return sc__machine_total_mem(root, &m->node_mem_bytes[0]);
    }
    last = hwloc_bitmap_last(m->nodes);
    m->n_node_mem = (unsigned)last + 1;
    m->node_mem_bytes = calloc(m->n_node_mem, sizeof(uint64_t));
    if (!m->node_mem_bytes)
        return -ENOMEM;
    unsigned node;
    hwloc_bitmap_foreach_begin(node, m->nodes)
    {
        if (sc__machine_node_mem(root, node, &m->node_mem_bytes[node]) < 0)
            m->node_mem_bytes[node] = 0;
    }
    hwloc_bitmap_foreach_end();
    return 0;
}

/* Keeps in *common only the words (space-separated) that list also has. */
static void sc__machine_intersect_words(char *common, const char *list)
{
    char *out = common, *word = common + strspn(common, " ");

    while (*word) {
        size_t n = strcspn(word, " ");
        char saved = word[n];
        word[n] = '\0';
        bool keep = sc_word_in(list, " ", word);
        word[n] = saved;
        if (keep) {
            if (out != common)
                *out++ = ' ';
            memmove(out, word, n);
            out += n;
        }
        word += n;
        word += strspn(word, " ");
    }
    *out = '\0';
}

static int sc__machine_governors(sc_machine *m, const sc_fsroot *root)
{
    unsigned cpu;
    char line[1024];

    m->has_cpufreq = !hwloc_bitmap_iszero(m->cpus_online);
    hwloc_bitmap_foreach_begin(cpu, m->cpus_online)
    {
        if (sc_fsroot_read_linef(root, line, sizeof(line),
                                 "sys/devices/system/cpu/cpu%u/cpufreq/scaling_available_governors",
                                 cpu) < 0) {
            m->has_cpufreq = false;
            break;
        }
        if (!m->governors) {
            m->governors = strdup(line);
            if (!m->governors)
                return -ENOMEM;
        } else {
            sc__machine_intersect_words(m->governors, line);
        }
    }
    hwloc_bitmap_foreach_end();
    if (!m->has_cpufreq) {
        free(m->governors);
        m->governors = NULL;
    }
    return 0;
}

int sc_machine_load(sc_machine *m, const sc_fsroot *root)
{
    int rc;

    memset(m, 0, sizeof(*m));
    m->cpus_online = hwloc_bitmap_alloc();
    m->cpus_allowed = hwloc_bitmap_alloc();
    m->nodes = hwloc_bitmap_alloc();
    m->mems_allowed = hwloc_bitmap_alloc();
    if (!m->cpus_online || !m->cpus_allowed || !m->nodes || !m->mems_allowed) {
        rc = -ENOMEM;
        goto failed;
    }
    if (gethostname(m->hostname, sizeof(m->hostname) - 1) < 0)
        strcpy(m->hostname, "unknown");
    rc = sc__machine_read_list(root, "sys/devices/system/cpu/online", m->cpus_online);
    if (rc < 0)
        goto failed;
    rc = sc__machine_nodes(m, root);
    if (rc < 0)
        goto failed;
    rc = sc__machine_governors(m, root);
    if (rc < 0)
        goto failed;
    hwloc_bitmap_copy(m->cpus_allowed, m->cpus_online);
    hwloc_bitmap_copy(m->mems_allowed, m->nodes);
    return 0;
failed:
    sc_machine_free(m);
    return rc;
}

int sc_machine_restrict_to_self(sc_machine *m)
{
    cpu_set_t *set;
    size_t ncpus = 8192, size;
    char *status = NULL;

    set = CPU_ALLOC(ncpus);
    if (!set)
        return -ENOMEM;
    size = CPU_ALLOC_SIZE(ncpus);
    if (sched_getaffinity(0, size, set) == 0) {
        hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
        for (size_t c = 0; allowed && c < ncpus; c++)
            if (CPU_ISSET_S(c, size, set))
                hwloc_bitmap_set(allowed, (unsigned)c);
        if (allowed)
            hwloc_bitmap_and(m->cpus_allowed, m->cpus_allowed, allowed);
        hwloc_bitmap_free(allowed);
    }
    CPU_FREE(set);
    if (sc_file_read_at(AT_FDCWD, "/proc/self/status", 0, 1 << 20, &status, NULL) == 0) {
        const char *p = strstr(status, "Mems_allowed_list:");
        if (p) {
            char list[4096];
            const char *value = p + strlen("Mems_allowed_list:");
            hwloc_bitmap_t mems = hwloc_bitmap_alloc();
            value += strspn(value, " \t");
            sc_file_first_line(value, list, sizeof(list));
            if (mems && sc_cpulist_parse(list, mems, NULL, 0) == 0)
                hwloc_bitmap_and(m->mems_allowed, m->mems_allowed, mems);
            hwloc_bitmap_free(mems);
        }
        free(status);
    }
    return 0;
}

void sc_machine_free(sc_machine *m)
{
    if (!m)
        return;
    hwloc_bitmap_free(m->cpus_online);
    hwloc_bitmap_free(m->cpus_allowed);
    hwloc_bitmap_free(m->nodes);
    hwloc_bitmap_free(m->mems_allowed);
    free(m->node_mem_bytes);
    free(m->governors);
    memset(m, 0, sizeof(*m));
}

bool sc_machine_offers_governor(const sc_machine *m, const char *governor)
{
    return sc_word_in(m->governors, " ", governor);
}
