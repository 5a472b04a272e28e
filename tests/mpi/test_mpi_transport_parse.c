/*
 * test_mpi_transport_parse.c: from what Open MPI reported (text captured from real runs of
 * Open MPI 4.1.4 on one node) to the transport name the card's gate compares: the BML's
 * per-peer BTL lines, the OFI MTL's provider lines, MPI_T variable names, fi_info output,
 * the normalization table and the agreement of the ranks.
 */
#include "sc_test.h"
#include "transport_parse.h"

/* stderr of rank 0 with btl_base_verbose=1, OMPI_MCA_btl=tcp,self (two TCP interfaces). */
static const char bml_tcp[] =
    "[vm:20312] mca: bml: Using self btl for send to [[9133,1],0] on node vm\n"
    "[vm:20312] mca: bml: Using tcp btl for send to [[9133,1],1] on node vm\n"
    "[vm:20312] mca: bml: Using tcp btl for send to [[9133,1],1] on node vm\n"
    "some other line on stderr\n";

/* Rank 1's stderr (each rank captures its own), default selection, no final newline. */
static const char bml_vader[] =
    "[vm:19943] mca: bml: Using vader btl for send to [[8476,1],0] on node vm\n"
    "[vm:19943] mca: bml: Using self btl for send to [[8476,1],1] on node vm";

static const char ofi_net[] =
    "[vm:21576] ../../../../../../ompi/mca/mtl/ofi/mtl_ofi_component.c:329: mtl:ofi: "
    "\"tcp;ofi_rxm\" in exclude list\n"
    "[vm:21576] ../../../../../../ompi/mca/mtl/ofi/mtl_ofi_component.c:337: mtl:ofi:prov: "
    "tcp;ofi_rxm\n"
    "[vm:21576] ../../../../../../ompi/mca/mtl/ofi/mtl_ofi_component.c:365: "
    "mtl:ofi:provider: eth0\n"
    "[vm:21576] ../../../../../../ompi/mca/mtl/ofi/mtl_ofi_component.c:583: "
    "mtl:ofi:provider_include = \"(null)\"\n";

static void test_lists(void)
{
    char list[32] = "";

    scm_list_add(list, sizeof(list), "tcp");
    scm_list_add(list, sizeof(list), "vader");
    scm_list_add(list, sizeof(list), "tcp");
    scm_list_add(list, sizeof(list), "");
    scm_list_add(list, sizeof(list), "vader,tcp"); /* would read back as two items */
    SC_CHECK_STR_EQ(list, "tcp,vader");
    SC_CHECK(scm_list_has(list, "vader"));
    SC_CHECK(!scm_list_has(list, "vade"));
    SC_CHECK(!scm_list_has(list, "tc"));
    scm_list_add(list, sizeof(list), "a-name-that-does-not-fit-anymore");
    SC_CHECK_STR_EQ(list, "tcp,vader");
}

