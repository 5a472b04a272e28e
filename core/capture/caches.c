/* caches.c: the last-level caches of a set of CPUs, believed or measured (see sc_caches.h). */
#include "sc_caches.h"
#include "sc_kv.h"
#include "sc_sysstate.h"
#include "sc_trace_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The data or unified cache farthest from pu (the highest level); NULL when none. */
static hwloc_obj_t sc__last_cache(hwloc_obj_t pu)
{
    hwloc_obj_t best = NULL;

    for (hwloc_obj_t o = pu->parent; o; o = o->parent)
        if (hwloc_obj_type_is_dcache(o->type) &&
            o->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION &&
            (!best || o->attr->cache.depth > best->attr->cache.depth))
            best = o;
    return best;
}

/* The cores under a cache (its hardware threads when the topology has no cores). */
static unsigned sc__cores_under(hwloc_topology_t topo, hwloc_obj_t cache)
{
    int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, cache->cpuset, HWLOC_OBJ_CORE);

    return cores > 0 ? (unsigned)cores : (unsigned)hwloc_bitmap_weight(cache->cpuset);
}

int sc_caches_llc(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, sc_llc *out)
{
    hwloc_obj_t *seen = NULL;
    size_t n_seen = 0;
    unsigned cpu;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (!topo || hwloc_bitmap_iszero(cpus))
        return -EINVAL;
    /* An array of object pointers: sizeof(*seen) is a pointer, as meant. */
    seen = calloc((size_t)hwloc_bitmap_weight(cpus),
                  sizeof(*seen)); // NOLINT(bugprone-sizeof-expression)
    if (!seen)
        return -ENOMEM;
    hwloc_bitmap_foreach_begin(cpu, cpus)
    {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, cpu);
        hwloc_obj_t c = pu ? sc__last_cache(pu) : NULL;
        size_t i = 0;
        while (i < n_seen && seen[i] != c)
            i++;
        if (!c || i < n_seen)
            continue;
        seen[n_seen++] = c;
        if (c->attr->cache.depth > out->level)
            out->level = c->attr->cache.depth;
        out->instances++;
        out->bytes += c->attr->cache.size;
        out->cores += sc__cores_under(topo, c);
    }
    hwloc_bitmap_foreach_end();
    if (!out->bytes)
        rc = -ENODATA;
    free(seen);
    return rc;
}

/* Appends "; " and a reason to why. */
static void sc__why_add(sc_llc *llc, const char *reason)
{
    size_t used = strlen(llc->why);

    snprintf(llc->why + used, sizeof(llc->why) - used, "%s%s", used ? "; " : "", reason);
}

/* The first CPU of cpus without a cache folder in sysfs under root, or -1. */
static int sc__cpu_without_cache_dir(const sc_fsroot *root, hwloc_const_bitmap_t cpus)
{
    char rel[96];
    unsigned cpu;
    int missing = -1;

    hwloc_bitmap_foreach_begin(cpu, cpus)
    {
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache/index0", cpu);
        int fd = sc_fsroot_openat(root, rel, O_RDONLY | O_DIRECTORY);
        if (fd >= 0)
            close(fd);
        else if (missing < 0)
            missing = (int)cpu;
    }
    hwloc_bitmap_foreach_end();
    return missing;
}

void sc_caches_assess(const sc_fsroot *root, hwloc_const_bitmap_t cpus, sc_llc *llc)
{
    sc_cpu_identity id;
    char reason[128];
    int cpu = sc__cpu_without_cache_dir(root, cpus);

    llc->why[0] = '\0';
    if (cpu >= 0) {
        snprintf(reason, sizeof(reason), "no sysfs cache folder for cpu %d", cpu);
        sc__why_add(llc, reason);
    }
    if (sc_cpu_identity_read(root, &id) == 0 && *id.flags_hint)
        sc__why_add(llc, "a hypervisor (cpuinfo's flags)");
    if (!llc->bytes)
        sc__why_add(llc, "no last-level cache size");
    else if (llc->cores && llc->bytes / llc->cores > SC_CACHES_MAX_BYTES_PER_CORE) {
        snprintf(reason, sizeof(reason), "%.1f MiB of L%u per core (no part has over 48)",
                 (double)llc->bytes / llc->cores / 1048576.0, llc->level);
        sc__why_add(llc, reason);
    }
    llc->untrusted = llc->why[0] != '\0';
}

uint64_t sc_caches_probe_bytes(const sc_llc *llc, uint64_t avail_bytes)
{
    uint64_t want = llc->bytes ? 2 * llc->bytes : (uint64_t)1 << 30;

    if (want < SC_CACHES_PROBE_MIN_BYTES)
        want = SC_CACHES_PROBE_MIN_BYTES;
    if (want > SC_CACHES_PROBE_MAX_BYTES)
        want = SC_CACHES_PROBE_MAX_BYTES;
    return want < avail_bytes / 4 ? want : avail_bytes / 4;
}

static int sc__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The envelope: what the caches can do at each size, the best rate of it or any larger. */
static void sc__envelope(const sc_llc *llc, double *env)
{
    unsigned n = llc->n_points;

    for (unsigned i = n; i-- > 0;)
        env[i] = i + 1 < n && env[i + 1] > llc->points[i].mbps ? env[i + 1] : llc->points[i].mbps;
}

