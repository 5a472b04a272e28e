/*
 * test_mpi_transport_parse.c: from what the MPI library and the fabric libraries said to
 * the carriers the card's gate compares, with the fixtures of tests/fuzz/corpus/transport
 * (Open MPI 4.1.4 and UCX 1.13 captured here; Open MPI 5.0, Slingshot and UCX 1.16 built
 * from their sources' format strings, each file citing them): the BML's per-peer BTLs, the
 * OFI MTL's provider and domain in either version's wording, UCX's lanes, the reasons a
 * fabric was refused; and MPI_T variable names, the component-to-carrier table, the
 * transport settings' sources.
 *
 * usage: test_mpi_transport_parse FIXTURE_DIR
 */
#include "params.h"
#include "sc_test.h"
#include "transport_fixture.h"
#include "transport_parse.h"

#include <errno.h>
#include <unistd.h>

static const char *fixture_dir = ".";

/* The fixture's text (malloc'd) and header; NULL when it cannot be read. */
static char *load(const char *name, struct scm_fixture *f)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
    FILE *in = fopen(path, "r");
    char *buf = calloc(1, 1 << 16);
    size_t n = in && buf ? fread(buf, 1, (1 << 16) - 1, in) : 0;
    if (in)
        fclose(in);
    if (!n) {
        free(buf);
        return NULL;
    }
    scm_fixture_parse(buf, f);
    return buf;
}

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

static void test_ompi_major(void)
{
    SC_CHECK_INT_EQ(scm_ompi_major("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"), 4);
    SC_CHECK_INT_EQ(scm_ompi_major("Open MPI v5.0.3, package: Open MPI guix@host"), 5);
    SC_CHECK_INT_EQ(scm_ompi_major("MPICH Version: 4.1.2"), 0);
    SC_CHECK_INT_EQ(scm_ompi_major(NULL), 0);
}

/* What one fixture must give: the OFI MTL's provider and domain, UCX's carriers, the
   candidates, the first refusal (its subject and words) and how many there are. */
static const struct fixture_case {
    const char *file, *provider, *domain, *ucx, *candidates;
    size_t refusals;
    const char *subject, *why;
} fixtures[] = {
    {"ompi41-ob1-vader.txt", "", "", "", "shm", 0, NULL, NULL},
    {"ompi41-ob1-tcp.txt", "", "", "", "tcp", 0, NULL, NULL},
    {"ompi41-ob1-equal-exclusivity.txt", "", "", "", "tcp,shm", 0, NULL, NULL},
    {"ompi41-cm-ofi-net.txt", "net", "eth0", "", "ofi:net", 1, "ofi:tcp",
     "mtl_ofi_component.c:329: mtl:ofi: \"tcp;ofi_rxm\" in exclude list"},
    {"ompi41-ofi-include-cxi-fallback.txt", "", "", "", "shm", 7, "ofi:tcp",
     "\"tcp;ofi_rxm\" not in include list"},
    {"ucx113-ep-cfg-sysv.txt", "", "", "ucx:sm", "ucx:sm", 2, "ucx",
     "rdmacm_cm.c:928  UCX  DIAG  rdma_create_event_channel failed: No such device"},
    {"ucx113-ep-cfg-tcp.txt", "", "", "ucx:tcp", "ucx:tcp", 2, "ucx", "rdma_create_event_channel"},
    {"ompi50-cm-ofi-cxi.txt", "cxi", "cxi0", "", "ofi:cxi", 0, NULL, NULL},
    {"ompi50-cxi-fallback-tcp.txt", "cxi", "cxi0", "", "tcp", 3, "ofi:cxi",
     "libfabric:41873:1781018439::cxi:domain:cxip_cp_get():109<warn> nid001: Failed to allocate "
     "CP, ret: -22"},
    {"ompi50-ob1-sm.txt", "", "", "", "shm", 0, NULL, NULL},
    {"ucx116-cfg-inter-node.txt", "", "", "ucx:rc", "ucx:rc", 0, NULL, NULL},
    /* 5.0's boxed failure of an OFI call, as open-mpi/ompi#12038 quotes it: one refusal,
       its call, error and place in one line */
    {"ompi50-ofi-call-fail-box.txt", "", "", "", "unknown", 1, "ofi",
     "Open MPI failed an OFI Libfabric library call (fi_domain): Function not implemented (38), "
     "at mtl_ofi_component.c:999"},
    /* the Guix-HPC report's own lines: cxi's failures, then the MTL's fi_enable() */
    {"ompi50-guix-cxi-fi-enable.txt", "cxi", "cxi0", "", "unknown", 6, "ofi:cxi",
     "libfabric:1386001:1781018439::cxi:domain:cxip_cp_get():109 c1510: Failed to allocate CP"},
    /* libfabric 2's linked provider: the fabric's is the carrier, not shm */
    {"ompi50-lnx-shm-cxi.txt", "cxi", "cxi0", "", "ofi:cxi", 0, NULL, NULL},
};

