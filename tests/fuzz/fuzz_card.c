/*
 * fuzz_card.c: the experiment card. sbatch parses a user's card, and so does the compute
 * node, as root, from the bytes that travel with the job: sc_card_parse() and
 * sc_card_check() as both do it, the sweep selection, sc_card_check_machine() against a
 * fixed node, and the round trip of the resolved card: a card that parses and checks
 * cleanly is emitted as YAML (what card.yaml holds when flags or a sweep changed it), and
 * that YAML must parse and check cleanly again and emit the very same text.
 */
#include "support.h"

#include "sc_card.h"
#include "sc_cpulist.h"
#include "sc_diag.h"
#include "sc_machine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A two-socket node: CPUs 0-7 online, 0-3 ours, nodes 0-1 with 16 GiB each, cpufreq. */
static const sc_machine *sc__machine(void)
{
    static sc_machine m;
    static uint64_t mem[2] = {16ull << 30, 16ull << 30};

    if (m.cpus_online)
        return &m;
    snprintf(m.hostname, sizeof(m.hostname), "node01.cluster");
    m.cpus_online = hwloc_bitmap_alloc();
    m.cpus_allowed = hwloc_bitmap_alloc();
    m.nodes = hwloc_bitmap_alloc();
    m.mems_allowed = hwloc_bitmap_alloc();
    sc_fuzz_require(m.cpus_online && m.cpus_allowed && m.nodes && m.mems_allowed, "out of memory");
    hwloc_bitmap_set_range(m.cpus_online, 0, 7);
    hwloc_bitmap_set_range(m.cpus_allowed, 0, 3);
    hwloc_bitmap_set_range(m.nodes, 0, 1);
    hwloc_bitmap_only(m.mems_allowed, 0);
    m.node_mem_bytes = mem;
    m.n_node_mem = 2;
    m.has_cpufreq = true;
    m.governors = (char *)"performance powersave schedutil";
    return &m;
}

static void sc__fail(const char *what, const char *yaml, const sc_diag *d)
{
    fprintf(stderr, "--- resolved card:\n%s--- problems:\n", yaml ? yaml : "(none)\n");
    if (d)
        sc_diag_print(d, "  ", stderr);
    sc_fuzz_require(false, what);
}

/* The resolved card must read back as itself. */
static void sc__round_trip(const sc_card *card)
{
    char *yaml = sc_card_to_yaml(card), *again_yaml;
    sc_card *again = sc_card_new();
    sc_diag d;
    int rc;

    sc_fuzz_require(yaml && again, "sc_card_to_yaml: out of memory");
    sc_diag_init(&d);
    rc = sc_card_parse(again, yaml, strlen(yaml), "resolved.yaml", &d);
    if (rc == 0)
        rc = sc_card_check(again, &d);
    if (rc != 0)
        sc__fail("the resolved card does not parse and check cleanly", yaml, &d);
    again_yaml = sc_card_to_yaml(again);
    if (!again_yaml || strcmp(yaml, again_yaml) != 0) {
        fprintf(stderr, "--- emitted again:\n%s", again_yaml ? again_yaml : "(none)\n");
        sc__fail("the resolved card changed in the round trip", yaml, &d);
    }
    free(again_yaml);
    sc_card_free(again);
    sc_diag_free(&d);
    free(yaml);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_card *card = sc_card_new();
    sc_diag d;

    sc_fuzz_require(card != NULL, "out of memory");
    sc_diag_init(&d);
    /* As spank/jobcard.c and `streamcard run` do: key errors are reported with the rest. */
    int rc = sc_card_parse(card, (const char *)data, size, "fuzz.yaml", &d);
    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(card, &d);
        if (rc == 0 && crc == 0 && card->n_sweep) {
            /* A sweep runs each value as a card of its own; take the last one. */
            crc = sc_card_sweep_select(card, card->n_sweep - 1, &d);
            if (crc == 0)
                crc = sc_card_check(card, &d);
        }
        if (rc == 0 && crc == 0) {
            sc_card_check_machine(card, sc__machine(), true, &d);
            sc_card_check_machine(card, sc__machine(), false, &d);
            (void)sc_card_memory_bytes(card);
            sc__round_trip(card);
        }
    }
    sc_card_free(card);
    sc_diag_free(&d);
    return 0;
}