int sc_caches_edge(sc_llc *llc)
{
    const sc_probe_point *p = llc->points;
    double env[SC_CACHES_MAX_POINTS], tail[SC_CACHES_MAX_POINTS];
    unsigned n = llc->n_points, k = 0;

    llc->edge_bytes = 0;
    llc->plateau_mbps = 0;
    if (n < SC_CACHES_MIN_POINTS || n > SC_CACHES_MAX_POINTS)
        return -ENODATA;
    sc__envelope(llc, env);
    for (unsigned i = 0; i < n; i++)
        if (2 * p[i].bytes >= p[n - 1].bytes)
            tail[k++] = env[i];
    qsort(tail, k, sizeof(tail[0]), sc__cmp_double);
    llc->plateau_mbps = k % 2 ? tail[k / 2] : (tail[k / 2 - 1] + tail[k / 2]) / 2;
    /* The envelope falls: the first size at the memory's rate is the edge (none when even
       the smallest is). */
    double above = SC_CACHES_EDGE_RATIO * llc->plateau_mbps;
    for (unsigned i = 1; env[0] > above && i < n; i++)
        if (env[i] <= above) {
            llc->edge_bytes = p[i].bytes;
            return 0;
        }
    return -ENODATA; /* no cache to see: the rule keeps the reported size */
}

bool sc_caches_probe_disturbed(const sc_llc *llc)
{
    double env[SC_CACHES_MAX_POINTS];

    if (llc->n_points < SC_CACHES_MIN_POINTS || llc->n_points > SC_CACHES_MAX_POINTS)
        return true;
    sc__envelope(llc, env);
    for (unsigned i = 0; i < llc->n_points; i++)
        if (llc->points[i].mbps < env[i] / SC_CACHES_DISTURBED_RATIO)
            return true;
    return false;
}

/* One point "<bytes>:<MBps>" at *s, advancing it. */
static bool sc__point_parse(const char **s, sc_probe_point *pt)
{
    char *end;

    errno = 0;
    if (**s < '0' || **s > '9')
        return false;
    pt->bytes = strtoull(*s, &end, 10);
    if (errno || *end != ':' || end[1] < '0' || end[1] > '9')
        return false;
    pt->mbps = strtod(end + 1, &end);
    if (errno || !(pt->mbps >= 0 && pt->mbps < 1e12) || (*end && *end != ' '))
        return false;
    *s = end + (*end == ' ');
    return true;
}

/* Adds a point, keeping the sizes strictly growing. */
static bool sc__point_add(sc_llc *llc, const sc_probe_point *pt)
{
    if (llc->n_points == SC_CACHES_MAX_POINTS || !pt->bytes ||
        (llc->n_points && pt->bytes <= llc->points[llc->n_points - 1].bytes))
        return false;
    llc->points[llc->n_points++] = *pt;
    return true;
}

int sc_caches_probe_parse(const char *text, sc_llc *llc)
{
    bool setup = false;

    llc->n_points = 0;
    for (const char *line = text; line && *line;) {
        size_t len = strcspn(line, "\n");
        char buf[512], isa[16], cpus[256];
        unsigned long long bytes;
        unsigned threads;
        double mbps;
        int used = 0;
        if (len < sizeof(buf)) {
            memcpy(buf, line, len);
            buf[len] = '\0';
            if (sscanf(buf, SC_PROBE_SETUP("%u", "%15s", "%255s") "%n", &threads, isa, cpus,
                       &used) == 3 &&
                (size_t)used == len) {
                llc->probe_threads = threads;
                snprintf(llc->probe_isa, sizeof(llc->probe_isa), "%s", isa);
                snprintf(llc->probe_cpus, sizeof(llc->probe_cpus), "%s", cpus);
                setup = true;
            } else if (sscanf(buf, SC_PROBE_POINT("%llu", "%lf") "%n", &bytes, &mbps, &used) == 2 &&
                       (size_t)used == len && !sc__point_add(llc, &(sc_probe_point){bytes, mbps}))
                return -EBADMSG;
        }
        line += len + (line[len] == '\n');
    }
    if (!setup || llc->n_points < SC_CACHES_MIN_POINTS) {
        llc->n_points = 0;
        return -EBADMSG;
    }
    sc_caches_edge(llc);
    return 0;
}

uint64_t sc_caches_rule_bytes(const sc_llc *llc)
{
    return llc->untrusted && llc->edge_bytes ? llc->edge_bytes : llc->bytes;
}

/* probe_points: "<bytes>:<MBps>" separated by spaces, into kv. */
static void sc__points_add(sc_kv *kv, const sc_llc *llc)
{
    char buf[SC_CACHES_MAX_POINTS * 40];
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < llc->n_points && used < sizeof(buf); i++)
        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%" PRIu64 ":%.1f", i ? " " : "",
                                 llc->points[i].bytes, llc->points[i].mbps);
    sc_kv_addf(kv, "probe_points", "%s", buf);
}

