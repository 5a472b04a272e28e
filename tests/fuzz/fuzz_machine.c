/*
 * fuzz_machine.c: the node's facts and state read from sysfs and procfs under a sysroot,
 * as `streamcard run` and the plugin read them before a run (sc_machine_load(),
 * sc_sysstate_capture()), and the machine checks of a fixed card against what was read.
 * Input: the files of the table below, separated by NUL bytes; a missing part is a
 * missing file. Lists of more than 64 CPUs or nodes are skipped: they only make the run
 * slow (one file per CPU), not different.
 */
#include "support.h"

#include "sc_card.h"
#include "sc_cpulist.h"
#include "sc_diag.h"
#include "sc_fsroot.h"
#include "sc_kv.h"
#include "sc_machine.h"
#include "sc_sysstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sc__paths[] = {
    "sys/devices/system/cpu/online",
    "sys/devices/system/node/has_memory",
    "sys/devices/system/node/online",
    "sys/devices/system/node/node0/meminfo",
    "sys/devices/system/node/node1/meminfo",
    "proc/meminfo",
    "sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors",
    "sys/devices/system/cpu/cpu1/cpufreq/scaling_available_governors",
    "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
    "sys/kernel/mm/transparent_hugepage/enabled",
    "proc/cpuinfo",
};
#define SC__NPATHS (sizeof(sc__paths) / sizeof(sc__paths[0]))

/* The fake machine the target reads through (see sc_fuzz_sysroot). */
static const sc_fsroot *sc__root(void)
{
    return sc_fuzz_sysroot("proc/version", "Linux version 6.1.0 (fuzz)\n");
}

static const sc_card *sc__card(void)
{
    static sc_card *card;
    static const char yaml[] = "version: 1\n"
                               "experiment:\n"
                               "  workload: stream\n"
                               "  cpu_list: 0-1\n"
                               "  memory_node: 1\n"
                               "  governor: performance\n"
                               "  array_size: 100000000\n";
    sc_diag d;

    if (card)
        return card;
    sc_diag_init(&d);
    card = sc_card_new();
    sc_fuzz_require(card && sc_card_parse(card, yaml, strlen(yaml), "fixed.yaml", &d) == 0 &&
                        sc_card_check(card, &d) == 0,
                    "the fixed card of the harness does not check");
    sc_diag_free(&d);
    return card;
}

/* More than 64 entries in a list file (or a list that does not parse: it is not read). */
static bool sc__too_many(const char *text)
{
    char line[4096];
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    bool many;

    sc_fuzz_require(set != NULL, "out of memory");
    snprintf(line, sizeof(line), "%.*s", (int)strcspn(text, "\n"), text);
    many = sc_cpulist_parse(line, set, NULL, 0) == 0 && hwloc_bitmap_weight(set) > 64;
    hwloc_bitmap_free(set);
    return many;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const sc_fsroot *root = sc__root();
    char *part[SC__NPATHS];
    sc_machine m;
    sc_diag d;
    sc_kv kv;

    sc_fuzz_split(data, size, part, SC__NPATHS);
    for (size_t i = 0; i < 3; i++)
        if (part[i] && sc__too_many(part[i]))
            goto out;
    for (size_t i = 0; i < SC__NPATHS; i++)
        sc_fuzz_put(root->path, sc__paths[i], part[i]);
    if (sc_machine_load(&m, root) == 0) {
        sc_diag_init(&d);
        sc_card_check_machine(sc__card(), &m, true, &d);
        sc_diag_free(&d);
        sc_machine_free(&m);
    }
    sc_kv_init(&kv);
    sc_sysstate_capture(root, NULL, &kv);
    sc_kv_free(&kv);
out:
    sc_fuzz_free_parts(part, SC__NPATHS);
    return 0;
}
