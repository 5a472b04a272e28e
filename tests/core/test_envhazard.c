/*
 * test_envhazard.c: the inherited variables that change a workload's performance and what
 * each says on a CPU (sc_envhazard.h): the CPU's widest vectors against a BLAS's fixed
 * kernels, threads against the card's, the card's own and streamcard's placement left out,
 * the bundle's words escaped.
 */
#include "sc_envhazard.h"
#include "card_util.h"
#include "sc_test.h"

#include <stdlib.h>

static sc_card *card_with(const char *extra)
{
    return sc_test_card_with("  workload: ipsearch\n  cpu_list: 0-1\n  threads: 2\n", extra);
}

static const struct effect_case {
    const char *name, *value, *simd, *want;
} effects[] = {
    {"OPENBLAS_CORETYPE", "Haswell", "avx512f",
     "OPENBLAS_CORETYPE=Haswell: OpenBLAS's Haswell kernels (AVX2) on a CPU with AVX-512: its "
     "widest vectors unused"},
    {"OPENBLAS_CORETYPE", "SKYLAKEX", "avx2",
     "OpenBLAS's SKYLAKEX kernels (AVX-512) on a CPU without them (AVX2 at most): they fault"},
    {"OPENBLAS_CORETYPE", "Haswell", "avx2",
     "(AVX2), this CPU's widest, fixed instead of detected"},
    {"OPENBLAS_CORETYPE", "Haswell", "", "this CPU's vectors are not recorded"},
    {"OPENBLAS_CORETYPE", "NEOVERSEN1", "sve", "(ASIMD) on a CPU with SVE: its widest vectors"},
    {"OPENBLAS_CORETYPE", "Bogus", "avx2",
     "OpenBLAS's Bogus kernels instead of the ones it detects"},
    {"MKL_ENABLE_INSTRUCTIONS", "AVX2", "avx512f", "MKL's code paths (AVX2) on a CPU with AVX-512"},
    {"OPENBLAS_NUM_THREADS", "4", "avx2",
     "4 threads per BLAS call, made from each of the card's 2 threads: up to 8 threads on 2 CPUs"},
    {"OPENBLAS_NUM_THREADS", "1", "avx2", "OPENBLAS_NUM_THREADS=1: OpenBLAS's threads per call"},
    {"OMP_WAIT_POLICY", "PASSIVE", "", "idle OpenMP threads sleep between parallel regions"},
    {"OMP_THREAD_LIMIT", "1", "", "at most 1 OpenMP threads, fewer than the card's 2"},
    {"OMP_SCHEDULE", "dynamic", "", "OMP_SCHEDULE=dynamic: an OpenMP setting"},
    {"OMPI_MCA_btl", "tcp,self", "", "an Open MPI parameter"},
    {"LD_PRELOAD", "/x/libfoo.so", "", "libraries loaded before the workload's own"},
    {"PATH", "/usr/bin", "", ""},
    {"OMPI_ALLOW_RUN_AS_ROOT", "1", "", ""},
};

static void test_effects(void)
{
    sc_card *card = card_with("");
    char out[512];

    SC_CHECK(card != NULL);
    for (size_t i = 0; card && i < sizeof(effects) / sizeof(effects[0]); i++) {
        const struct effect_case *c = &effects[i];
        sc_envhazard_effect(c->name, c->value, card, c->simd, out, sizeof(out));
        SC_CHECK_MSG(*c->want ? strstr(out, c->want) != NULL : *out == '\0',
                     "%s=%s on %s: \"%s\", want \"%s\"", c->name, c->value, c->simd, out, c->want);
    }
    sc_card_free(card);
}

/* From environ_at_ready.txt's lines: the card's own and the placement are not listed. */
static void test_lines(void)
{
    sc_card *card = card_with("  env:\n    OMP_WAIT_POLICY: ACTIVE\n");
    size_t n = 0;
    char *lines = card ? sc_envhazard_lines("LD_LIBRARY_PATH=/opt/lib\nOMP_NUM_THREADS=2\n"
                                            "OMP_PROC_BIND=close\nOMP_WAIT_POLICY=ACTIVE\n"
                                            "OPENBLAS_CORETYPE=Haswell\x1b[2J\nPATH=/bin\n",
                                            card, "avx512f", &n)
                       : NULL;

    SC_CHECK(lines != NULL);
    if (lines) {
        SC_CHECK_INT_EQ((long)n, 2);
        SC_CHECK_STR_CONTAINS(lines, "LD_LIBRARY_PATH=/opt/lib: which BLAS");
        SC_CHECK_STR_CONTAINS(lines, "OPENBLAS_CORETYPE=Haswell\\x1b[2J: OpenBLAS's");
        SC_CHECK(!strstr(lines, "OMP_WAIT_POLICY") && !strstr(lines, "OMP_PROC_BIND") &&
                 !strstr(lines, "OMP_NUM_THREADS") && !strstr(lines, "PATH=/bin"));
    }
    free(lines);
    sc_card_free(card);
}

/* The BLAS's own choice of kernels narrower than the CPU is said once, with the core type
   that would use the CPU; not when OPENBLAS_CORETYPE told it, nor when as wide. */
static void test_blas_core(void)
{
    static const struct {
        const char *env, *core, *simd, *want;
    } cases[] = {
        {"PATH=/bin\n", "Prescott", "avx512f",
         "blas_core=Prescott: OpenBLAS's Prescott kernels (SSE3) on a CPU with AVX-512: its "
         "widest vectors unused; chosen by the library itself (it does not know this CPU; "
         "OPENBLAS_CORETYPE=SkylakeX would use them)"},
        {"", "HASWELL", "avx512f", "OPENBLAS_CORETYPE=SkylakeX would use them"},
        {"", "Prescott", "avx2", "(SSE3) on a CPU with AVX2"},
        {"OPENBLAS_CORETYPE=Prescott\n", "Prescott", "avx512f", ""},
        {"", "SkylakeX", "avx512f", ""},
        {"", "Zen", "avx2", ""},
        {"", "unavailable", "avx512f", ""},
        {"", "n/a", "avx512f", ""},
        {"", "Prescott", "", ""},
        {"", "NEOVERSEN1", "sve", "(ASIMD) on a CPU with SVE"},
        {"", "Prescott", "sve", ""},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = 1;
        char *lines = sc_envhazard_with_blas(strdup("X=1: a line\n"), &n, cases[i].env,
                                             cases[i].core, cases[i].simd);
        SC_CHECK(lines != NULL);
        if (!lines)
            continue;
        SC_CHECK(!strncmp(lines, "X=1: a line\n", 12));
        if (*cases[i].want) {
            SC_CHECK_MSG(n == 2 && strstr(lines, cases[i].want), "%s on %s: \"%s\", want \"%s\"",
                         cases[i].core, cases[i].simd, lines, cases[i].want);
        } else {
            SC_CHECK_MSG(n == 1 && !strcmp(lines, "X=1: a line\n"), "%s on %s: \"%s\"",
                         cases[i].core, cases[i].simd, lines);
        }
        free(lines);
    }
}

int main(void)
{
    SC_TEST_RUN(test_effects);
    SC_TEST_RUN(test_lines);
    SC_TEST_RUN(test_blas_core);
    return SC_TEST_RESULT();
}
