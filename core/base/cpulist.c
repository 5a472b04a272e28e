/* cpulist.c: parse and format Linux cpulists (see sc_cpulist.h). */
#include "sc_cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a decimal cpu number at *p; advances *p. Returns the number or -1. */
static long sc__cpulist_number(const char **p)
{
    long v = 0;

    if (!isdigit((unsigned char)**p))
        return -1;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v > SC_CPULIST_MAX_CPU)
            return -2;
        (*p)++;
    }
    return v;
}

/* Writes "\"<token>\" <problem>" to why and returns -EINVAL. */
static int sc__cpulist_fail(char *why, size_t whylen, const char *tok, int toklen,
                            const char *problem)
{
    if (why && whylen)
        snprintf(why, whylen, "\"%.*s\" %s", toklen, tok, problem);
    return -EINVAL;
}

int sc_cpulist_parse(const char *text, hwloc_bitmap_t set, char *why, size_t whylen)
{
    const char *p = text;

    hwloc_bitmap_zero(set);
    if (!text || !*text) {
        if (why && whylen)
            snprintf(why, whylen, "empty cpu list");
        return -EINVAL;
    }
    for (;;) {
        const char *tok = p;
        int toklen = (int)strcspn(p, ",");
        long first = sc__cpulist_number(&p), last;

        if (first == -2)
            return sc__cpulist_fail(why, whylen, tok, toklen, "has a cpu number above 65535");
        if (first < 0)
            return sc__cpulist_fail(why, whylen, tok, toklen, "is not a cpu number or range");
        last = first;
        if (*p == '-') {
            p++;
            last = sc__cpulist_number(&p);
            if (last == -2)
                return sc__cpulist_fail(why, whylen, tok, toklen, "has a cpu number above 65535");
            if (last < 0)
                return sc__cpulist_fail(why, whylen, tok, toklen, "is a range without an end");
            if (last < first)
                return sc__cpulist_fail(why, whylen, tok, toklen, "is a reversed range (write low-high)");
        }
        if (*p != ',' && *p != '\0')
            return sc__cpulist_fail(why, whylen, tok, toklen, "is not a cpu number or range");
        if (hwloc_bitmap_set_range(set, (unsigned)first, (int)last) < 0) {
            if (why && whylen)
                snprintf(why, whylen, "out of memory");
            return -ENOMEM;
        }
        if (*p == '\0')
            break;
        p++;
        if (*p == '\0')
            return sc__cpulist_fail(why, whylen, text, (int)strlen(text), "ends with a comma");
    }
    return 0;
}

char *sc_cpulist_format(hwloc_const_bitmap_t set)
{
    char *s = NULL;

    if (hwloc_bitmap_iszero(set))
        return strdup("");
    if (hwloc_bitmap_list_asprintf(&s, set) < 0)
        return NULL;
    return s;
}

int sc_cpulist_one_per_core(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, hwloc_bitmap_t out)
{
    hwloc_bitmap_t taken = hwloc_bitmap_alloc(); /* the PUs of the cores already kept */
    unsigned cpu;

    if (!taken)
        return -ENOMEM;
    hwloc_bitmap_zero(out);
    hwloc_bitmap_foreach_begin(cpu, cpus)
    {
        if (hwloc_bitmap_isset(taken, cpu))
            continue;
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, cpu);
        hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : NULL;
        hwloc_bitmap_set(out, cpu);
        if (core)
            hwloc_bitmap_or(taken, taken, core->cpuset);
    }
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(taken);
    return 0;
}
