/*
 * cacheprobe.c: the caches of a STREAM run's CPUs for its stream_array rule (see
 * cacheprobe.h; doc/contracts/gates.md, "The gates": stream_array).
 */
#include "cacheprobe.h"
#include "sc_answercache.h"
#include "sc_cpulist.h"
#include "sc_diag.h"
#include "sc_file.h"
#include "sc_hashcache.h"
#include "sc_spawn.h"
#include "timings.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SC__PROBE_TIMEOUT_MS 120000 /* a probe of 4 GiB on a slow, busy node */

/* One CPU set and thread count, and what its caches are. */
typedef struct sc__memo_entry {
    char *cpus;
    long threads;
    int rc;
    sc_llc llc;
} sc__memo_entry;

struct sc_cache_memo {
    sc__memo_entry *e;
    size_t n;
};

void sc_cache_memo_free(sc_cache_memo *memo)
{
    for (size_t i = 0; memo && i < memo->n; i++)
        free(memo->e[i].cpus);
    if (memo)
        free(memo->e);
    free(memo);
}

/* MemAvailable of /proc/meminfo in bytes, 0 when unknown. */
static uint64_t sc__mem_available(void)
{
    char *text = NULL;
    unsigned long long kib = 0;

    if (sc_file_read_at(AT_FDCWD, "/proc/meminfo", 0, 1 << 16, &text, NULL) < 0)
        return 0;
    const char *p = strstr(text, "MemAvailable:");
    if (p)
        sscanf(p, "MemAvailable: %llu kB", &kib);
    free(text);
    return (uint64_t)kib * 1024;
}

/* The answer cache's key of a probe: binary, host and boot, CPUs, threads, size. */
static char *sc__probe_key(const char *binary, const char *cpus, long threads, uint64_t bytes)
{
    char host[256], boot[64], *key = NULL;

    if (sc_answercache_host_boot(host, sizeof(host), boot, sizeof(boot)) < 0)
        return NULL;
    if (asprintf(&key,
                 "streamcard --cache-probe v1\nbinary %s\nhost %s %s\ncpus %s\nthreads %ld\n"
                 "bytes %" PRIu64 "\n",
                 binary, host, boot, cpus, threads, bytes) < 0)
        return NULL;
    return key;
}

/* Whether the environment holds a variable that changes what hwloc reports (HWLOC_SYNTHETIC,
   HWLOC_XMLFILE, HWLOC_FSROOT, HWLOC_COMPONENTS...: hwloc(7)). */
static bool sc__hwloc_env(void)
{
    extern char **environ;

    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "HWLOC_", 6))
            return true;
    return false;
}

/*
 * The CPUs this process may use, as hwloc restricts its topology to them (it counts only
 * the allowed cores under a cache): the affinity, the online CPUs, and the cpuset cgroup's
 * effective CPUs (a Slurm job's, a container's). Into out, or -1 when they cannot be read.
 */
static int sc__allowed_cpus(char *out, size_t len)
{
    char *cg = NULL, *text = NULL, path[1024], rel[768], affinity[512] = "", online[256] = "";
    char cpuset[256] = "all";
    const char *line, *at = NULL, *base = "/sys/fs/cgroup", *file = "cpuset.cpus.effective";
    int rc = -1;

    if (sc_file_read_at(AT_FDCWD, "/proc/self/status", 0, 1 << 16, &text, NULL) == 0 &&
        (line = strstr(text, "\nCpus_allowed_list:")))
        sscanf(line, "\nCpus_allowed_list: %511s", affinity);
    free(text);
    text = NULL;
    if (sc_file_read_at(AT_FDCWD, "/sys/devices/system/cpu/online", 0, 4096, &text, NULL) == 0)
        sc_file_first_line(text, online, sizeof(online));
    free(text);
    text = NULL;
    if (!affinity[0] || !online[0] ||
        sc_file_read_at(AT_FDCWD, "/proc/self/cgroup", 0, 1 << 16, &cg, NULL) < 0)
        return -1;
    /* v1: "N:cpuset:/path"; v2: "0::/path"; a v1 cpuset joined with another controller: no */
    if ((line = strstr(cg, ":cpuset:/"))) {
        at = line + strlen(":cpuset:");
        base = "/sys/fs/cgroup/cpuset";
        file = "cpuset.effective_cpus";
    } else if (!strstr(cg, "cpuset")) {
        at = !strncmp(cg, "0::/", 4) ? cg + 3 : (line = strstr(cg, "\n0::/")) ? line + 4 : NULL;
    }
    size_t n = at ? strcspn(at, "\n") : 0;
    if (n && n < sizeof(rel)) {
        /* The cgroup's effective CPUs, or its nearest ancestor's that has the file (a v2
           cgroup without the cpuset controller has none); a v2 root without it: every CPU. */
        snprintf(rel, sizeof(rel), "%.*s", (int)n, at);
        for (;;) {
            int w =
                snprintf(path, sizeof(path), "%s%s/%s", base, strcmp(rel, "/") ? rel : "", file);
            if (w > 0 && w < (int)sizeof(path) &&
                sc_file_read_at(AT_FDCWD, path, 0, 1 << 16, &text, NULL) == 0) {
                sc_file_first_line(text, cpuset, sizeof(cpuset));
                rc = 0;
                break;
            }
            char *slash = strrchr(rel, '/');
            if (!strcmp(rel, "/") || !slash) {
                rc = strcmp(base, "/sys/fs/cgroup") == 0 ? 0 : -1; /* v2's root: every CPU */
                break;
            }
            *(slash == rel ? slash + 1 : slash) = '\0';
        }
    }
    free(text);
    free(cg);
    if (rc == 0 &&
        snprintf(out, len, "affinity %s online %s cpuset %s", affinity, online, cpuset) >= (int)len)
        rc = -1;
    return rc;
}

