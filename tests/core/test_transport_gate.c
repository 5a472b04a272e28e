/*
 * test_transport_gate.c: the transport gate on synthetic logs of the MPI workload, one
 * situation per case: a single candidate; candidates the bytes decide between (the
 * equal-exclusivity run that loopback shows shm carried, a pure TCP run); a list of
 * expected carriers; UCX's TCP lanes under a card expecting shared memory; the Slingshot
 * fall-back, whose failure quotes the first reason cxi was refused (or, when no line names cxi, the
 * first refusal ofi reported); no evidence, a run the ranks disagree on, a workload line that
 * contradicts its own evidence. expect: interface: with fabric ports' counters (InfiniBand,
 * CXI) beside the kernel's interfaces, the 90% rule naming them. expect: interface for an
 * exec MPI program (payload unknown): the named interface's share of every counted
 * interface's bytes passes and fails, no traffic at all, an interface no rank counted, and
 * the span the bytes cover said (the markers', MPI_Init's, mixed, a line from before the
 * field); a span word the protocol does not know is a malformed line.
 */
#include "card_util.h"
#include "sc_card.h"
#include "sc_gates.h"
#include "sc_test.h"
#include "sc_tracelog.h"

#include <errno.h>
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
    /* What made the carrier: the settings that pick it, and where each came from (rank 0's;
       streamcard's own verbosity and settings that pick nothing left out). */
    {"tcp forced by the environment", "shm",
     TWO("tcp") BYTES("29000000") TRANSPORT(
         "tcp") "TRACE_MPI_PARAM rank=0 name=btl source=environment value=tcp,self\n"
                "TRACE_MPI_PARAM rank=0 name=btl_base_verbose source=streamcard value=1\n"
                "TRACE_MPI_PARAM rank=0 name=btl_tcp_if_include source=environment value=lo\n"
                "TRACE_MPI_PARAM rank=0 name=pml source=file:/etc/openmpi/openmpi-mca-params.conf "
                "value=ob1\n"
                "TRACE_MPI_PARAM rank=1 name=btl source=environment value=tcp,self\n",
     SC_GATE_FAIL,
     "expected transport shm, the data went over tcp; the selection was set by btl=tcp,self from "
     "the environment, pml=ob1 from /etc/openmpi/openmpi-mca-params.conf (rank 0: tcp"},
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

/* One case's gate on its log under card (yaml: a card, checked), the card freed. */
static void check_gate(const transport_case *c, const char *yaml)
{
    sc_card *card = sc_test_card(yaml);
    sc_gates g;

    SC_CHECK_MSG(card, "%s: the card does not parse", c->name);
    if (!card)
        return;
    sc_evidence ev = {.log = c->log, .exit_known = true};
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &g), 0);
    const sc_gate *t = &g.g[SC_GATE_TRANSPORT];
    SC_CHECK_MSG(t->state == c->state && strstr(t->note, c->note),
                 "%s: state %d note \"%s\", want %d with \"%s\"", c->name, t->state, t->note,
                 c->state, c->note);
    sc_card_free(card);
}

/* One case: a card with the expect: block's lines (NULL: none), the gate on its log. */
static void check_case(const transport_case *c, const char *expect_lines)
{
    char yaml[256];

    snprintf(yaml, sizeof(yaml),
             "version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n%s%s",
             expect_lines ? "  expect:\n" : "", expect_lines ? expect_lines : "");
    check_gate(c, yaml);
}

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char lines[128];
        snprintf(lines, sizeof(lines), "    transport: %s\n",
                 cases[i].expect ? cases[i].expect : "");
        check_case(&cases[i], cases[i].expect ? lines : NULL);
    }
}

#define FABRIC(r, host, port, tx)                                                                  \
    "TRACE_FABRIC_BYTES rank=" r " host=" host " port=" port " rx=" tx " tx=" tx "\n"
