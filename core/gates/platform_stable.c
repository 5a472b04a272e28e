/*
 * platform_stable.c: the platform must not change while the workload runs (sc_platform_gate.h,
 * sc_platform_stability()): what platform/before.txt and after.txt record, and the prefetch
 * registers the command read as root before and after.
 */
#include "sc_platform_gate.h"
#include "sc_kv.h"
#include "sc_readback.h"

#include <stdio.h>
#include <string.h>

/* Keys of platform/<name>.txt a run must find unchanged at its end (section 14's state). */
static const char *const sc__machine_keys[] = {
    "kernel.osrelease", "cpu.microcode", "cpus.online",           "smt.control",
    "thp.enabled",      "thp.defrag",    "kernel.numa_balancing", "msr.allow_writes",
};
/* And per CPU of the card: the cpufreq policy (not the current frequency, which moves). */
static const char *const sc__cpu_keys[] = {"governor", "min_freq_khz", "max_freq_khz", "driver"};

typedef struct sc__diff {
    char text[448];
    size_t shown, more;
} sc__diff;

static void sc__add(sc__diff *d, const char *key, const char *was, const char *now)
{
    size_t used = strlen(d->text);

    if (d->shown == 4 || used + strlen(key) + strlen(was) + strlen(now) + 8 >= sizeof(d->text)) {
        d->more++;
        return;
    }
    snprintf(d->text + used, sizeof(d->text) - used, "%s%s %s -> %s", d->shown ? ", " : "", key,
             was, now);
    d->shown++;
}

/* One key of both texts; a side that could not read it ("unavailable", absent) says nothing. */
static void sc__compare(sc__diff *d, const sc_platform_record *r, const char *key)
{
    char was[128], now[128];

    if (!sc_kv_get(r->before, key, was, sizeof(was)) || !sc_kv_get(r->after, key, now, sizeof(now)))
        return;
    if (strcmp(was, "unavailable") != 0 && strcmp(now, "unavailable") != 0 && strcmp(was, now) != 0)
        sc__add(d, key, was, now);
}

/* The CPU lines of a msr_readback text, comments left out, into out. */
static void sc__msr_lines(const char *text, char *out, size_t len)
{
    size_t used = 0;

    *out = '\0';
    for (const char *p = text; p && *p && used + 1 < len;) {
        size_t n = strcspn(p, "\n");
        if (*p != '#' && n) {
            int w = snprintf(out + used, len - used, "%.*s\n", (int)n, p);
            used += w > 0 ? (size_t)w : 0;
        }
        p += n + (p[n] == '\n');
    }
}

void sc_platform_stability(const sc_card *card, const sc_platform_record *r, sc_gate *g)
{
    bool cli = sc_platform_read_by_cli(r->state_env);
    /* The plugin changes the governor after it captured platform/before.txt: its own
       readback (state.env) holds it, not this comparison. */
    bool governor = cli || strcmp(card->governor, "unchanged") == 0;
    sc__diff d = {.text = ""};
    bool registers = false;
    char key[64];
    unsigned cpu;

    if (!r->before || !r->after)
        return; /* a lost file is the evidence gate's */
    for (size_t i = 0; i < sizeof(sc__machine_keys) / sizeof(sc__machine_keys[0]); i++)
        sc__compare(&d, r, sc__machine_keys[i]);
    hwloc_bitmap_foreach_begin(cpu, card->cpus)
    {
        for (size_t i = 0; i < sizeof(sc__cpu_keys) / sizeof(sc__cpu_keys[0]); i++) {
            if (i == 0 && !governor)
                continue;
            snprintf(key, sizeof(key), "cpu%u.%s", cpu, sc__cpu_keys[i]);
            sc__compare(&d, r, key);
        }
    }
    hwloc_bitmap_foreach_end();
    if (cli && r->msr_before && r->msr_after) { /* the registers read as root, both times */
        char was[4096], now[4096], s_was[16], s_now[16];
        sc__msr_lines(r->msr_before, was, sizeof(was));
        sc__msr_lines(r->msr_after, now, sizeof(now));
        sc_readback_state(r->msr_before, s_was, sizeof(s_was));
        sc_readback_state(r->msr_after, s_now, sizeof(s_now));
        if (*was && *now && strcmp(was, now) != 0) {
            sc__add(&d, "prefetch", s_was, strcmp(s_was, s_now) ? s_now : "changed registers");
            registers = true;
        }
    }
    if (!d.shown || g->state == SC_GATE_FAIL)
        return; /* one reason to fail is enough */
    char more[48] = "";
    if (d.more)
        snprintf(more, sizeof(more), " and %zu more", d.more);
    sc_gate_set(g, SC_GATE_FAIL,
                "the platform changed during the run: %s%s (platform/before.txt, after.txt%s): "
                "the run measured neither state",
                d.text, more, registers ? ", the registers read by the CLI as root" : "");
}
