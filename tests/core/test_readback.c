/*
 * test_readback.c: the platform as `streamcard run` reads it as root outside a job
 * (sc_readback.h) against a fake node tree, and the check that the platform did not change
 * while the workload ran (sc_platform_stability()).
 */
#include "sc_platform_gate.h"
#include "sc_readback.h"
#include "card_util.h"
#include "sysroot_util.h"
#include "sc_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* A Skylake-X of 2 CPUs whose register 0x1a4 holds value0 on cpu 0 and value1 on cpu 1;
   NULL when the tree cannot be made. */
static char *node(uint64_t value0, uint64_t value1)
{
    char *root = sysroot_make(), path[PATH_MAX], rel[64];
    const uint64_t v[2] = {value0, value1};
    if (!root)
        return NULL;
    int bad = sysroot_put(root, "proc/cpuinfo",
                          "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                          "model\t\t: 85\nmodel name\t: fake\n\n") < 0 ||
              sysroot_put(root, "sys/devices/system/cpu/online", "0-1\n") < 0;
    for (int cpu = 0; !bad && cpu < 2; cpu++) {
        snprintf(rel, sizeof(rel), "dev/cpu/%d/.keep", cpu);
        bad = sysroot_put(root, rel, "") < 0;
        snprintf(path, sizeof(path), "%s/dev/cpu/%d/msr", root, cpu);
        int fd = bad ? -1 : open(path, O_WRONLY | O_CREAT, 0600);
        bad = fd < 0 || pwrite(fd, &v[cpu], 8, 0x1a4) != 8;
        if (fd >= 0)
            close(fd);
    }
    if (bad) {
        sysroot_remove(root);
        return NULL;
    }
    return root;
}

/* The platform_state gate of card over a state.env text: its state and a part of its note. */
static void check_gate(const sc_card *card, const char *state_env, int state, const char *note)
{
    sc_gate g = {0};

    sc_platform_gate(card, state_env, NULL, 0, NULL, &g);
    SC_CHECK_INT_EQ(g.state, state);
    SC_CHECK_STR_CONTAINS(g.note, note);
}

static sc_card *card_with(const char *extra)
{
    return sc_test_card_with("  workload: stream\n  kernel: copy\n  cpu_list: 0-1\n  threads: 2\n",
                             extra);
}

static void test_read(void)
{
    char *root = node(0xf, 0x3), why[512] = "", state[16];
    sc_card *card = card_with("  prefetch: off\n");
    sc_platform p;
    sc_kv kv, env;

    SC_CHECK_MSG(root && card, "cannot build the fake node");
    if (!root || !card)
        return;
    sc_kv_init(&kv);
    sc_kv_init(&env);
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(sc_readback_msr(&p, card->cpus, "before", &kv, why, sizeof(why)), 0);
    SC_CHECK_STR_CONTAINS(kv.text, "# read by the CLI as root before the workload, not attested");
    SC_CHECK_STR_CONTAINS(kv.text, "cpu=0 reg=0x1a4 value=0x000000000000000f state=off\n");
    SC_CHECK_STR_CONTAINS(kv.text, "cpu=1 reg=0x1a4 value=0x0000000000000003 state=mixed\n");
    sc_readback_state(kv.text, state, sizeof(state));
    SC_CHECK_STR_EQ(state, "mixed");
    SC_CHECK_INT_EQ(sc_readback_state_env(card, kv.text,
                                          "cpu0.governor=performance\ncpu1.governor=performance\n",
                                          false, &env),
                    0);
    SC_CHECK_STR_CONTAINS(env.text, "SOURCE=cli-root\n");
    SC_CHECK_STR_CONTAINS(env.text, "nothing was set");
    SC_CHECK(!sc_platform_applied_by_cli(env.text));
    SC_CHECK_STR_CONTAINS(env.text,
                          "REQUESTED_PREFETCH=off\nOBSERVED_STATE=mixed\nSTATE_VALID=1\n");
    SC_CHECK_STR_CONTAINS(env.text, "OBSERVED_GOVERNOR=performance\n");
    SC_CHECK(sc_platform_read_by_cli(env.text));
    /* The gate holds the card's expectation to what was read. */
    check_gate(card, env.text, SC_GATE_FAIL, "prefetch: card off, read back mixed");
    /* Set by the command itself (--platform apply): said in state.env and the gate's note. */
    sc_kv applied;
    sc_kv_init(&applied);
    SC_CHECK_INT_EQ(sc_readback_state_env(card, "cpu=0 reg=0x1a4 value=0xf state=off\n",
                                          "cpu0.governor=performance\ncpu1.governor=performance\n",
                                          true, &applied),
                    0);
    SC_CHECK_STR_CONTAINS(applied.text, "# applied by the CLI as root, not attested: ");
    SC_CHECK_STR_CONTAINS(applied.text, "APPLIED=1\n");
    SC_CHECK(sc_platform_applied_by_cli(applied.text));
    check_gate(card, applied.text, SC_GATE_OK,
               "applied by the CLI as root, not attested; read by the CLI");
    sc_kv_free(&applied);
    /* Nothing was written: the registers hold their seeds. */
    SC_CHECK_INT_EQ(sc_readback_check(root, card->cpus, why, sizeof(why)), 0);
    sc_platform_close(&p);
    sc_kv_free(&kv);
    sc_kv_free(&env);
    sc_card_free(card);
    sysroot_remove(root);
}

/* Without an msr device the readback says why, and keeps no partial text. */
static void test_unreadable(void)
{
    char *root = node(0xf, 0xf), path[PATH_MAX], why[512] = "";
    sc_card *card = card_with("  prefetch: off\n");
    sc_platform p;
    sc_kv kv;

    SC_CHECK_MSG(root && card, "cannot build the fake node");
    if (!root || !card)
        return;
    snprintf(path, sizeof(path), "%s/dev/cpu/1/msr", root);
    SC_CHECK_INT_EQ(unlink(path), 0);
    sc_kv_init(&kv);
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), 0);
    SC_CHECK(sc_readback_msr(&p, card->cpus, "after", &kv, why, sizeof(why)) < 0);
    SC_CHECK_STR_CONTAINS(why, "cannot open dev/cpu/1/msr");
    SC_CHECK_STR_CONTAINS(kv.text, "# unavailable: ");
    SC_CHECK(!strstr(kv.text, "cpu=0 "));
    SC_CHECK(sc_readback_check(root, card->cpus, why, sizeof(why)) < 0);
    sc_platform_close(&p);
    sc_kv_free(&kv);
    sc_card_free(card);
    sysroot_remove(root);
}

