/* caches.c: the last-level caches of a set of CPUs, from hwloc (see sc_caches.h). */
#include "sc_caches.h"
#include "sc_kv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    }
    hwloc_bitmap_foreach_end();
    if (!out->bytes)
        rc = -ENODATA;
    free(seen);
    return rc;
}

char *sc_caches_text(const sc_llc *llc)
{
    sc_kv kv;

    sc_kv_init(&kv);
    sc_kv_append(&kv, "# the last-level caches of cpu_list (hwloc): level, how many, bytes\n");
    sc_kv_addf(&kv, "llc_level", "%u", llc->level);
    sc_kv_addf(&kv, "llc_instances", "%u", llc->instances);
    sc_kv_addf(&kv, "llc_bytes", "%llu", (unsigned long long)llc->bytes);
    if (kv.failed) {
        sc_kv_free(&kv);
        return NULL;
    }
    return kv.text;
}

int sc_caches_parse(const char *text, sc_llc *out)
{
    long level = 0, instances = 0;
    char bytes[32] = "";

    memset(out, 0, sizeof(*out));
    sc_kv_get_long(text, "llc_level", &level);
    sc_kv_get_long(text, "llc_instances", &instances);
    sc_kv_get(text, "llc_bytes", bytes, sizeof(bytes));
    out->level = level > 0 && level < 16 ? (unsigned)level : 0;
    out->instances = instances > 0 ? (unsigned)instances : 0;
    out->bytes = strtoull(bytes, NULL, 10);
    return out->bytes ? 0 : -ENODATA;
}

uint64_t sc_caches_min_array_size(const sc_llc *llc)
{
    return (SC_CACHES_ARRAY_FACTOR * llc->bytes + sizeof(double) - 1) / sizeof(double);
}