/*
 * hwloc's report of the last-level caches of card's CPUs (sc_caches_llc()), remembered for
 * this boot and the CPUs this process may use in the answer cache: loading hwloc's topology
 * costs 2-5 ms of CPU at every STREAM run, while the workload starts on the CPUs it measures,
 * and the caches of a CPU do not change while the machine runs. Not remembered, nor taken
 * from memory, when an HWLOC_ variable changes what hwloc reports or the allowed CPUs cannot
 * be read. 0, or sc_caches_llc()'s error.
 */
static int sc__hwloc_llc(const sc_run_opts *opts, const sc_card *card, sc_llc *llc)
{
    char host[256], boot[64], allowed[1024], dir[4096], *key = NULL, *text = NULL;
    bool cached = !sc__hwloc_env() &&
                  sc_answercache_host_boot(host, sizeof(host), boot, sizeof(boot)) == 0 &&
                  sc__allowed_cpus(allowed, sizeof(allowed)) == 0 &&
                  sc_hashcache_default_dir(dir, sizeof(dir)) == 0 &&
                  asprintf(&key, "streamcard caches v1\nhwloc %x %x\nhost %s %s\n%s\ncpus %s\n",
                           (unsigned)HWLOC_API_VERSION, hwloc_get_api_version(), host, boot,
                           allowed, card->cpu_list) >= 0;
    if (!cached)
        key = NULL; /* asprintf leaves it undefined when it fails */
    int rc;

    if (cached && sc_answercache_get(dir, key, &text) == 0 && sc_caches_parse(text, llc) == 0) {
        free(text);
        free(key);
        sc_timings_mark(opts->timings, "hwloc-remembered");
        return 0;
    }
    free(text);
    text = NULL;
    hwloc_topology_t topo = sc_topology_get(opts->topology);
    sc_timings_mark(opts->timings, "hwloc-topology");
    rc = topo ? sc_caches_llc(topo, card->cpus, llc) : -ENODATA;
    if (rc == 0 && cached && (text = sc_caches_text(llc)))
        sc_answercache_put(dir, key, text, NULL, 0);
    free(text);
    free(key);
    return rc;
}

