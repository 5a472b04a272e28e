/*
 * blasinfo.h: which BLAS library this process actually runs and how it threads, for
 * workloads that call BLAS (ipsearch). Linked into those workloads only: the shared
 * sc_kernel_support library does not depend on a BLAS.
 *
 * Debian installs OpenBLAS in variants behind the alternatives system (libopenblas0-pthread,
 * -openmp, -serial), so the library a binary was linked against says little: the path is
 * the object actually mapped into this process (dl_iterate_phdr), and the threading model
 * is what that library reports (openblas_get_parallel). The variant matters: a pthread
 * OpenBLAS keeps its own worker threads, which compete with OpenMP threads that spin.
 */
#ifndef SC_KERNELS_BLASINFO_H
#define SC_KERNELS_BLASINFO_H

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>

struct sct_blas_info {
    char library[PATH_MAX]; /* absolute path of the BLAS object mapped, or "unknown" */
    const char *config;     /* openblas_get_config(): version, build options, core */
    const char *corename;   /* openblas_get_corename(): the kernel set chosen at run time */
    const char *parallel;   /* "sequential", "pthread", "openmp" or "unknown" */
    int num_threads;        /* openblas_get_num_threads() at the time of sct_blas_probe */
    int num_procs;          /* openblas_get_num_procs() */
};

/* Fill b from the loaded library. Never fails: unknown fields say "unknown". */
void sct_blas_probe(struct sct_blas_info *b);

/* key=value lines: blas_library, blas_config, blas_corename, blas_parallel,
 * blas_num_threads, blas_num_procs, each after prefix. Returns 0 or -EIO. */
int sct_blas_print(FILE *out, const char *prefix, const struct sct_blas_info *b);

/* The same as one JSON object with keys library, config, corename, parallel, num_threads,
 * num_procs; NULL when out of memory. */
json_object *sct_blas_json(const struct sct_blas_info *b);

#endif