char *sc_caches_text(const sc_llc *llc)
{
    sc_kv kv;

    sc_kv_init(&kv);
    sc_kv_append(&kv, "# the last-level caches of cpu_list (hwloc): level, how many, bytes\n");
    sc_kv_addf(&kv, "llc_level", "%u", llc->level);
    sc_kv_addf(&kv, "llc_instances", "%u", llc->instances);
    sc_kv_addf(&kv, "llc_bytes", "%llu", (unsigned long long)llc->bytes);
    sc_kv_addf(&kv, "llc_cores", "%u", llc->cores);
    sc_kv_addf(&kv, "llc_trusted", "%s", llc->untrusted ? "no" : "yes");
    if (llc->untrusted)
        sc_kv_addf(&kv, "llc_untrusted", "%s", llc->why);
    if (llc->n_points) {
        sc_kv_append(&kv, "# the probe: read rate (MB/s) per working set (bytes) on the CPUs\n");
        sc_kv_addf(&kv, "probe_threads", "%u", llc->probe_threads);
        sc_kv_addf(&kv, "probe_isa", "%s", llc->probe_isa);
        sc_kv_addf(&kv, "probe_cpus", "%s", llc->probe_cpus);
        sc__points_add(&kv, llc);
        sc_kv_addf(&kv, "probe_plateau_MBps", "%.1f", llc->plateau_mbps);
        sc_kv_addf(&kv, "probe_edge_bytes", "%llu", (unsigned long long)llc->edge_bytes);
    }
    if (kv.failed) {
        sc_kv_free(&kv);
        return NULL;
    }
    return kv.text;
}

/* The probe's fields of caches.txt, the edge recomputed. 0, or -EBADMSG. */
static int sc__parse_probe(const char *text, sc_llc *out)
{
    char points[SC_CACHES_MAX_POINTS * 40], edge[32] = "";
    long threads = 0;
    sc_probe_point pt;

    if (!sc_kv_get(text, "probe_points", points, sizeof(points)))
        return 0;
    sc_kv_get_long(text, "probe_threads", &threads);
    out->probe_threads = threads > 0 && threads <= 65536 ? (unsigned)threads : 0;
    sc_kv_get(text, "probe_isa", out->probe_isa, sizeof(out->probe_isa));
    sc_kv_get(text, "probe_cpus", out->probe_cpus, sizeof(out->probe_cpus));
    for (const char *s = points; *s;)
        if (!sc__point_parse(&s, &pt) || !sc__point_add(out, &pt))
            return -EBADMSG;
    if (out->n_points < SC_CACHES_MIN_POINTS)
        return -EBADMSG;
    sc_caches_edge(out);
    sc_kv_get(text, "probe_edge_bytes", edge, sizeof(edge));
    return strtoull(edge, NULL, 10) == out->edge_bytes && *edge ? 0 : -EBADMSG;
}

int sc_caches_parse(const char *text, sc_llc *out)
{
    long level = 0, instances = 0, cores = 0;
    char bytes[32] = "", trusted[8] = "";

    memset(out, 0, sizeof(*out));
    if (!text)
        return -ENODATA;
    sc_kv_get_long(text, "llc_level", &level);
    sc_kv_get_long(text, "llc_instances", &instances);
    sc_kv_get_long(text, "llc_cores", &cores);
    sc_kv_get(text, "llc_bytes", bytes, sizeof(bytes));
    out->level = level > 0 && level < 16 ? (unsigned)level : 0;
    out->instances = instances > 0 ? (unsigned)instances : 0;
    out->cores = cores > 0 && cores < (1L << 24) ? (unsigned)cores : 0;
    out->bytes = strtoull(bytes, NULL, 10);
    /* Bundles written before the rule measured say nothing: they believed the report. */
    out->untrusted =
        sc_kv_get(text, "llc_trusted", trusted, sizeof(trusted)) && strcmp(trusted, "yes") != 0;
    if (out->untrusted)
        sc_kv_get(text, "llc_untrusted", out->why, sizeof(out->why));
    if (sc__parse_probe(text, out) < 0)
        return -EBADMSG;
    return sc_caches_rule_bytes(out) ? 0 : -ENODATA;
}

uint64_t sc_caches_min_array_size(const sc_llc *llc)
{
    return (SC_CACHES_ARRAY_FACTOR * sc_caches_rule_bytes(llc) + sizeof(double) - 1) /
           sizeof(double);
}

uint64_t sc_caches_auto_array_size(const sc_llc *llc)
{
    uint64_t n = sc_caches_min_array_size(llc);

    return (n + SC_CACHES_AUTO_GRANULE - 1) / SC_CACHES_AUTO_GRANULE * SC_CACHES_AUTO_GRANULE;
}

int sc_caches_resolve_card(sc_card *card, const char *caches_text)
{
    sc_llc llc;
    int rc;

    /* Only a card that gives array_size (a STREAM card) can say auto; another's is 0 too. */
    if (!card->present[SC_CF_ARRAY_SIZE] || card->array_size)
        return 0;
    if ((rc = sc_caches_parse(caches_text, &llc)) == 0)
        card->array_size = sc_caches_auto_array_size(&llc);
    return rc;
}