static void test_components_from_cvars(void)
{
    static const struct {
        const char *fw, *cvar, *want;
    } cases[] = {
        {"pml", "pml_ob1_priority", "ob1"},
        {"pml", "pml_base_bsend_allocator", ""},
        {"pml", "pml", ""},
        {"btl", "btl_tcp_if_include", "tcp"},
        {"btl", "btl_vader_single_copy", "vader"},
        {"btl", "btlx_tcp_foo", ""},
        {"mtl", "mtl_ofi_provider_include", "ofi"},
        {"mtl", "pml_cm_priority", ""},
        {"btl", "btl__x", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char list[64] = "";
        scm_component_add(list, sizeof(list), cases[i].fw, cases[i].cvar);
        SC_CHECK_MSG(!strcmp(list, cases[i].want), "%s in %s: \"%s\", want \"%s\"", cases[i].cvar,
                     cases[i].fw, list, cases[i].want);
    }
}

static void test_bml_lines(void)
{
    char peer[64], self[64], ev[512] = "";

    scm_parse_bml(bml_tcp, 0, 1, peer, sizeof(peer), self, sizeof(self), ev, sizeof(ev));
    SC_CHECK_STR_EQ(peer, "tcp");
    SC_CHECK_STR_EQ(self, "self");
    SC_CHECK_STR_EQ(ev, "mca: bml: Using self btl for send to [[9133,1],0] on node vm | "
                        "mca: bml: Using tcp btl for send to [[9133,1],1] on node vm");

    ev[0] = '\0';
    scm_parse_bml(bml_vader, 1, 0, peer, sizeof(peer), self, sizeof(self), ev, sizeof(ev));
    SC_CHECK_STR_EQ(peer, "vader");
    SC_CHECK_STR_EQ(self, "self");

    scm_parse_bml("no report at all\n", 0, 1, peer, sizeof(peer), self, sizeof(self), ev,
                  sizeof(ev));
    SC_CHECK_STR_EQ(peer, "");
    SC_CHECK_STR_EQ(self, "");
}

static void test_ofi_lines(void)
{
    char prov[64], dom[64], ev[512] = "";

    scm_parse_ofi(ofi_net, prov, sizeof(prov), dom, sizeof(dom), ev, sizeof(ev));
    SC_CHECK_STR_EQ(prov, "tcp;ofi_rxm");
    SC_CHECK_STR_EQ(dom, "eth0");
    SC_CHECK_STR_CONTAINS(ev, "mtl:ofi:prov: tcp;ofi_rxm");
    SC_CHECK(!strstr(ev, "exclude"));

    scm_parse_ofi(bml_tcp, prov, sizeof(prov), dom, sizeof(dom), ev, sizeof(ev));
    SC_CHECK_STR_EQ(prov, "");
    SC_CHECK_STR_EQ(dom, "");
}

static void test_normalize(void)
{
    static const struct {
        const char *pml, *btl, *mtl, *provider, *want;
    } cases[] = {
        {"ob1", "vader", "none", "", "shm"},
        {"ob1", "sm", "none", "", "shm"},
        {"ob1", "smcuda", "none", "", "shm"},
        {"ob1", "vader,sm", "none", "", "shm"},
        {"ob1", "tcp", "none", "", "tcp"},
        {"ob1", "tcp,openib", "none", "", "tcp+openib"},
        {"ob1", "ofi", "none", "verbs;ofi_rxm", "ofi:verbs"},
        {"ob1", "ofi", "none", "", "ofi:unknown"},
        {"ob1", "uct", "none", "", "uct"},
        {"ob1", "", "none", "", "unknown"}, /* ob1 but the BML said nothing */
        {"cm", "", "ofi", "cxi", "ofi:cxi"},
        {"cm", "", "ofi", "tcp;ofi_rxm", "ofi:tcp"},
        {"cm", "", "ofi", "", "ofi:unknown"},
        {"cm", "", "psm2", "", "psm2"},
        {"cm", "", "unknown", "", "unknown"},
        {"cm", "", "psm2,ofi", "", "unknown"},
        {"ucx", "", "none", "", "ucx"},
        {"monitoring,ob1", "vader", "none", "", "shm"},
        {"ob1,cm", "vader", "ofi", "cxi", "unknown"},
        {"unknown", "", "none", "", "unknown"},
        {"", "", "", "", "unknown"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[96];
        scm_transport_normalize(cases[i].pml, cases[i].btl, cases[i].mtl, cases[i].provider, out,
                                sizeof(out));
        SC_CHECK_MSG(!strcmp(out, cases[i].want), "pml %s btl %s mtl %s provider %s: %s, want %s",
                     cases[i].pml, cases[i].btl, cases[i].mtl, cases[i].provider, out,
                     cases[i].want);
    }
}

static void test_agree(void)
{
    const char *same[] = {"shm", "shm"}, *differ[] = {"shm", "tcp"}, *one[] = {"ofi:cxi"};
    char out[64];

    scm_transport_agree(same, 2, out, sizeof(out));
    SC_CHECK_STR_EQ(out, "shm");
    scm_transport_agree(differ, 2, out, sizeof(out));
    SC_CHECK_STR_EQ(out, "mixed:shm,tcp");
    scm_transport_agree(one, 1, out, sizeof(out));
    SC_CHECK_STR_EQ(out, "ofi:cxi");
    scm_transport_agree(one, 0, out, sizeof(out));
    SC_CHECK_STR_EQ(out, "unknown");
}

static void test_fi_info(void)
{
    char out[128];

    scm_parse_fi_list("psm2:\n    version: 117.0\ncxi:\n    version: 117.0\nnet:\n"
                      "    version: 117.0\n",
                      out, sizeof(out));
    SC_CHECK_STR_EQ(out, "psm2,cxi,net");
    scm_parse_fi_usable("provider: tcp;ofi_rxm\n    fabric: 10.0.0.0/24\nprovider: tcp;ofi_rxm\n"
                        "    domain: eth0\nprovider: shm\n",
                        out, sizeof(out));
    SC_CHECK_STR_EQ(out, "tcp;ofi_rxm,shm");
}

int main(void)
{
    SC_TEST_RUN(test_lists);
    SC_TEST_RUN(test_components_from_cvars);
    SC_TEST_RUN(test_bml_lines);
    SC_TEST_RUN(test_ofi_lines);
    SC_TEST_RUN(test_normalize);
    SC_TEST_RUN(test_agree);
    SC_TEST_RUN(test_fi_info);
    return SC_TEST_RESULT();
}