static void test_fixtures(void)
{
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
        const struct fixture_case *c = &fixtures[i];
        struct scm_fixture f;
        char peer[64], self[64], prov[64], dom[64], ucx[96], cand[128], ev[1024] = "";
        struct scm_refusal r[16];
        char *buf = load(c->file, &f);
        SC_CHECK_MSG(buf, "%s: cannot read it in %s", c->file, fixture_dir);
        scm_parse_bml(f.text, f.self, f.peer, peer, sizeof(peer), self, sizeof(self), ev,
                      sizeof(ev));
        scm_parse_ofi(f.text, f.ompi, prov, sizeof(prov), dom, sizeof(dom), ev, sizeof(ev));
        scm_parse_ucx(f.text, ucx, sizeof(ucx), ev, sizeof(ev));
        scm_transport_candidates(f.pml, peer, f.mtl, strcmp(f.mtl, "ofi") ? "" : prov, ucx, cand,
                                 sizeof(cand));
        size_t n = scm_parse_refusals(f.text, f.ompi, r, 16);
        free(buf);
        SC_CHECK_MSG(!strcmp(prov, c->provider) && !strcmp(dom, c->domain),
                     "%s: provider \"%s\" domain \"%s\", want \"%s\" \"%s\"", c->file, prov, dom,
                     c->provider, c->domain);
        SC_CHECK_MSG(!strcmp(ucx, c->ucx), "%s: ucx \"%s\", want \"%s\"", c->file, ucx, c->ucx);
        SC_CHECK_MSG(!strcmp(cand, c->candidates), "%s: candidates \"%s\", want \"%s\"", c->file,
                     cand, c->candidates);
        SC_CHECK_MSG(n == c->refusals, "%s: %zu refusals, want %zu", c->file, n, c->refusals);
        if (!n)
            continue;
        SC_CHECK_MSG(!strcmp(r[0].subject, c->subject) && strstr(r[0].why, c->why),
                     "%s: first refusal %s \"%s\", want %s \"%s\"", c->file, r[0].subject, r[0].why,
                     c->subject, c->why);
        SC_CHECK_MSG(ev[0] != '\0' || !strcmp(c->candidates, "unknown"), "%s: no evidence kept",
                     c->file);
    }
}

/* The incident, in order: its reasons about cxi, with the words a reader needs. */
static void test_incident_refusals(void)
{
    struct scm_fixture f;
    struct scm_refusal r[16];
    char *buf = load("ompi50-cxi-fallback-tcp.txt", &f);

    SC_CHECK(buf);
    size_t n = scm_parse_refusals(f.text, f.ompi, r, 16);
    free(buf);
    SC_CHECK_INT_EQ(n, 3);
    SC_CHECK_STR_EQ(r[1].subject, "ofi:cxi");
    SC_CHECK_STR_CONTAINS(r[1].why, "Unable to allocate CMDQ");
    SC_CHECK_STR_EQ(r[2].subject, "ofi:cxi"); /* the MTL's own failure, after it chose cxi */
    SC_CHECK_STR_EQ(r[2].why, "mtl_ofi_component.c:1093:fi_enable failed: Invalid resource domain");
}

