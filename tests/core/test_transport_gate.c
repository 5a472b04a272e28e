/*
 * test_transport_gate.c: the transport gate on synthetic logs of the MPI workload, one
 * situation per case: a single candidate; candidates the bytes decide between (the
 * equal-exclusivity run that loopback shows shm carried, a pure TCP run); a list of
 * expected carriers; UCX's TCP lanes under a card expecting shared memory; the Slingshot
 * fall-back, whose failure quotes the first reason cxi was refused (or, when no line names cxi, the
 * first refusal ofi reported); no evidence, a run the ranks disagree on, a workload line that
 * contradicts its own evidence.
 */
#include "card_util.h"
#include "sc_card.h"
#include "sc_gates.h"
#include "sc_test.h"

#include <stdlib.h>

#define RANK(r, cand, fi)                                                                          \
    "TRACE_TRANSPORT_RANK rank=" r " host=n01 candidates=" cand " pml=ob1 btl=x mtl=none "         \
    "provider=none fi_info=" fi "\n"
#define PAY(r, sent)                                                                               \
    "TRACE_PAYLOAD_BYTES rank=" r " netns=4026531840 sent=" sent " uncounted_ifaces=0\n"
#define LO(r, tx) "TRACE_IFACE_BYTES rank=" r " netns=4026531840 iface=lo rx=" tx " tx=" tx "\n"
#define TRANSPORT(t) "TRACE_TRANSPORT transport=" t " pml=ob1 btl=x mtl=none provider=none\n"
#define REFUSED(r, subject, why)                                                                   \
    "TRACE_TRANSPORT_REFUSED rank=" r " subject=" subject " why=" why "\n"
#define FI "tcp;ofi_rxm,shm"
#define TWO(cand) RANK("0", cand, FI) RANK("1", cand, FI)
#define BYTES(lo) PAY("0", "13000000") LO("0", lo) PAY("1", "13000000") LO("1", lo)

typedef struct transport_case {
    const char *name, *expect; /* expect: the card's transport: line, NULL none */
    const char *log;
    sc_gate_state state;
    const char *note; /* a substring of the gate's note */
} transport_case;