/* Two nodes over InfiniBand verbs: loopback saw next to nothing, the HCA ports the payload. */
#define IB_RUN                                                                                     \
    RANKH("0", "n01", "openib")                                                                    \
    RANKH("1", "n02", "openib")                                                                    \
    PAY("0", "13000000")                                                                           \
    LO("0", "1200")                                                                                \
    PAY("1", "13000000")                                                                           \
    LO("1", "1200")                                                                                \
    FABRIC("0", "n01", "mlx5_0:1", "13000800") FABRIC("1", "n02", "mlx5_0:1", "13000900")          \
        TRANSPORT("openib")

/* Rank r on host h, and its namespace's eth0: each host's initial namespace has the same
   inode, so only the host tells two nodes' counters apart. */
#define RANKH(r, h, cand)                                                                          \
    "TRACE_TRANSPORT_RANK rank=" r " host=" h " candidates=" cand " pml=ob1 btl=x mtl=none "       \
    "provider=none fi_info=" FI "\n"
#define ETH0(r, tx) "TRACE_IFACE_BYTES rank=" r " netns=4026531840 iface=eth0 rx=" tx " tx=" tx "\n"
#define TWO_HOSTS(cand)                                                                            \
    RANKH("0", "n01", cand)                                                                        \
    RANKH("1", "n02", cand)                                                                        \
    PAY("0", "13000000") ETH0("0", "13100000") PAY("1", "13000000") ETH0("1", "13100000")

/* expect: the card's expect: lines. */
static const transport_case iface_cases[] = {
    {"the HCA port carried it", "    interface: mlx5_0:1\n", IB_RUN, SC_GATE_OK,
     "interface mlx5_0:1 carried the 26000000 payload bytes: 2400 bytes through lo, 26001700 "
     "through mlx5_0:1"},
    {"a card that expects the Ethernet NIC", "    interface: eth0\n", IB_RUN, SC_GATE_FAIL,
     "expected interface eth0 to carry 90% of the 26000000 payload bytes, it sent 0: 2400 bytes "
     "through lo, 26001700 through mlx5_0:1"},
    {"two ranks of one host read one port once", "    interface: mlx5_0:1\n",
     TWO("openib") PAY("0", "13000000") LO("0", "0") PAY("1", "13000000")
         FABRIC("0", "n01", "mlx5_0:1", "13000800") FABRIC("1", "n01", "mlx5_0:1", "13000800")
             TRANSPORT("openib"),
     SC_GATE_FAIL, "it sent 13000800: 0 bytes through lo, 13000800 through mlx5_0:1"},
    {"Slingshot's NIC", "    interface: cxi0\n",
     TWO("ofi:cxi") PAY("0", "13000000") LO("0", "0") PAY("1", "13000000") LO("1", "0")
         FABRIC("0", "n01", "cxi0", "13500000") FABRIC("1", "n02", "cxi0", "13500000")
             TRANSPORT("ofi:cxi"),
     SC_GATE_OK,
     "interface cxi0 carried the 26000000 payload bytes: 0 bytes through lo, 27000000 "
     "through cxi0"},
    {"two nodes, one inode: each node's eth0 counted", "    interface: eth0\n",
     TWO_HOSTS("tcp") TRANSPORT("tcp"), SC_GATE_OK,
     "interface eth0 carried the 26000000 payload bytes: 26200000 bytes through eth0"},
    {"two nodes, one inode: the bytes decide per node", "    transport: tcp\n",
     TWO_HOSTS("tcp,shm") TRANSPORT("tcp"), SC_GATE_OK, "transport tcp as expected"},
    /* The fabric's bytes are not the kernel's: shm against tcp is still decided by lo. */
    {"fabric bytes do not make tcp the carrier", "    transport: shm\n    interface: lo\n",
     TWO("tcp,shm") PAY("0", "13000000") LO("0", "16600") PAY("1", "13000000") LO("1", "16600")
         FABRIC("0", "n01", "mlx5_0:1", "13000800") TRANSPORT("shm"),
     SC_GATE_FAIL,
     "expected interface lo to carry 90% of the 26000000 payload bytes, it sent "
     "16600"},
};

