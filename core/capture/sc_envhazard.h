/*
 * sc_envhazard.h: inherited environment variables that change a workload's performance, and
 * what each does on this CPU (doc/contracts/environment.md, "Environment hazards"): one row per
 * variable or family of the table in envhazard.c, the most specific first. A run lists the
 * ones present in its summary, report and compare show them, so that a login shell's
 * OPENBLAS_CORETYPE=Haswell on an AVX-512 machine is said, not only recorded.
 */
#ifndef SC_ENVHAZARD_H
#define SC_ENVHAZARD_H

#include "sc_card.h"

#include <stddef.h>

/* The widest vector instructions of a CPU as platform/<name>.txt's cpu.simd records them:
   "avx512f", "avx2", "avx", "sse4_2", ... (x86), "sve2", "sve", "asimd" (arm64). */
#define SC_ENVHAZARD_SIMD_KEY "cpu.simd"

/*
 * The lines "NAME=VALUE: what it does here" of every variable of env (NAME=VALUE lines, as
 * environ_at_ready.txt holds them) that the table names, except the ones the card sets (its
 * env: deliberate) and the placement streamcard sets from the card; simd is the CPU's widest
 * vector instructions (cpu.simd; NULL or "" when unknown). A malloc'd text of lines (""
 * when none), or NULL on ENOMEM; *n (may be NULL) gets how many.
 */
char *sc_envhazard_lines(const char *env, const sc_card *card, const char *simd, size_t *n);

/*
 * lines (sc_envhazard_lines()'s text, or NULL) with one more line when the BLAS the run
 * loaded chose, by itself, kernels narrower than this CPU's widest vectors: corename is its
 * core type (build.json blas_corename; "unavailable" or NULL when none), env the workload's
 * environment (a set OPENBLAS_CORETYPE told the library, and its own line says so). OpenBLAS
 * 0.3.21 picks its SSE3 Prescott kernels on CPUs newer than it (an Emerald Rapids with
 * AVX-512): "blas_core=Prescott: OpenBLAS's Prescott kernels (SSE3) on a CPU with AVX-512:
 * its widest vectors unused; chosen by the library itself (...)". Returns the text (lines
 * grown, or a new one) with *n counted, or NULL on ENOMEM (lines freed).
 */
char *sc_envhazard_with_blas(char *lines, size_t *n, const char *env, const char *corename,
                             const char *simd);

struct sc_bundle;
/*
 * The lines of a bundle's workload as it started: its first run's environ_at_ready.txt and
 * platform/before.txt's cpu.simd (sc_envhazard_lines()), and build.json's BLAS core type
 * (sc_envhazard_with_blas()). NULL when the bundle has no environ_at_ready.txt or on ENOMEM;
 * *n how many.
 */
char *sc_envhazard_of_bundle(const struct sc_bundle *b, const sc_card *card, size_t *n);

/* The effect of one variable alone, as the line says it, into out ("" when the table names
   no such variable). */
void sc_envhazard_effect(const char *name, const char *value, const sc_card *card, const char *simd,
                         char *out, size_t len);

/* The table's rows for the document's test: pattern and what it changes, i = 0, 1, ...;
   NULL past the last. */
const char *sc_envhazard_row(size_t i, const char **changes);

#endif