/* libfabric provider names to the core provider the carrier names. */
static void test_core_provider(void)
{
    static const struct {
        const char *name, *core, *links;
    } cases[] = {
        {"cxi", "cxi", ""},
        {"tcp;ofi_rxm", "tcp", ""},
        {"shm+cxi:lnx", "cxi", "shm"},
        {"shm+cxi:linkx", "cxi", "shm"},
        {"cxi+shm:lnx", "cxi", "shm"},
        {"shm+tcp;ofi_rxm:lnx", "", ""}, /* the utility part cut first: no provider's name */
        {"shm+shm:lnx", "shm", "shm"},
        {"shm+cxi", "", ""},         /* no :lnx: not a linked provider, no name */
        {"shm+cxi:ep_cfg", "", ""},  /* found by fuzz.transport: no "ofi:shm+cxi:ep_cfg" */
        {"shm+cxi:ln:lnx", "", ""},  /* found by fuzz.transport: a part "cxi:ln" is no name */
        {"shm++cxi:lnx", "", ""},    /* an empty part */
        {"+cxi:lnx", "", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char core[64], links[64];
        scm_ofi_core_provider(cases[i].name, core, sizeof(core), links, sizeof(links));
        SC_CHECK_MSG(!strcmp(core, cases[i].core) && !strcmp(links, cases[i].links),
                     "%s: core \"%s\" links \"%s\", want \"%s\" \"%s\"", cases[i].name, core, links,
                     cases[i].core, cases[i].links);
    }
}

/* "mtl:ofi:provider:" names the domain in 4.1 and the provider in 5.0: the version decides,
   and without one the wording itself does. */
static void test_version_decides(void)
{
    static const struct {
        const char *file;
        int ompi;
        const char *provider, *domain;
    } cases[] = {
        {"ompi50-cm-ofi-cxi.txt", 5, "cxi", "cxi0"}, {"ompi50-cm-ofi-cxi.txt", 0, "cxi", "cxi0"},
        {"ompi50-cm-ofi-cxi.txt", 4, "", "cxi"}, /* read as 4.1: no provider line at all */
        {"ompi41-cm-ofi-net.txt", 4, "net", "eth0"}, {"ompi41-cm-ofi-net.txt", 0, "net", "eth0"},
        {"ompi41-cm-ofi-net.txt", 5, "eth0", ""}, /* read as 5.0: the domain taken for it */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct scm_fixture f;
        char prov[64], dom[64], ev[512] = "";
        char *buf = load(cases[i].file, &f);
        SC_CHECK(buf);
        scm_parse_ofi(f.text, cases[i].ompi, prov, sizeof(prov), dom, sizeof(dom), ev, sizeof(ev));
        free(buf);
        SC_CHECK_MSG(!strcmp(prov, cases[i].provider) && !strcmp(dom, cases[i].domain),
                     "%s as %d: \"%s\" \"%s\", want \"%s\" \"%s\"", cases[i].file, cases[i].ompi,
                     prov, dom, cases[i].provider, cases[i].domain);
    }
}

static void test_candidates(void)
{
    static const struct {
        const char *pml, *btl, *mtl, *provider, *ucx, *want;
    } cases[] = {
        {"ob1", "vader", "none", "", "", "shm"},
        {"ob1", "sm", "none", "", "", "shm"},
        {"ob1", "smcuda", "none", "", "", "shm"},
        {"ob1", "vader,sm", "none", "", "", "shm"},
        {"ob1", "tcp", "none", "", "", "tcp"},
        {"ob1", "tcp,openib", "none", "", "", "tcp,openib"},
        {"ob1", "ofi", "none", "cxi", "", "ofi:unknown"}, /* the OFI BTL names no provider */
        {"ob1", "uct", "none", "", "", "ucx:unknown"},
        {"ob1", "weird", "none", "", "", "unknown"},
        {"ob1", "", "none", "", "", "unknown"}, /* ob1 but the BML said nothing */
        {"cm", "", "ofi", "cxi", "", "ofi:cxi"},
        {"cm", "", "ofi", "", "", "ofi:unknown"},
        {"cm", "", "psm2", "", "", "psm2"},
        {"cm", "", "unknown", "", "", "unknown"},
        {"ucx", "", "none", "", "ucx:sm,ucx:tcp", "ucx:sm,ucx:tcp"},
        {"ucx", "", "none", "", "", "ucx:unknown"},
        {"monitoring,ob1", "vader", "none", "", "", "shm"},
        {"ob1,cm", "vader", "ofi", "cxi", "", "unknown"},
        {"", "", "", "", "", "unknown"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[128];
        scm_transport_candidates(cases[i].pml, cases[i].btl, cases[i].mtl, cases[i].provider,
                                 cases[i].ucx, out, sizeof(out));
        SC_CHECK_MSG(!strcmp(out, cases[i].want), "pml %s btl %s mtl %s: %s, want %s", cases[i].pml,
                     cases[i].btl, cases[i].mtl, out, cases[i].want);
    }
}

/* One line each: what refuses a fabric, and what only looks like it. */
static void test_refusal_lines(void)
{
    static const struct {
        const char *line, *subject; /* subject NULL: no refusal */
    } cases[] = {
        {"[h:1] mtl_ofi_component.c:698: EFA specific fi_getinfo(): No data available", NULL},
        {"[h:1] mtl_ofi_component.c:735: fi_getinfo(): Success", NULL},
        {"[h:1] mtl_ofi_component.c:778: fi_getinfo(): No data available", "ofi"},
        {"[h:1] btl_ofi_component.c:79: btl:ofi: \"verbs;ofi_rxm\" in exclude list", "ofi:verbs"},
        {"libfabric:1:2::core:core:fi_getinfo_():1230<warn> fi_getinfo: provider ofi_rxm "
         "returned -61 (No data available)",
         NULL},
        {"libfabric:1:2::cxi:domain:cxip_domain_enable():457 h: Security Issue: unrestricted",
         NULL},
        {"libfabric:1:2::verbs:fabric:vrb_init():12<warn> Unable to open device", "ofi:verbs"},
        {"libfabric:1:2::core:core:ofi_x():3<warn> cannot load provider", "ofi"},
        {"[1.2] [h:1 :0] ucp_worker.c:1 UCX  ERROR no usable transports", "ucx"},
        {"[1.2] [h:1 :0] ucp_context.c:1849 UCX  INFO  Version 1.13.1", NULL},
        {"[h:1] PML ucx cannot be selected", "ucx"},
        {"[h:1] mca: bml: Using tcp btl for send to [[1,1],1] on node h", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct scm_refusal r[2];
        size_t n = scm_parse_refusals(cases[i].line, 4, r, 2);
        if (!cases[i].subject) {
            SC_CHECK_MSG(n == 0, "\"%s\": taken for a refusal (%s)", cases[i].line,
                         n ? r[0].subject : "");
            continue;
        }
        SC_CHECK_MSG(n == 1 && !strcmp(r[0].subject, cases[i].subject),
                     "\"%s\": %zu refusals, subject %s, want %s", cases[i].line, n,
                     n ? r[0].subject : "-", cases[i].subject);
        SC_CHECK_MSG(r[0].why[0] != '[', "\"%s\": the prefix was kept: %s", cases[i].line,
                     r[0].why);
    }
}

/* The settings and their sources: the environment's relevant ones, the files' unless the
   environment overrides them, the launcher's own left out. */
static void test_params(void)
{
    char path[] = "/tmp/sc_test_mcaXXXXXX";
    int fd = mkstemp(path);
    SC_CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# site settings\nbtl = ^uct,openib,ofi\nmtl=^ofi\n  pml = ^ucx  \n"
          "orte_tmpdir_base = /tmp\nnot a setting\n",
          f);
    fclose(f);
    char *env[] = {"OMPI_MCA_btl=tcp,self",
                   "OMPI_MCA_orte_ess_jobid=4711",
                   "OMPI_MCA_btl_tcp_if_include=lo",
                   "FI_PROVIDER=cxi",
                   "UCX_TLS=rc,sm",
                   "HOME=/root",
                   "OMPI_MCA_pmlx=1",
                   NULL};
    struct scm_params ps;
    char files[600];
    snprintf(files, sizeof(files), "/nonexistent/mca-params.conf:%s", path);
    scm_params_from_env(&ps, env);
    scm_params_add(&ps, "FI_LOG_LEVEL", "streamcard", "warn");
    scm_params_from_files(&ps, files);
    scm_params_sort(&ps);
    unlink(path);
    static const char *const want[][3] = {
        {"FI_LOG_LEVEL", "streamcard", "warn"},
        {"FI_PROVIDER", "environment", "cxi"},
        {"UCX_TLS", "environment", "rc,sm"},
        {"btl", "environment", "tcp,self"},
        {"btl_tcp_if_include", "environment", "lo"},
        {"mtl", "file:", "^ofi"},
        {"pml", "file:", "^ucx"},
    };
    SC_CHECK_INT_EQ(ps.n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        SC_CHECK_MSG(!strcmp(ps.p[i].name, want[i][0]) &&
                         !strncmp(ps.p[i].source, want[i][1], strlen(want[i][1])) &&
                         !strcmp(ps.p[i].value, want[i][2]),
                     "%zu: %s %s %s, want %s %s %s", i, ps.p[i].name, ps.p[i].source, ps.p[i].value,
                     want[i][0], want[i][1], want[i][2]);
    SC_CHECK(scm_params_mca_relevant("opal_common_ofi_provider_include"));
    SC_CHECK(!scm_params_mca_relevant("orte_ess_jobid"));
    SC_CHECK(!scm_params_mca_relevant("pmlx"));
}

int main(int argc, char **argv)
{
    if (argc > 1)
        fixture_dir = argv[1];
    SC_TEST_RUN(test_lists);
    SC_TEST_RUN(test_components_from_cvars);
    SC_TEST_RUN(test_ompi_major);
    SC_TEST_RUN(test_fixtures);
    SC_TEST_RUN(test_core_provider);
    SC_TEST_RUN(test_incident_refusals);
    SC_TEST_RUN(test_version_decides);
    SC_TEST_RUN(test_candidates);
    SC_TEST_RUN(test_refusal_lines);
    SC_TEST_RUN(test_params);
    return SC_TEST_RESULT();
}