static void test_interface(void)
{
    for (size_t i = 0; i < sizeof(iface_cases) / sizeof(iface_cases[0]); i++)
        check_case(&iface_cases[i], iface_cases[i].expect);
}

/* The probe's lines for a program we did not write: no payload known (sent=0), and what
   bounded the rank's counts. */
#define XPAY(r, span)                                                                              \
    "TRACE_PAYLOAD_BYTES rank=" r " netns=4026531840 sent=0 uncounted_ifaces=0 span=" span "\n"
#define XPAY_OLD(r) "TRACE_PAYLOAD_BYTES rank=" r " netns=4026531840 sent=0 uncounted_ifaces=0\n"
#define XRUN(pay0, pay1, lo, eth0)                                                                 \
    TWO("tcp")                                                                                     \
    pay0 LO("0", lo) ETH0("0", eth0) pay1 LO("1", lo) ETH0("1", eth0) TRANSPORT("tcp")
/* Interfaces past what a note can name (16 of long names, each 1000 bytes) before eth0. */
#define IFX(n) "TRACE_IFACE_BYTES rank=0 netns=4026531840 iface=enp0s31f6ext" n " rx=1000 tx=1000\n"
#define MANY_IFACES                                                                                \
    IFX("01")                                                                                      \
    IFX("02")                                                                                      \
    IFX("03") IFX("04") IFX("05") IFX("06") IFX("07") IFX("08") IFX("09") IFX("10") IFX("11")      \
        IFX("12") IFX("13") IFX("14") IFX("15") IFX("16")

