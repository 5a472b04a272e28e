/*
 * pfctl_read.c: the platform of some CPUs as it is now and as it is without any job's change
 * (see pfctl.h, sc_pfctl_read): what root signs for a card that leaves the platform alone,
 * and reads back after a restore. It only reads: registers and governors through the
 * platform layer, the journals' originals from the state directory, under its lock.
 */
#include "pfctl_call.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One setting merged over CPUs: a state or name, "mixed" when they differ, "unknown" when one
   could not be read. */
typedef struct sc__merged {
    char text[32];
    bool any, unknown;
} sc__merged;

static void sc__merge(sc__merged *m, const char *value)
{
    if (!value)
        m->unknown = true;
    else if (!m->any)
        snprintf(m->text, sizeof(m->text), "%s", value);
    else if (strcmp(m->text, value) != 0)
        snprintf(m->text, sizeof(m->text), "mixed");
    m->any = true;
}

static void sc__merged_out(const sc__merged *m, char *out, size_t len)
{
    snprintf(out, len, "%s", m->unknown || !m->any ? "unknown" : m->text);
}

/* The journals of the node, loaded (a damaged one as far as it parses). */
typedef struct sc__journals {
    sc_journal *v;
    size_t n;
} sc__journals;

static void sc__journals_load(sc__pfctl_call *r, sc__journals *js, sc_pfctl_readback *out)
{
    uint32_t *jobs = NULL;
    size_t count = 0, used = 0;

    snprintf(out->changed_by, sizeof(out->changed_by), "none");
    if (sc_journal_list(&r->dir, &jobs, &count) < 0 || count == 0 ||
        !(js->v = calloc(count, sizeof(*js->v)))) {
        free(jobs);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        sc_journal *j = &js->v[js->n];
        int rc = sc_journal_init(j, jobs[i]);
        if (rc == 0)
            rc = sc_journal_load(&r->dir, jobs[i], j, NULL, 0);
        if (rc == 0 || rc == -EBADMSG) {
            js->n++;
            if (used + 24 < sizeof(out->changed_by))
                used += (size_t)snprintf(out->changed_by + used, sizeof(out->changed_by) - used,
                                         "%s%u", used ? "," : "", (unsigned)jobs[i]);
            else if (used + 4 < sizeof(out->changed_by) && !strstr(out->changed_by, "..."))
                used += (size_t)snprintf(out->changed_by + used, 4, "...");
        } else if (rc != -ENOENT) {
            sc_journal_free(j);
        }
    }
    free(jobs);
}

static void sc__journals_free(sc__journals *js)
{
    for (size_t i = 0; i < js->n; i++)
        sc_journal_free(&js->v[i]);
    free(js->v);
}

/* A journal's original of cpu's prefetch register, as a state; NULL when none covers it. */
static const char *sc__orig_prefetch(const sc__journals *js, unsigned cpu, uint32_t reg)
{
    for (size_t i = 0; i < js->n; i++)
        for (size_t k = 0; k < js->v[i].n_msr; k++)
            if (js->v[i].msr[k].cpu == cpu && js->v[i].msr[k].reg == reg)
                return sc_pfstate_name(sc_pfstate_of(js->v[i].msr[k].orig, js->v[i].msr[k].mask));
    return NULL;
}

static const char *sc__orig_governor(const sc__journals *js, unsigned cpu)
{
    for (size_t i = 0; i < js->n; i++)
        for (size_t k = 0; k < js->v[i].n_gov; k++)
            if (js->v[i].gov[k].cpu == cpu)
                return js->v[i].gov[k].orig;
    return NULL;
}

int sc_pfctl_read(const sc_pfctl_config *cfg, hwloc_const_bitmap_t cpus, sc_pfctl_readback *out)
{
    sc__merged pf = {0}, gov = {0}, base_pf = {0}, base_gov = {0};
    sc__journals js = {0};
    sc__pfctl_call r;
    char why[512] = "";
    uint32_t reg = 0;
    uint64_t mask = 0;
    unsigned cpu;

    memset(out, 0, sizeof(*out));
    snprintf(out->arch, sizeof(out->arch), "unknown");
    sc__pfctl_call_init(&r, cfg);
    int rc = cpus && !hwloc_bitmap_iszero(cpus) && hwloc_bitmap_weight(cpus) > 0 ? 0 : -EINVAL;
    if (rc == 0)
        rc = sc__pfctl_call_lock(&r, why, sizeof(why));
    if (rc == 0)
        sc__journals_load(&r, &js, out);
    int plat = rc == 0 ? sc__pfctl_call_platform(&r, why, sizeof(why)) : rc;
    bool can_pf = plat == 0 && sc_platform_prefetch_reg(&r.plat, &reg, &mask, NULL, 0) == 0;
    if (plat == 0)
        snprintf(out->arch, sizeof(out->arch), "%s", sc_arch_name(r.plat.arch.kind));
    if (rc == 0) {
        hwloc_bitmap_foreach_begin(cpu, cpus)
        {
            uint64_t v;
            char g[SC_GOVERNOR_MAX * 2];
            const char *now_pf = can_pf && sc_platform_msr_read(&r.plat, cpu, reg, &v, NULL, 0) == 0
                                     ? sc_pfstate_name(sc_pfstate_of(v, mask))
                                     : NULL;
            const char *now_gov =
                plat == 0 && sc_platform_governor_read(&r.plat, cpu, g, sizeof(g), NULL, 0) == 0
                    ? g
                    : NULL;
            const char *orig_pf = can_pf ? sc__orig_prefetch(&js, cpu, reg) : NULL;
            const char *orig_gov = sc__orig_governor(&js, cpu);
            sc__merge(&pf, now_pf);
            sc__merge(&gov, now_gov);
            sc__merge(&base_pf, orig_pf ? orig_pf : now_pf);
            sc__merge(&base_gov, orig_gov ? orig_gov : now_gov);
        }
        hwloc_bitmap_foreach_end();
    }
    sc__merged_out(&pf, out->prefetch, sizeof(out->prefetch));
    sc__merged_out(&gov, out->governor, sizeof(out->governor));
    sc__merged_out(&base_pf, out->base_prefetch, sizeof(out->base_prefetch));
    sc__merged_out(&base_gov, out->base_governor, sizeof(out->base_governor));
    if (!*out->changed_by)
        snprintf(out->changed_by, sizeof(out->changed_by), "unknown");
    sc__journals_free(&js);
    sc__pfctl_call_end(&r, NULL);
    return rc;
}