#define STATE "kernel.numa_balancing=0\nthp.enabled=always\ncpu.microcode=0x1\n"
#define GOVS "cpu0.governor=performance\ncpu1.governor=performance\n"

typedef struct stable_case {
    const char *name, *card_extra, *before, *after, *msr_before, *msr_after, *state_env;
    sc_gate_state expect;
    const char *note;
} stable_case;

static const stable_case stable_cases[] = {
    {"nothing changed", "", STATE GOVS, STATE GOVS, NULL, NULL, NULL, SC_GATE_NULL, ""},
    {"numa_balancing switched on", "", STATE GOVS,
     "kernel.numa_balancing=1\nthp.enabled=always\ncpu.microcode=0x1\n" GOVS, NULL, NULL, NULL,
     SC_GATE_FAIL, "the platform changed during the run: kernel.numa_balancing 0 -> 1"},
    {"THP and microcode", "", STATE,
     "kernel.numa_balancing=0\nthp.enabled=never\n"
     "cpu.microcode=0x2\n",
     NULL, NULL, NULL, SC_GATE_FAIL, "cpu.microcode 0x1 -> 0x2, thp.enabled always -> never"},
    {"a governor of the card's CPUs", "", STATE GOVS,
     STATE "cpu0.governor=performance\ncpu1.governor=powersave\n", NULL, NULL, NULL, SC_GATE_FAIL,
     "cpu1.governor performance -> powersave"},
    {"a governor outside the card's CPUs", "", STATE GOVS "cpu7.governor=performance\n",
     STATE GOVS "cpu7.governor=powersave\n", NULL, NULL, NULL, SC_GATE_NULL, ""},
    {"the plugin's governor change is its readback's business", "  governor: performance\n",
     STATE "cpu0.governor=powersave\ncpu1.governor=powersave\n", STATE GOVS, NULL, NULL,
     "OBSERVED_GOVERNOR=performance\nGOVERNOR_VALID=1\n", SC_GATE_OK, "read back"},
    {"unreadable after: not compared", "", STATE GOVS,
     "kernel.numa_balancing=unavailable\nthp.enabled=always\ncpu.microcode=0x1\n" GOVS, NULL, NULL,
     NULL, SC_GATE_NULL, ""},
    {"no after.txt: the evidence gate's", "", STATE, NULL, NULL, NULL, NULL, SC_GATE_NULL, ""},
    {"prefetch read as root changed", "  prefetch: off\n", STATE, STATE,
     "# x\ncpu=0 reg=0x1a4 value=0xf state=off\n", "# y\ncpu=0 reg=0x1a4 value=0x0 state=on\n",
     "SOURCE=cli-root\nOBSERVED_STATE=off\nSTATE_VALID=1\n", SC_GATE_FAIL,
     "prefetch off -> on (platform/before.txt, after.txt, the registers read by the CLI as root)"},
    {"the plugin's readbacks are not before and after the run", "  prefetch: off\n", STATE, STATE,
     "cpu=0 reg=0x1a4 value=0x0 state=on\n", "cpu=0 reg=0x1a4 value=0xf state=off\n",
     "OBSERVED_STATE=off\nSTATE_VALID=1\n", SC_GATE_OK, "read back: prefetch off"},
};

static void test_stability(void)
{
    for (size_t i = 0; i < sizeof(stable_cases) / sizeof(stable_cases[0]); i++) {
        const stable_case *c = &stable_cases[i];
        sc_card *card = card_with(c->card_extra);
        sc_platform_record r = {c->before, c->after, c->msr_before, c->msr_after, c->state_env};
        sc_gate g = {0};
        sc_platform_gate(card, c->state_env, NULL, 0, NULL, &g);
        sc_platform_stability(card, &r, &g);
        SC_CHECK_MSG(g.state == c->expect, "%s: state %d, expected %d (%s)", c->name, g.state,
                     c->expect, g.note);
        SC_CHECK_MSG(strstr(g.note, c->note), "%s: note \"%s\" lacks \"%s\"", c->name, g.note,
                     c->note);
        sc_card_free(card);
    }
}

int main(void)
{
    SC_TEST_RUN(test_read);
    SC_TEST_RUN(test_unreadable);
    SC_TEST_RUN(test_stability);
    return SC_TEST_RESULT();
}