/* expect: the card's interface. Both ranks share one namespace: its counters count once. */
static const transport_case exec_cases[] = {
    {"exec: lo carried the main loop's bytes", "lo",
     XRUN(XPAY("0", "main_loop"), XPAY("1", "main_loop"), "5000000", "1000"), SC_GATE_OK,
     "interface lo carried 5000000 of the 5001000 bytes the counted interfaces sent (100.0%) "
     "over the main loop's markers, the ranks' carrier tcp: 5000000 bytes through lo, 1000 "
     "through eth0"},
    {"exec: eth0 carried it, lo expected", "lo",
     XRUN(XPAY("0", "mpi_init_to_finalize"), XPAY("1", "mpi_init_to_finalize"), "100000",
          "4900000"),
     SC_GATE_FAIL,
     "expected interface lo to carry 90% of the 5000000 bytes the counted interfaces sent over "
     "MPI_Init..MPI_Finalize, it sent 100000 (2.0%): 100000 bytes through lo, 4900000 through "
     "eth0"},
    {"exec: just under the share", "eth0",
     XRUN(XPAY("0", "main_loop"), XPAY("1", "main_loop"), "1001", "9000"), SC_GATE_FAIL,
     "expected interface eth0 to carry 90% of the 10001 bytes"},
    {"exec: no traffic at all", "lo",
     TWO("tcp") XPAY("0", "main_loop") LO("0", "0") XPAY("1", "main_loop") LO("1", "0")
         TRANSPORT("tcp"),
     SC_GATE_FAIL,
     "not supported by evidence: no interface carried traffic in the window (over the main "
     "loop's markers: 0 bytes through lo)"},
    /* The bytes are other traffic when the ranks' carrier is not the interface's kind. */
    {"exec: over shm, lo's bytes are someone else's", "lo",
     TWO("shm") XPAY("0", "main_loop") LO("0", "900000") XPAY("1", "main_loop") LO("1", "900000")
         TRANSPORT("shm"),
     SC_GATE_FAIL,
     "expected interface lo, but the ranks' carrier is shm, which a network interface does not "
     "carry (its bytes are other traffic): 900000 bytes through lo"},
    {"exec: the carrier unknown", "lo",
     TWO("tcp,shm") XPAY("0", "main_loop") LO("0", "900000") XPAY("1", "main_loop")
         LO("1", "900000") TRANSPORT("unknown"),
     SC_GATE_FAIL,
     "not supported by evidence: the ranks' carrier is unknown, so lo's bytes cannot be told from "
     "other traffic"},
    {"exec: an interface the ranks could not count", "lo",
     TWO("tcp") "TRACE_PAYLOAD_BYTES rank=0 netns=4026531840 sent=0 uncounted_ifaces=2 "
                "span=main_loop\n" LO("0", "900000") TRANSPORT("tcp"),
     SC_GATE_FAIL,
     "not supported by evidence: 2 interfaces the ranks could not count (uncounted_ifaces), so "
     "lo's share of the bytes is unknown"},
    /* Counted in full however many interfaces the note can name: eth0 is past them. */
    {"exec: more interfaces than the note names", "eth0",
     TWO("tcp") XPAY("0", "main_loop") MANY_IFACES ETH0("0", "100000") TRANSPORT("tcp"),
     SC_GATE_FAIL, "expected interface eth0 to carry 90% of the 116000 bytes"},
    {"exec: more interfaces than the note names, eth0 carried it", "eth0",
     TWO("tcp") XPAY("0", "main_loop") MANY_IFACES ETH0("0", "300000000") TRANSPORT("tcp"),
     SC_GATE_OK, "interface eth0 carried 300000000 of the 300016000 bytes"},
    /* A fabric port's counters hold IPoIB's traffic too: ib0 against kernel interfaces only. */
    {"exec: TCP over IPoIB, the port's counters beside it", "ib0",
     TWO("tcp") XPAY("0", "main_loop") "TRACE_IFACE_BYTES rank=0 netns=4026531840 iface=ib0 rx=1 "
                                       "tx=5000000\n" LO("0", "1000") FABRIC(
                                           "0", "n01", "mlx5_0:1", "5100000") TRANSPORT("tcp"),
     SC_GATE_OK,
     "interface ib0 carried 5000000 of the 5001000 bytes the counted interfaces sent (100.0%)"},
    {"exec: a fabric port named, the carrier a fabric's", "mlx5_0:1",
     TWO("ofi:verbs") XPAY("0", "main_loop") LO("0", "1000")
         FABRIC("0", "n01", "mlx5_0:1", "5100000") TRANSPORT("ofi:verbs"),
     SC_GATE_OK,
     "interface mlx5_0:1 carried 5100000 of the 5100000 bytes the counted fabric ports sent"},
    {"exec: a fabric port named, the carrier tcp", "mlx5_0:1",
     TWO("tcp") XPAY("0", "main_loop") LO("0", "1000") FABRIC("0", "n01", "mlx5_0:1", "5100000")
         TRANSPORT("tcp"),
     SC_GATE_FAIL, "the ranks' carrier is tcp, which a fabric port does not carry"},
    {"exec: an interface no rank counted", "eth9",
     XRUN(XPAY("0", "main_loop"), XPAY("1", "main_loop"), "100", "5000"), SC_GATE_FAIL,
     "expected interface eth9, but the ranks counted no interface eth9 over the main loop's "
     "markers: 100 bytes through lo, 5000 through eth0"},
    {"exec: one rank's begin never came", "eth0",
     XRUN(XPAY("0", "main_loop"), XPAY("1", "mpi_init_to_finalize"), "100", "5000"), SC_GATE_OK,
     "(98.0%) over the main loop's markers on 1 rank, over MPI_Init..MPI_Finalize on 1 rank (no "
     "sc_marker_begin came), the ranks' carrier tcp: "},
    {"exec: a begin without its end", "eth0",
     XRUN(XPAY("0", "main_loop_begin_to_finalize"), XPAY("1", "main_loop_begin_to_finalize"), "100",
          "5000"),
     SC_GATE_OK,
     "from sc_marker_begin to MPI_Finalize (no sc_marker_end), the ranks' carrier tcp: "},
    {"exec: a line from before the span counted from MPI_Init", "eth0",
     XRUN(XPAY_OLD("0"), XPAY_OLD("1"), "100", "5000"), SC_GATE_OK,
     "(98.0%) over MPI_Init..MPI_Finalize, the ranks' carrier tcp: "},
    {"exec: no rank counted its bytes", "lo", TWO("tcp") TRANSPORT("tcp"), SC_GATE_FAIL,
     "not supported by evidence: expected interface lo, but no rank counted its interfaces"},
};

