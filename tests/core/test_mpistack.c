/*
 * test_mpistack.c: the MPI stack as compare holds it, from run.conf's lines: one identity
 * per library (rank 0's, and each rank's that differs), both UCX libraries, the settings
 * without the card's own env, libfabric's providers; build.json's mpi_stack from the log.
 */
#include "card_util.h"
#include "sc_mpistack.h"
#include "sc_test.h"

#include <stdlib.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define LIB(r, name, loaded, sha, path, version)                                                   \
    "mpi_library=rank=" r " name=" name " loaded=" loaded " sha256=" sha " path=" path            \
    " version=" version "\n"

#define MPI5 "Open MPI v5.0.3, package: Open MPI guix@build, ident: 5.0.3"
static const char run_conf[] =
    "transport=shm\n"
    "transport_rank=rank=0 host=n01 candidates=shm pml=ob1 btl=vader,self mtl=none "
    "provider=none fi_info=cxi,tcp;ofi_rxm,shm\n"
    "transport_rank=rank=1 host=n02 candidates=shm pml=ob1 btl=vader,self mtl=none "
    "provider=none fi_info=tcp;ofi_rxm,shm\n"
    LIB("0", "libmpi", "yes", SHA_A, "/usr/lib/libmpi.so.40", MPI5)
    LIB("1", "libmpi", "yes", SHA_A, "/usr/lib/libmpi.so.40", MPI5)
    LIB("0", "libfabric", "unloaded", SHA_A, "/usr/lib/libfabric.so.1", "1.22")
    LIB("1", "libfabric", "yes", SHA_B, "/usr/lib/libfabric.so.1", "1.22")
    LIB("0", "libucp", "no", "-", "-", "-")
    LIB("0", "libucs", "no", "-", "-", "-")
    LIB("1", "libucp", "yes", SHA_A, "/usr/lib/libucp.so.0", "1.13.1")
    LIB("1", "libucs", "yes", SHA_B, "/usr/lib/libucs.so.0", "-")
    "mpi_param=rank=0 name=FI_LOG_LEVEL source=streamcard value=warn\n"
    "mpi_param=rank=0 name=btl source=environment value=tcp,self\n"
    "mpi_param=rank=0 name=mtl source=file:/etc/openmpi/openmpi-mca-params.conf value=^ofi\n"
    "mpi_param=rank=1 name=btl source=environment value=ignored, rank 1\n";

static void test_libraries(void)
{
    static const struct {
        const char *names, *want;
    } cases[] = {
        {"libmpi", "Open MPI v5.0.3 sha256:" SHA_A},
        {"libfabric", "1.22 sha256:" SHA_A " | rank 1: 1.22 sha256:" SHA_B},
        {"libucp libucs", "libucp not loaded, libucs not loaded | rank 1: libucp 1.13.1 "
                          "sha256:" SHA_A ", libucs - sha256:" SHA_B},
        {"libcxi", "unavailable"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *v = sc_mpistack_library(run_conf, cases[i].names);
        SC_CHECK_MSG(v && !strcmp(v, cases[i].want), "%s: \"%s\", want \"%s\"", cases[i].names,
                     v ? v : "(null)", cases[i].want);
        free(v);
    }
}

static void test_settings_and_providers(void)
{
    const char *yaml = "version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n"
                       "  env:\n    OMPI_MCA_btl: tcp,self\n";
    sc_card *card = sc_test_card(yaml);
    SC_CHECK(card);
    char *with = sc_mpistack_settings(run_conf, NULL);
    char *without = sc_mpistack_settings(run_conf, card);
    char *none = sc_mpistack_settings("transport=shm\n", card);
    char *prov = sc_mpistack_providers(run_conf);
    SC_CHECK_STR_EQ(with, "FI_LOG_LEVEL=warn (streamcard); btl=tcp,self (environment); "
                          "mtl=^ofi (file:/etc/openmpi/openmpi-mca-params.conf)");
    SC_CHECK_STR_EQ(without, "FI_LOG_LEVEL=warn (streamcard); mtl=^ofi "
                             "(file:/etc/openmpi/openmpi-mca-params.conf)");
    SC_CHECK_STR_EQ(none, "none");
    SC_CHECK_STR_EQ(prov, "cxi,tcp;ofi_rxm,shm | rank 1: tcp;ofi_rxm,shm");
    free(with);
    free(without);
    free(none);
    free(prov);
    sc_card_free(card);
}

static void test_json_and_parse(void)
{
    const char *log = "TRACE_MPI_LIBRARY rank=0 name=libmpi loaded=yes sha256=" SHA_A
                      " path=/usr/lib/libmpi.so.40 version=Open MPI v4.1.4, package: Debian\n"
                      "TRACE_MPI_PARAM rank=0 name=btl source=environment value=tcp,self\n"
                      "TRACE_MPI_LIBRARY rank=0 name=libfabric broken\n";
    sc_tracelog t;
    sc_mpi_lib lib;

    SC_CHECK_INT_EQ(sc_tracelog_parse(log, &t), 0);
    json_object *j = sc_mpistack_json(&t);
    SC_CHECK(j != NULL);
    json_object *libs, *settings, *one, *v;
    SC_CHECK(json_object_object_get_ex(j, "libraries", &libs) &&
             json_object_object_get_ex(j, "settings", &settings));
    SC_CHECK_INT_EQ(json_object_array_length(libs), 1); /* the broken line is not a library */
    SC_CHECK_INT_EQ(json_object_array_length(settings), 1);
    one = json_object_array_get_idx(libs, 0);
    SC_CHECK(json_object_object_get_ex(one, "version", &v));
    SC_CHECK_STR_EQ(json_object_get_string(v), "Open MPI v4.1.4, package: Debian");
    json_object_put(j);
    sc_tracelog_free(&t);
    SC_CHECK_INT_EQ(sc_tracelog_parse("no MPI lines\n", &t), 0);
    SC_CHECK(sc_mpistack_json(&t) == NULL);
    sc_tracelog_free(&t);
    SC_CHECK_INT_EQ(sc_mpi_lib_parse("rank=2 name=libcxi loaded=yes sha256=" SHA_B
                                     " path=/opt/cray/lib64/libcxi.so.1 version=-",
                                     &lib),
                    0);
    SC_CHECK_INT_EQ(lib.rank, 2);
    SC_CHECK_STR_EQ(lib.path, "/opt/cray/lib64/libcxi.so.1");
    SC_CHECK_INT_EQ(sc_mpi_lib_parse("rank=2 name=libcxi", &lib), -EINVAL);
}

int main(void)
{
    SC_TEST_RUN(test_libraries);
    SC_TEST_RUN(test_settings_and_providers);
    SC_TEST_RUN(test_json_and_parse);
    return SC_TEST_RESULT();
}