static const transport_case cases[] = {
    {"no expectation", NULL, TWO("shm") BYTES("0") TRANSPORT("shm"), SC_GATE_NULL,
     "the card expects no transport"},
    {"one candidate", "shm", TWO("shm") BYTES("0") TRANSPORT("shm"), SC_GATE_OK,
     "transport shm as expected (rank 0: shm, the only carrier its MPI library selected"},
    {"equal exclusivity: the bytes say shm", "shm", TWO("tcp,shm") BYTES("16600") TRANSPORT("shm"),
     SC_GATE_OK,
     "its network interfaces sent 16.6 kB while the ranks of its namespace sent 26.0 MB of "
     "payload (0.1%)"},
    {"pure tcp: the bytes say tcp", "shm", TWO("tcp,shm") BYTES("29000000") TRANSPORT("tcp"),
     SC_GATE_FAIL, "expected transport shm, the data went over tcp (rank 0: candidates tcp,shm"},
    {"a list: any of them", "[shm, tcp]", TWO("tcp,shm") BYTES("29000000") TRANSPORT("tcp"),
     SC_GATE_OK, "transport tcp as expected"},
    {"both carried", "shm", TWO("tcp,shm") BYTES("13000000") TRANSPORT("shm+tcp"), SC_GATE_FAIL,
     "the data went over shm+tcp"},
    {"ucx over tcp, the card expects ucx:sm", "ucx:sm",
     TWO("ucx:tcp") BYTES("25000000")
         REFUSED("0", "ucx",
                 "rdmacm_cm.c:928  UCX  DIAG  rdma_create_event_channel failed: No "
                 "such device") TRANSPORT("ucx:tcp"),
     SC_GATE_FAIL,
     "expected transport ucx:sm, the data went over ucx:tcp; the first refusal ucx reported, on "
     "rank 0: \"rdmacm_cm.c:928  UCX  DIAG  rdma_create_event_channel failed"},
    {"the Slingshot fall-back", "ofi:cxi",
     RANK("0", "tcp", "cxi,tcp;ofi_rxm") RANK("1", "tcp", "cxi,tcp;ofi_rxm")
         REFUSED("0", "ofi", "mtl_ofi_component.c:778: fi_getinfo(): No data available")
             REFUSED("0", "ofi:cxi",
                     "libfabric:41873:1781018439::cxi:domain:cxip_cp_get():109<warn> nid001: "
                     "Failed to allocate CP, ret: -22")
                 REFUSED("0", "ofi:cxi",
                         "mtl_ofi_component.c:1093:fi_enable failed: Invalid resource domain")
                     BYTES("29000000") TRANSPORT("tcp"),
     SC_GATE_FAIL,
     "expected transport ofi:cxi, the data went over tcp; the first reason ofi:cxi was refused, on "
     "rank 0: \"libfabric:41873:1781018439::cxi:domain:cxip_cp_get():109<warn> nid001: Failed to "
     "allocate CP, ret: -22\" (rank 0: tcp"},
    {"cxi not offered at all", "ofi:cxi",
     TWO("shm") REFUSED("1", "ofi:tcp",
                        "mtl_ofi_component.c:320: mtl:ofi: \"tcp;ofi_rxm\" not "
                        "in include list")
         REFUSED("1", "ofi", "mtl_ofi_component.c:756: select_ofi_provider: no provider found")
             BYTES("0") TRANSPORT("shm"),
     SC_GATE_FAIL,
     "the first refusal ofi reported, on rank 1: \"mtl_ofi_component.c:756: "
     "select_ofi_provider: no provider found\"; the libfabric of rank 0 offers no cxi provider"},
    {"healthy Slingshot", "ofi:cxi", TWO("ofi:cxi") BYTES("0") TRANSPORT("ofi:cxi"), SC_GATE_OK,
     "transport ofi:cxi as expected"},
    {"the OFI BTL names no provider", "ofi:cxi",
     TWO("ofi:unknown") BYTES("0") TRANSPORT("ofi:unknown"), SC_GATE_FAIL,
     "not supported by evidence: the carrier is ofi:unknown, expected ofi:cxi"},
    {"ranks disagree", "shm",
     RANK("0", "shm", FI) RANK("1", "tcp", FI) BYTES("13000000") TRANSPORT("mixed:shm,tcp"),
     SC_GATE_FAIL, "the data went over mixed:shm,tcp"},
    {"the workload's line contradicts its evidence", "shm",
     TWO("tcp,shm") BYTES("29000000") TRANSPORT("shm"), SC_GATE_FAIL,
     "the workload's TRACE_TRANSPORT line says shm, but its own evidence shows tcp"},
    {"no candidates recorded", "shm", TRANSPORT("shm"), SC_GATE_FAIL,
     "the workload's TRACE_TRANSPORT line says shm, but its own evidence shows unknown (no rank "
     "reported"},
    {"no log lines at all", "shm", "", SC_GATE_FAIL,
     "not supported by evidence: the carrier is unknown, expected shm"},
    {"candidates, but the loop's bytes are missing", "shm", TWO("tcp,shm"), SC_GATE_FAIL,
     "not supported by evidence: the carrier is unknown, expected shm (rank 0: candidates tcp,shm, "
     "and no byte counts of the main loop"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const transport_case *c = &cases[i];
        char yaml[256];
        snprintf(yaml, sizeof(yaml),
                 "version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n%s%s%s",
                 c->expect ? "  expect:\n    transport: " : "", c->expect ? c->expect : "",
                 c->expect ? "\n" : "");
        sc_card *card = sc_test_card(yaml);
        SC_CHECK_MSG(card, "%s: the card does not parse", c->name);
        sc_evidence ev = {.log = c->log, .exit_known = true};
        sc_gates g;
        SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &g), 0);
        const sc_gate *t = &g.g[SC_GATE_TRANSPORT];
        SC_CHECK_MSG(t->state == c->state && strstr(t->note, c->note),
                     "%s: state %d note \"%s\", want %d with \"%s\"", c->name, t->state, t->note,
                     c->state, c->note);
        sc_card_free(card);
    }
}

/* A carrier decided elsewhere (the evidence's transport) replaces the log's decision. */
static void test_decided_elsewhere(void)
{
    const char *yaml = "version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n"
                       "  expect:\n    transport: shm\n";
    sc_card *card = sc_test_card(yaml);
    SC_CHECK(card);
    sc_evidence ev = {.log = TWO("shm") BYTES("0") TRANSPORT("shm"), .transport = "tcp"};
    sc_gates g;
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &g), 0);
    SC_CHECK_INT_EQ(g.g[SC_GATE_TRANSPORT].state, SC_GATE_FAIL);
    SC_CHECK_STR_CONTAINS(g.g[SC_GATE_TRANSPORT].note, "the data went over tcp");
    sc_card_free(card);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_decided_elsewhere);
    return SC_TEST_RESULT();
}
