/*
 * test_platform_gate.c: the platform_state gate over every node's readback, and reading
 * the per-host readbacks (prefetch/state/<host>/state.env) out of a real bundle directory.
 */
#include "sc_card.h"
#include "sc_platform_gate.h"
#include "card_util.h"
#include "sc_test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define OFF_OK "OBSERVED_STATE=off\nSTATE_VALID=1\n"
#define OFF_BAD "OBSERVED_STATE=on\nSTATE_VALID=0\n"
/* Two ranks on two nodes. */
#define TWO_NODES                                                                                  \
    "TRACE_RANK_BINDING rank=0 host=scn1 cpu=0 pid=10 allowed=0\n"                                 \
    "TRACE_RANK_BINDING rank=1 host=scn2.cluster cpu=0 pid=11 allowed=0\n"

static sc_card *card_with(const char *extra)
{
    return sc_test_card_with("  workload: stream\n  kernel: copy\n  cpu_list: 0\n  threads: 1\n",
                             extra);
}

typedef struct gate_case {
    const char *name, *card_extra, *batch_state, *log;
    const char *hosts[3], *states[3];
    sc_gate_state expect;
    const char *note;
} gate_case;

static const gate_case cases[] = {
    {"nothing asked", "", NULL, TWO_NODES, {NULL}, {NULL}, SC_GATE_NULL, "leaves prefetch"},
    {"one node, its own record",
     "  prefetch: off\n",
     OFF_OK,
     "",
     {"n1"},
     {OFF_OK},
     SC_GATE_OK,
     "prefetch off"},
    {"one node, no per-host record (older plugin)",
     "  prefetch: off\n",
     OFF_OK,
     "",
     {NULL},
     {NULL},
     SC_GATE_OK,
     "prefetch off"},
    {"two nodes, both read back off",
     "  prefetch: off\n",
     OFF_OK,
     TWO_NODES,
     {"scn1", "scn2"},
     {OFF_OK, OFF_OK},
     SC_GATE_OK,
     "on every node"},
    {"two nodes, the second did not change",
     "  prefetch: off\n",
     OFF_OK,
     TWO_NODES,
     {"scn1", "scn2"},
     {OFF_OK, OFF_BAD},
     SC_GATE_FAIL,
     "prefetch on scn2: card off, read back on"},
    {"a rank's node without a record",
     "  prefetch: off\n",
     OFF_OK,
     TWO_NODES,
     {"scn1"},
     {OFF_OK},
     SC_GATE_FAIL,
     "rank 1 ran on scn2.cluster, which has no prefetch/state/scn2/"},
    {"governor on one node only",
     "  governor: performance\n",
     "OBSERVED_GOVERNOR=performance\nGOVERNOR_VALID=1\n",
     TWO_NODES,
     {"scn1", "scn2"},
     {"OBSERVED_GOVERNOR=performance\nGOVERNOR_VALID=1\n",
      "OBSERVED_GOVERNOR=powersave\nGOVERNOR_VALID=0\n"},
     SC_GATE_FAIL,
     "governor on scn2: card performance, read back powersave"},
    {"no batch readback at all",
     "  prefetch: off\n",
     NULL,
     TWO_NODES,
     {"scn1", "scn2"},
     {OFF_OK, OFF_OK},
     SC_GATE_FAIL,
     "not supported by evidence"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const gate_case *c = &cases[i];
        sc_host_state hosts[3] = {{"", NULL}, {"", NULL}, {"", NULL}};
        size_t n = 0;
        sc_tracelog t;
        sc_gate g = {SC_GATE_OK, ""};
        sc_card *card = card_with(c->card_extra);

        SC_CHECK_MSG(card != NULL, "case %s: card", c->name);
        for (; n < 3 && c->hosts[n]; n++) {
            snprintf(hosts[n].host, sizeof(hosts[n].host), "%s", c->hosts[n]);
            hosts[n].state_env = (char *)c->states[n];
        }
        SC_CHECK_INT_EQ(sc_tracelog_parse(c->log, &t), 0);
        sc_platform_gate(card, c->batch_state, hosts, n, &t, &g);
        sc_tracelog_free(&t);
        sc_card_free(card);
        SC_CHECK_MSG(g.state == c->expect, "case \"%s\": state %d, expected %d (%s)", c->name,
                     g.state, c->expect, g.note);
        SC_CHECK_MSG(strstr(g.note, c->note), "case \"%s\": note \"%s\" lacks \"%s\"", c->name,
                     g.note, c->note);
    }
}

static int put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (!(f = fopen(path, "w")))
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Only prefetch/state/<host>/state.env counts: not the batch file, not deeper paths. */
static void test_read_from_bundle(void)
{
    char dir[] = "/tmp/sc-test-hoststate.XXXXXX", cmd[600];
    sc_host_state *hosts = NULL;
    size_t n = 0;
    sc_bundle b;

    SC_CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof(cmd), "mkdir -p %s/prefetch/state/scn2 %s/prefetch/state/scn1/x", dir,
             dir);
    SC_CHECK_INT_EQ(system(cmd), 0);
    SC_CHECK_INT_EQ(put(dir, "prefetch/state/state.env", OFF_OK), 0);
    SC_CHECK_INT_EQ(put(dir, "prefetch/state/scn2/state.env", OFF_BAD), 0);
    SC_CHECK_INT_EQ(put(dir, "prefetch/state/scn1/state.env", OFF_OK), 0);
    SC_CHECK_INT_EQ(put(dir, "prefetch/state/scn1/x/state.env", OFF_OK), 0);
    SC_CHECK_INT_EQ(put(dir, "prefetch/state/scn1/control.log", "x"), 0);
    SC_CHECK_INT_EQ(sc_bundle_open(&b, dir), 0);
    SC_CHECK_INT_EQ(sc_host_states_read(&b, &hosts, &n), 0);
    sc_bundle_close(&b);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    SC_CHECK_INT_EQ(system(cmd), 0);
    SC_CHECK_INT_EQ((long)n, 2);
    SC_CHECK_STR_EQ(hosts[0].host, "scn1");
    SC_CHECK_STR_EQ(hosts[0].state_env, OFF_OK);
    SC_CHECK_STR_EQ(hosts[1].host, "scn2");
    SC_CHECK_STR_EQ(hosts[1].state_env, OFF_BAD);
    sc_host_states_free(hosts, n);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_read_from_bundle);
    return SC_TEST_RESULT();
}
