/* readback.c: the platform read by the command as root, before and after (sc_readback.h). */
#include "sc_readback.h"
#include "sc_cpulist.h"
#include "sc_why.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_readback_msr(const sc_platform *p, hwloc_const_bitmap_t cpus, const char *when, sc_kv *out,
                    char *why, size_t whylen)
{
    char line[160], reason[512] = "";
    uint32_t reg = 0;
    uint64_t mask = 0, value = 0;
    unsigned cpu;
    int rc;

    snprintf(line, sizeof(line), "# read by the CLI as root %s the workload, not attested\n", when);
    sc_kv_append(out, line);
    rc = sc_platform_prefetch_reg(p, &reg, &mask, reason, sizeof(reason));
    hwloc_bitmap_foreach_begin(cpu, cpus)
    {
        if (rc == 0)
            rc = sc_platform_msr_read(p, cpu, reg, &value, reason, sizeof(reason));
        if (rc < 0)
            break;
        snprintf(line, sizeof(line), "cpu=%u reg=0x%x value=0x%016llx state=%s\n", cpu,
                 (unsigned)reg, (unsigned long long)value,
                 sc_pfstate_name(sc_pfstate_of(value, mask)));
        sc_kv_append(out, line);
    }
    hwloc_bitmap_foreach_end();
    if (rc < 0) {
        /* A partial readback says nothing of the CPUs it missed: none of it is kept. */
        sc_kv_free(out);
        snprintf(line, sizeof(line), "# read by the CLI as root %s the workload, not attested\n",
                 when);
        sc_kv_append(out, line);
        sc_kv_append(out, "# unavailable: ");
        sc_kv_append(out, reason);
        sc_kv_append(out, "\n");
        sc__why(why, whylen, "%s", reason);
    }
    return out->failed ? -ENOMEM : rc;
}

int sc_readback_check(const char *sysroot, hwloc_const_bitmap_t cpus, char *why, size_t whylen)
{
    sc_platform p;
    sc_kv text;
    int rc = sc_platform_open(&p, sysroot, why, whylen);

    sc_kv_init(&text);
    if (rc == 0)
        rc = sc_readback_msr(&p, cpus, "before", &text, why, whylen);
    sc_kv_free(&text);
    sc_platform_close(&p);
    return rc;
}

void sc_readback_state(const char *msr_text, char *out, size_t len)
{
    char state[16];
    bool first = true, mixed = false;

    snprintf(out, len, "unknown");
    for (const char *p = msr_text; p && *p;) {
        size_t n = strcspn(p, "\n");
        const char *s = memmem(p, n, " state=", 7);
        if (*p != '#' && s) {
            snprintf(state, sizeof(state), "%.*s", (int)(n - (size_t)(s + 7 - p)), s + 7);
            if (first)
                snprintf(out, len, "%s", state);
            else if (strcmp(out, state) != 0)
                mixed = true;
            first = false;
        }
        p += n + (p[n] == '\n');
    }
    if (mixed)
        snprintf(out, len, "mixed");
}

void sc_readback_governor(const char *platform_txt, hwloc_const_bitmap_t cpus, char *out,
                          size_t len)
{
    char key[64], gov[64];
    bool first = true;
    unsigned cpu;

    snprintf(out, len, "unknown");
    hwloc_bitmap_foreach_begin(cpu, cpus)
    {
        snprintf(key, sizeof(key), "cpu%u.governor", cpu);
        if (!platform_txt || !sc_kv_get(platform_txt, key, gov, sizeof(gov)) ||
            !strcmp(gov, "unavailable")) {
            snprintf(out, len, "unknown");
            break;
        }
        if (first)
            snprintf(out, len, "%s", gov);
        else if (strcmp(out, gov) != 0)
            snprintf(out, len, "mixed");
        first = false;
    }
    hwloc_bitmap_foreach_end();
}

/* A setting the card expects is valid when it was read; one it leaves alone always is. */
static bool sc__read_ok(bool asked, const char *observed)
{
    return !asked || strcmp(observed, "unknown") != 0;
}

int sc_readback_state_env(const sc_card *card, const char *msr_before, const char *plat_before,
                          bool applied, sc_kv *out)
{
    char pf[16], gov[64], reg[32] = "none";
    bool want_pf = card->prefetch != SC_PREFETCH_UNCHANGED;
    bool want_gov = strcmp(card->governor, "unchanged") != 0;
    char *cpus = sc_cpulist_format(card->cpus);

    sc_readback_state(msr_before, pf, sizeof(pf));
    sc_readback_governor(plat_before, card->cpus, gov, sizeof(gov));
    /* The register as the first CPU line names it. */
    const char *line = msr_before ? strstr(msr_before, " reg=") : NULL;
    if (line)
        snprintf(reg, sizeof(reg), "%.*s", (int)strcspn(line + 5, " \n"), line + 5);
    if (applied)
        sc_kv_append(out,
                     "# " SC_READBACK_APPLIED_NOTE ": the card's prefetch and governor were "
                     "set (journaled first, restored when the run ends: prefetch/control.log), "
                     "then read by the CLI as root before the workload\n");
    else
        sc_kv_append(out, "# read by the CLI as root before the workload, not attested: the card's "
                          "prefetch and governor are what it expects, nothing was set\n");
    sc_kv_addf(out, "SOURCE", "%s", SC_READBACK_SOURCE);
    if (applied)
        sc_kv_addf(out, "APPLIED", "1");
    sc_kv_addf(out, "REQUESTED_PREFETCH", "%s", sc_prefetch_name(card->prefetch));
    sc_kv_addf(out, "OBSERVED_STATE", "%s", pf);
    sc_kv_addf(out, "STATE_VALID", "%d", sc__read_ok(want_pf, pf));
    sc_kv_addf(out, "REQUESTED_GOVERNOR", "%s", card->governor);
    sc_kv_addf(out, "OBSERVED_GOVERNOR", "%s", gov);
    sc_kv_addf(out, "GOVERNOR_VALID", "%d", sc__read_ok(want_gov, gov));
    sc_kv_addf(out, "REGISTER", "%s", reg);
    sc_kv_addf(out, "CPUS", "%s", cpus ? cpus : "");
    free(cpus);
    return out->failed ? -ENOMEM : 0;
}
