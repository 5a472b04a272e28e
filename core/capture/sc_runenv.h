/*
 * sc_runenv.h: the environment variables the workloads' runtimes read (doc/contracts/analysis.md,
 * the controlled variables): OpenMP (OMP_*, GOMP_*, KMP_*), the BLAS (OPENBLAS_*, GOTO*,
 * MKL_*), MPI and its fabrics (OMPI_*, PMIX_MCA_*, FI_*, UCX_*, I_MPI_*), the C library's
 * allocator and tunables (MALLOC_*, GLIBC_TUNABLES) and the dynamic loader (LD_PRELOAD,
 * LD_LIBRARY_PATH). Whether a card sets them or the shell passes them on, they change
 * results, so a comparison holds them constant; nothing else of the environment is kept
 * (it may hold secrets).
 */
#ifndef SC_RUNENV_H
#define SC_RUNENV_H

#include <stdbool.h>
#include <stddef.h>

/* True when the variable called name (len bytes) is one the runtimes read. */
bool sc_runenv_read(const char *name, size_t len);

/*
 * True for the variables streamcard itself sets from the card's threads and cpu_list
 * (OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND): they follow those keys, which are
 * controlled variables of their own.
 */
bool sc_runenv_placement(const char *name, size_t len);

struct sc_card;
/*
 * True for the entry ("NAME=value", len bytes) streamcard sets itself as the preload of the
 * card's run: LD_PRELOAD=<the card's blas: path>, an MPI program's transport probe
 * (.../libstreamcard-mpiprobe.so, doc/contracts/layout.md "MPI programs under exec"), or the
 * probe then the blas path, and nothing else (an inherited preload after them keeps the entry
 * the environment's). The blas variable records that library, the workload the probe.
 */
bool sc_runenv_own_preload(const struct sc_card *card, const char *entry, size_t len);

/* The patterns of sc_runenv_read(), comma-separated, for help texts: "OMP_*, GOMP_*, ...". */
const char *sc_runenv_patterns(void);

/* qsort's comparison of two "NAME=VALUE" strings (char *) by name. */
int sc_runenv_cmp(const void *a, const void *b);

/*
 * From a process's environment block (/proc/<pid>/environ: NAME=VALUE entries, each ended
 * by a NUL), the entries the runtimes read, one "NAME=VALUE" line each, sorted by name;
 * control characters in a value become '?', so an entry is one line. malloc'd text in
 * *out (empty when none). 0 or -ENOMEM.
 */
int sc_runenv_filter(const char *block, size_t len, char **out);

#endif