/* Each case under a card of an MPI program we did not write, two ranks, expecting its
   interface. */
static void test_exec_interface(void)
{
    char yaml[256];

    for (size_t i = 0; i < sizeof(exec_cases) / sizeof(exec_cases[0]); i++) {
        snprintf(yaml, sizeof(yaml),
                 "version: 1\nexperiment:\n  workload: exec\n  command: [/bin/true]\n  ranks: 2\n"
                 "  cpu_list: 0-1\n  expect:\n    interface: %s\n",
                 exec_cases[i].expect);
        check_gate(&exec_cases[i], yaml);
    }
}

/* The span of a payload line: known words, none (before the field), anything else refused. */
static void test_bytes_span(void)
{
    static const struct {
        const char *line, *span;
        int rc;
    } spans[] = {
        {"rank=0 netns=1 sent=0 uncounted_ifaces=0 span=main_loop", "main_loop", 0},
        {"rank=0 netns=1 sent=0 uncounted_ifaces=0 span=mpi_init_to_finalize",
         "mpi_init_to_finalize", 0},
        {"rank=0 netns=1 sent=0 uncounted_ifaces=0", "", 0},
        {"rank=0 netns=1 sent=0 uncounted_ifaces=0 span=forever", "", -EBADMSG},
        {"rank=0 netns=1 sent=0 uncounted_ifaces=0 span=main_loop extra", "", -EBADMSG},
        {"rank=0 netns=1 sent=0 uncounted_ifaces=0 spam=main_loop", "", -EBADMSG},
        {"rank=x netns=1 sent=0 uncounted_ifaces=0 span=main_loop", "", -EINVAL},
    };
    char span[32];

    for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
        SC_CHECK_INT_EQ(sc_tracelog_bytes_span(spans[i].line, span, sizeof(span)), spans[i].rc);
        SC_CHECK_STR_EQ(span, spans[i].span);
    }
}

/* A payload line naming a span the protocol does not know is malformed: the log's evidence
   gates say so. (A known word is taken as written: it changes the note, never the verdict,
   and is not checked against the rank's TRACE_RANK_WINDOW span.) */
static void test_forged_span(void)
{
    sc_tracelog t;
    const char *log = "x\n" XRUN(XPAY("0", "main_loop"), XPAY("1", "the_good_part"), "0", "5000");

    SC_CHECK_INT_EQ(sc_tracelog_parse(log, &t), 0);
    SC_CHECK_INT_EQ(t.malformed_line, 7); /* rank 1's payload line */
    sc_tracelog_free(&t);
    SC_CHECK_INT_EQ(
        sc_tracelog_parse("x\n" XRUN(XPAY("0", "main_loop"), XPAY_OLD("1"), "0", "5"), &t), 0);
    SC_CHECK_INT_EQ(t.malformed_line, 0);
    sc_tracelog_free(&t);
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
    SC_TEST_RUN(test_interface);
    SC_TEST_RUN(test_exec_interface);
    SC_TEST_RUN(test_bytes_span);
    SC_TEST_RUN(test_forged_span);
    return SC_TEST_RESULT();
}