/* The card's CPUs as the probe takes them: a comma list. */
static char *sc__comma_cpus(const sc_card *card)
{
    char *out = NULL;
    size_t len = 0;
    unsigned cpu;
    bool first = true;
    FILE *mem = open_memstream(&out, &len);

    if (!mem)
        return NULL;
    hwloc_bitmap_foreach_begin(cpu, card->cpus)
    {
        fprintf(mem, "%s%u", first ? "" : ",", cpu);
        first = false;
    }
    hwloc_bitmap_foreach_end();
    if (fclose(mem) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/*
 * The probe's output for card (malloc'd), measured by the card's own kernel (a workload that
 * reads array_size: STREAM's): remembered, or measured now when may_probe.
 * NULL when there is none.
 */
static char *sc__probe_text(const sc_card *card, const sc_llc *llc, bool may_probe)
{
    char *binary = sc_plan_find_kernel(card->workload), *cpus = sc__comma_cpus(card);
    uint64_t bytes = sc_caches_probe_bytes(llc, sc__mem_available());
    char dir[4096], size[32], threads[32], *key = NULL, *text = NULL;

    if (!binary || !cpus || bytes < ((uint64_t)8 << 20) ||
        !(key = sc__probe_key(binary, card->cpu_list, card->threads, bytes)))
        goto out;
    bool cached = sc_hashcache_default_dir(dir, sizeof(dir)) == 0;
    if (cached && sc_answercache_get(dir, key, &text) == 0)
        goto out;
    if (!may_probe)
        goto out;
    fprintf(stderr,
            "streamcard: measuring the last cache of cpus %s with %ld threads, up to %.0f MiB "
            "(the reported %.1f MiB of L%u is not believed: %s); remembered until the next "
            "boot\n",
            card->cpu_list, card->threads, (double)bytes / 1048576.0,
            (double)llc->bytes / 1048576.0, llc->level, llc->why);
    snprintf(size, sizeof(size), "%" PRIu64, bytes);
    snprintf(threads, sizeof(threads), "%ld", card->threads);
    char *const argv[] = {binary, "--cache-probe",   size,    "--probe-cpus",
                          cpus,   "--probe-threads", threads, NULL};
    int rc = sc_spawn_capture(argv, &(sc_spawn_opts){.timeout_ms = SC__PROBE_TIMEOUT_MS}, &text);
    if (rc < 0) {
        fprintf(stderr,
                "streamcard: the cache probe failed: %s (the rule keeps the reported "
                "size)\n",
                rc == -ECHILD ? "it exited with an error" : strerror(-rc));
        free(text);
        text = NULL;
    } else if (cached) {
        sc_llc seen = *llc;
        const char *files[] = {binary};
        if (sc_caches_probe_parse(text, &seen) == 0 && !sc_caches_probe_disturbed(&seen))
            sc_answercache_put(dir, key, text, files, 1);
        else
            fprintf(stderr, "streamcard: the cache probe was disturbed (a smaller working set "
                            "read slower than a larger one: other work on these CPUs?); not "
                            "remembered\n");
    }
out:
    free(key);
    free(cpus);
    free(binary);
    return text;
}

/* Assesses the caches of card's CPUs into e, probing where the report is not believed. */
static void sc__assess(const sc_run_opts *opts, const sc_card *card, bool may_probe,
                       sc__memo_entry *e)
{
    sc_fsroot root;

    e->rc = sc__hwloc_llc(opts, card, &e->llc);
    if (e->rc < 0 && e->rc != -ENODATA)
        return;
    if (sc_fsroot_open(&root, opts->sysroot) == 0) {
        sc_caches_assess(&root, card->cpus, &e->llc);
        sc_fsroot_close(&root);
    }
    if (e->llc.untrusted) {
        char *text = sc__probe_text(card, &e->llc, may_probe);
        if (text && sc_caches_probe_parse(text, &e->llc) < 0)
            fprintf(stderr, "streamcard: the cache probe's output does not parse (the rule "
                            "keeps the reported size)\n");
        free(text);
    }
    e->rc = sc_caches_rule_bytes(&e->llc) ? 0 : -ENODATA;
}

int sc_cacheprobe_get(const sc_run_opts *opts, const sc_card *card, bool may_probe,
                      const sc_llc **out)
{
    sc_cache_memo *m = *opts->caches;
    sc__memo_entry *e;

    if (!card->cpu_list || !card->cpus || hwloc_bitmap_iszero(card->cpus))
        return -EINVAL; /* a card whose cpu_list was refused: its problem is said already */
    if (!m && !(m = *opts->caches = calloc(1, sizeof(*m))))
        return -ENOMEM;
    for (size_t i = 0; i < m->n; i++) {
        e = &m->e[i];
        /* A remembered entry without a probe is asked again when a probe may now run. */
        if (!strcmp(e->cpus, card->cpu_list) && e->threads == card->threads &&
            !(may_probe && e->llc.untrusted && !e->llc.n_points)) {
            *out = &e->llc;
            return e->rc;
        }
    }
    sc__memo_entry *grown = realloc(m->e, (m->n + 1) * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    m->e = grown;
    e = &m->e[m->n];
    memset(e, 0, sizeof(*e));
    if (!(e->cpus = strdup(card->cpu_list)))
        return -ENOMEM;
    e->threads = card->threads;
    m->n++;
    sc__assess(opts, card, may_probe, e);
    *out = &e->llc;
    return e->rc;
}

int sc_cacheprobe_resolve(const sc_run_opts *opts, sc_card *card, sc_diag *diag)
{
    const sc_llc *llc;

    if (!sc_workload_reads(card->workload, SC_CF_ARRAY_SIZE) || card->array_size)
        return 0;
    if (card->invalid[SC_CF_CPU_LIST] || card->invalid[SC_CF_THREADS])
        return 0; /* the card's problems are said; nothing to size against */
    int rc = sc_cacheprobe_get(opts, card, !opts->dry_run, &llc);
    if (rc == -ENOMEM || rc == -EINVAL)
        return rc == -ENOMEM ? rc : 0;
    if (opts->dry_run && llc->untrusted && !llc->n_points)
        return 0; /* decided by the probe when it runs: the plan says auto */
    if (rc < 0) {
        sc_diag_addf(diag,
                     "array_size: auto: the last-level cache of cpu_list %s is unknown "
                     "(hwloc shows none and no probe measured one) (valid: a number of "
                     "elements per array)",
                     card->cpu_list);
        return -EINVAL;
    }
    card->array_size = sc_caches_auto_array_size(llc);
    fprintf(stderr,
            "streamcard: array_size: auto: %llu elements per array (%.1f MiB; %.2f GiB for the "
            "3 arrays) = %d x the %s %.1f MiB, rounded up to whole MiB\n",
            (unsigned long long)card->array_size, 8.0 * (double)card->array_size / 1048576.0,
            24.0 * (double)card->array_size / 1073741824.0, SC_CACHES_ARRAY_FACTOR,
            llc->untrusted && llc->edge_bytes ? "last cache's edge measured at"
                                              : "last-level caches of",
            (double)sc_caches_rule_bytes(llc) / 1048576.0);
    return 0;
}
