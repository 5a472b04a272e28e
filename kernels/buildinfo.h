/*
 * buildinfo.h: the build identity every workload reports (`--build-info`), and the
 * streaming-store instruction sets the CPU offers, which the kernels dispatch on.
 *
 * The compiler and flags are baked in by kernels/CMakeLists.txt as compile definitions;
 * the OpenMP runtime is the library actually loaded into this process, not the one the
 * build system thought it linked.
 */
#ifndef SC_KERNELS_BUILDINFO_H
#define SC_KERNELS_BUILDINFO_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

/* Widest non-temporal (streaming) store the CPU and OS support, narrowest first. */
enum sct_nt_isa {
    SCT_NT_NONE = 0, /* not x86-64, or nothing usable: plain stores only */
    SCT_NT_SSE2,     /* _mm_stream_pd, 16 bytes */
    SCT_NT_AVX,      /* _mm256_stream_pd, 32 bytes */
    SCT_NT_AVX512F,  /* _mm512_stream_pd, 64 bytes: one full cache line per store */
};

/* The best streaming-store ISA of this CPU (runtime check, includes OS register support). */
enum sct_nt_isa sct_nt_isa_detect(void);

/* "none", "sse2", "avx", "avx512f". */
const char *sct_nt_isa_name(enum sct_nt_isa isa);

/*
 * Absolute, symlink-resolved path of the first shared object loaded in this process whose
 * file name starts with one of the NULL-terminated prefixes (e.g. "libopenblas.so"), found
 * with dl_iterate_phdr in load order. Returns 0, -ENOENT when none is loaded,
 * -ENAMETOOLONG when buf is too small.
 */
int sct_loaded_library_path(const char *const prefixes[], char *buf, size_t len);

/*
 * Absolute, symlink-resolved path of the OpenMP runtime (libgomp, libomp or libiomp5)
 * loaded in this process, found with dl_iterate_phdr. Returns 0, -ENOENT when no OpenMP
 * runtime is loaded, -ENAMETOOLONG when buf is too small.
 */
int sct_openmp_runtime_path(char *buf, size_t len);

/*
 * Print the build identity as key=value lines: compiler, compiler_version, compiler_path,
 * compiler_sha256, flags, source_sha256, source_files, source_git_commit, source_git_dirty
 * (what the binary was built from: cmake/SourceDigest.cmake), openmp_runtime,
 * openmp_version, nt_stores_available, element_bytes (the workload's element size). Returns
 * 0 or -EIO.
 */
int sct_build_info_print(FILE *out, size_t element_bytes);

/*
 * The threading variables in force: every environment variable whose name starts with
 * OMP_, GOMP_, KMP_, OPENBLAS_, GOTO, MKL_ or BLIS_, sorted by name. Print one line
 * "<prefix>NAME=VALUE" each, control characters in values shown as \u00NN (and " and \ escaped) so
 * that a value cannot forge a trace line; "<prefix>(none)" when there are none. Returns 0 or -EIO.
 */
int sct_thread_env_print(FILE *out, const char *prefix);

/* The same as one JSON object {"NAME": "VALUE", ...}; NULL when out of memory. */
json_object *sct_thread_env_json(void);

#endif
