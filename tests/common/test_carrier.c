/*
 * test_carrier.c: the carrier vocabulary (what a card may expect, each name the tool can
 * report and nothing else, in one canonical spelling) and the decision between candidates
 * by the bytes of the main loop, with the byte counts of the runs the design names: a
 * btl=self,vader,tcp run with equal exclusivity (16.6 kB over loopback), a pure tcp run
 * (29 MB), a run over both.
 */
#include <errno.h>

#include "sc_carrier.h"
#include "sc_test.h"

static void test_canonical(void)
{
    static const struct {
        const char *in, *want; /* want NULL: refused, and why contains `why` */
        const char *why;
    } cases[] = {
        {"shm", "shm", NULL},
        {"tcp", "tcp", NULL},
        {"ofi:cxi", "ofi:cxi", NULL},
        {"ofi:verbs", "ofi:verbs", NULL},
        {"ucx:rc", "ucx:rc", NULL},
        {"ucx:sm", "ucx:sm", NULL},
        {"psm2", "psm2", NULL},
        {"shm+tcp", "shm+tcp", NULL},
        {"tcp+shm", "shm+tcp", NULL}, /* one spelling */
        {"tcp+tcp", "tcp", NULL},     /* once */
        {"ofi:cxi+shm", "ofi:cxi+shm", NULL},
        {"ucx", NULL, "too vague"},
        {"ofi", NULL, "too vague"},
        {"ofi:unknown", NULL, "unknown means"},
        {"ucx:unknown", NULL, "unknown means"},
        {"unknown", NULL, "not a carrier"},
        {"vader", NULL, "did you mean shm"},
        {"sm", NULL, "did you mean shm"},
        {"ofi:cix", NULL, "no libfabric core provider"},
        {"ofi:tcp;ofi_rxm", NULL, "no libfabric core provider"},
        {"ucx:rc_mlx5", NULL, "no UCX transport class"},
        {"shm+", NULL, "not a carrier"},
        {"+shm", NULL, "not a carrier"},
        {"shm++tcp", NULL, "not a carrier"},
        {"", NULL, "not a carrier"},
        {"mixed:shm,tcp", NULL, "not a carrier"},
        {"shm+ucx", NULL, "too vague"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[SC_CARRIER_MAX] = "", why[256] = "";
        int rc = sc_carrier_canonical(cases[i].in, out, sizeof(out), why, sizeof(why));
        if (cases[i].want) {
            SC_CHECK_MSG(rc == 0 && !strcmp(out, cases[i].want),
                         "\"%s\": rc %d \"%s\", want \"%s\"", cases[i].in, rc, out, cases[i].want);
        } else {
            SC_CHECK_MSG(rc == -EINVAL, "\"%s\": rc %d, want -EINVAL", cases[i].in, rc);
            SC_CHECK_MSG(strstr(why, cases[i].why), "\"%s\": why \"%s\" lacks \"%s\"", cases[i].in,
                         why, cases[i].why);
        }
    }
    char small[6], why[128];
    SC_CHECK_INT_EQ(sc_carrier_canonical("shm+tcp", small, sizeof(small), why, sizeof(why)),
                    -ENAMETOOLONG);
}

static void test_known_and_wire(void)
{
    SC_CHECK(sc_carrier_known("shm"));
    SC_CHECK(sc_carrier_known("shm+tcp"));
    SC_CHECK(sc_carrier_known("mixed:shm,tcp"));
    SC_CHECK(!sc_carrier_known("unknown"));
    SC_CHECK(!sc_carrier_known(""));
    SC_CHECK(!sc_carrier_known("ofi:unknown"));
    SC_CHECK(!sc_carrier_known("shm+ofi:unknown"));
    SC_CHECK(!sc_carrier_known("mixed:ofi:unknown,tcp"));
    SC_CHECK(sc_carrier_known("ofi:unknownish"));
    SC_CHECK(sc_carrier_on_wire("tcp"));
    SC_CHECK(sc_carrier_on_wire("ucx:tcp"));
    SC_CHECK(sc_carrier_on_wire("ofi:tcp"));
    SC_CHECK(sc_carrier_on_wire("ofi:net"));
    SC_CHECK(!sc_carrier_on_wire("shm"));
    SC_CHECK(!sc_carrier_on_wire("ofi:cxi"));
    SC_CHECK(!sc_carrier_on_wire("ucx:sm"));
}

/* Two ranks in one namespace, each with candidates c, sending p0 and p1, the interfaces w. */
static void decide2(const char *c, unsigned long long p0, unsigned long long p1,
                    unsigned long long w, char *out, char *note)
{
    sc_carrier_rank r[2] = {
        {.rank = 0, .netns = "4026531840", .payload_sent = p0, .wire_tx = w, .bytes_known = true},
        {.rank = 1,
         .netns = "4026531840",
         .payload_sent = p1,
         .wire_tx = w + 1000,
         .bytes_known = true}};
    snprintf(r[0].candidates, sizeof(r[0].candidates), "%s", c);
    snprintf(r[1].candidates, sizeof(r[1].candidates), "%s", c);
    sc_carrier_decide(r, 2, out, SC_CARRIER_MAX, note, 1024);
}

static void test_decide(void)
{
    static const struct {
        const char *name, *candidates;
        unsigned long long p0, p1, wire;
        const char *want, *note;
    } cases[] = {
        {"one candidate", "shm", 13000000, 13000000, 16600, "shm", "the only carrier"},
        {"equal exclusivity, shm carried", "shm,tcp", 13000000, 13000000, 16600, "shm",
         "sent 16.6 kB while the ranks of its namespace sent 26.0 MB"},
        {"pure tcp", "shm,tcp", 13000000, 13000000, 29000000, "tcp", "(111.5%)"},
        {"both carried", "shm,tcp", 13000000, 13000000, 13000000, "shm+tcp", "(50.0%)"},
        {"ucx tcp lanes", "ucx:sm,ucx:tcp", 13000000, 13000000, 25000000, "ucx:tcp", "96.2%"},
        {"two off-wire candidates", "ucx:rc,ucx:sm", 13000000, 13000000, 0, "unknown",
         "cannot tell them apart"},
        {"two on-wire candidates", "tcp,ofi:tcp", 13000000, 13000000, 26000000, "unknown",
         "cannot tell them apart"},
        {"no payload", "shm,tcp", 0, 0, 100, "unknown", "no byte counts"},
        {"no candidate", "", 100, 100, 100, "unknown", "the only carrier"},
        {"unknown provider", "ofi:unknown", 100, 100, 100, "ofi:unknown", "the only carrier"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[SC_CARRIER_MAX], note[1024];
        decide2(cases[i].candidates, cases[i].p0, cases[i].p1, cases[i].wire, out, note);
        SC_CHECK_MSG(!strcmp(out, cases[i].want), "%s: \"%s\", want \"%s\" (%s)", cases[i].name,
                     out, cases[i].want, note);
        SC_CHECK_MSG(strstr(note, cases[i].note), "%s: note \"%s\" lacks \"%s\"", cases[i].name,
                     note, cases[i].note);
    }
}

/* Ranks in different namespaces (two nodes) count their own interfaces; ranks that end with
   different carriers are mixed; unmeasured bytes decide nothing. */
static void test_decide_namespaces(void)
{
    sc_carrier_rank r[2] = {{.rank = 0,
                             .candidates = "shm,tcp",
                             .netns = "1",
                             .payload_sent = 1000000,
                             .wire_tx = 1100000,
                             .bytes_known = true},
                            {.rank = 1,
                             .candidates = "shm,tcp",
                             .netns = "2",
                             .payload_sent = 1000000,
                             .wire_tx = 5000,
                             .bytes_known = true}};
    char out[SC_CARRIER_MAX], note[1024];

    sc_carrier_decide(r, 2, out, sizeof(out), note, sizeof(note));
    SC_CHECK_STR_EQ(out, "mixed:tcp,shm");
    SC_CHECK_STR_CONTAINS(note, "rank 0: candidates shm,tcp; its network interfaces sent 1.1 MB");
    SC_CHECK_STR_CONTAINS(note, "; rank 1: ");
    r[1].wire_tx = 1050000;
    sc_carrier_decide(r, 2, out, sizeof(out), note, sizeof(note));
    SC_CHECK_STR_EQ(out, "tcp");
    r[1].bytes_known = false;
    sc_carrier_decide(r, 2, out, sizeof(out), note, sizeof(note));
    SC_CHECK_STR_EQ(out, "mixed:tcp,unknown");
    sc_carrier_decide(r, 0, out, sizeof(out), note, sizeof(note));
    SC_CHECK_STR_EQ(out, "unknown");
}

int main(void)
{
    SC_TEST_RUN(test_canonical);
    SC_TEST_RUN(test_known_and_wire);
    SC_TEST_RUN(test_decide);
    SC_TEST_RUN(test_decide_namespaces);
    return SC_TEST_RESULT();
}
