/*
 * buildinfo.c: what built this binary and what it runs on, for --build-info and build.json.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "buildinfo.h"

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Baked in by kernels/CMakeLists.txt; the fallbacks keep a hand build honest. */
#ifndef SC_BUILD_COMPILER_ID
#define SC_BUILD_COMPILER_ID "unknown"
#endif
#ifndef SC_BUILD_COMPILER_VERSION
#define SC_BUILD_COMPILER_VERSION "unknown"
#endif
#ifndef SC_BUILD_FLAGS
#define SC_BUILD_FLAGS "unknown"
#endif

/* What the binary was built from (sources, tree, compiler): generated per workload at build
   time by cmake/SourceDigest.cmake; weak, so a program without them (a unit test) links and
   reports "unknown". */
extern const char sct_build_source_sha256[] __attribute__((weak));
extern const char sct_build_source_files[] __attribute__((weak));
extern const char sct_build_source_git_commit[] __attribute__((weak));
extern const char sct_build_source_git_dirty[] __attribute__((weak));
extern const char sct_build_compiler_path[] __attribute__((weak));
extern const char sct_build_compiler_sha256[] __attribute__((weak));

static const char *sct__known(const char *value)
{
    return value ? value : "unknown";
}

enum sct_nt_isa sct_nt_isa_detect(void)
{
#if defined(__x86_64__)
    /* libgcc's checks include the OS enabling the register state (XCR0), so a CPU with
     * AVX-512 under a kernel or hypervisor that hides it reports the next narrower ISA. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return SCT_NT_AVX512F;
    if (__builtin_cpu_supports("avx"))
        return SCT_NT_AVX;
    return SCT_NT_SSE2; /* part of the x86-64 baseline */
#else
    return SCT_NT_NONE;
#endif
}

const char *sct_nt_isa_name(enum sct_nt_isa isa)
{
    switch (isa) {
    case SCT_NT_SSE2:
        return "sse2";
    case SCT_NT_AVX:
        return "avx";
    case SCT_NT_AVX512F:
        return "avx512f";
    case SCT_NT_NONE:
        break;
    }
    return "none";
}

/* The file names of the OpenMP runtimes we know: GNU, LLVM, Intel. */
static const char *const sct__openmp_prefixes[] = {"libgomp.so", "libomp.so", "libiomp5.so", NULL};

/* True when the file name of path starts with one of the NULL-terminated prefixes. */
static int sct__name_matches(const char *path, const char *const prefixes[])
{
    const char *base = strrchr(path, '/');

    base = base ? base + 1 : path;
    for (size_t i = 0; prefixes[i]; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

struct sct__lib_search {
    const char *const *prefixes;
    char path[PATH_MAX]; /* the loader's name of the first matching object */
    int found;
};

static int sct__phdr_visit(struct dl_phdr_info *info, size_t size, void *data)
{
    struct sct__lib_search *s = data;

    (void)size;
    if (!info->dlpi_name || !sct__name_matches(info->dlpi_name, s->prefixes))
        return 0;
    if (strlen(info->dlpi_name) >= sizeof(s->path))
        return 0;
    strcpy(s->path, info->dlpi_name);
    s->found = 1;
    return 1; /* stop at the first: the one the loader binds symbols to */
}

int sct_loaded_library_path(const char *const prefixes[], char *buf, size_t len)
{
    struct sct__lib_search s = {.prefixes = prefixes, .found = 0};
    char resolved[PATH_MAX];
    const char *path;

    dl_iterate_phdr(sct__phdr_visit, &s);
    if (!s.found)
        return -ENOENT;
    /* The loader's name may be a symlink (libgomp.so.1); report the file actually mapped. */
    path = realpath(s.path, resolved) ? resolved : s.path;
    if (strlen(path) >= len)
        return -ENAMETOOLONG;
    strcpy(buf, path);
    return 0;
}

int sct_openmp_runtime_path(char *buf, size_t len)
{
    return sct_loaded_library_path(sct__openmp_prefixes, buf, len);
}

int sct_build_info_print(FILE *out, size_t element_bytes)
{
    char omp_path[PATH_MAX];
    long omp_version = 0;

#ifdef _OPENMP
    omp_version = _OPENMP;
#endif
    if (sct_openmp_runtime_path(omp_path, sizeof(omp_path)) != 0)
        strcpy(omp_path, "none");
    if (fprintf(out,
                "compiler=%s\ncompiler_version=%s\ncompiler_path=%s\ncompiler_sha256=%s\n"
                "flags=%s\nsource_sha256=%s\nsource_files=%s\nsource_git_commit=%s\n"
                "source_git_dirty=%s\nopenmp_runtime=%s\nopenmp_version=%ld\n"
                "nt_stores_available=%s\nelement_bytes=%zu\n",
                SC_BUILD_COMPILER_ID, SC_BUILD_COMPILER_VERSION,
                sct__known(sct_build_compiler_path), sct__known(sct_build_compiler_sha256),
                SC_BUILD_FLAGS, sct__known(sct_build_source_sha256),
                sct__known(sct_build_source_files), sct__known(sct_build_source_git_commit),
                sct__known(sct_build_source_git_dirty), omp_path, omp_version,
                sct_nt_isa_name(sct_nt_isa_detect()), element_bytes) < 0)
        return -EIO;
    return fflush(out) == 0 ? 0 : -EIO;
}

/* The prefixes of the variables that steer OpenMP runtimes and BLAS libraries. */
static const char *const sct__thread_env_prefixes[] = {"OMP_", "GOMP_", "KMP_",  "OPENBLAS_",
                                                       "GOTO", "MKL_",  "BLIS_", NULL};

static int sct__env_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The matching environment entries ("NAME=VALUE"), sorted; NULL-terminated, or NULL. */
static const char **sct__thread_env(void)
{
    size_t n = 0, total = 0;
    const char **v;

    while (environ && environ[total])
        total++;
    if (!(v = calloc(total + 1, sizeof(*v))))
        return NULL;
    for (size_t i = 0; i < total; i++)
        for (size_t p = 0; sct__thread_env_prefixes[p]; p++)
            if (strncmp(environ[i], sct__thread_env_prefixes[p],
                        strlen(sct__thread_env_prefixes[p])) == 0) {
                v[n++] = environ[i];
                break;
            }
    qsort(v, n, sizeof(*v), sct__env_cmp);
    return v;
}

/* Write s with control characters, quotes and backslashes escaped (JSON-compatible). */
static void sct__put_escaped(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
}

int sct_thread_env_print(FILE *out, const char *prefix)
{
    const char **v = sct__thread_env();

    if (!v)
        return -ENOMEM;
    if (!v[0])
        fprintf(out, "%s(none)\n", prefix);
    for (size_t i = 0; v[i]; i++) {
        fputs(prefix, out);
        sct__put_escaped(out, v[i], strlen(v[i]));
        fputc('\n', out);
    }
    free(v);
    return ferror(out) ? -EIO : 0;
}

json_object *sct_thread_env_json(void)
{
    const char **v = sct__thread_env();
    json_object *o = v ? json_object_new_object() : NULL;

    for (size_t i = 0; o && v[i]; i++) {
        size_t name = strcspn(v[i], "=");
        char *key = strndup(v[i], name);
        if (!key || json_object_object_add(o, key, json_object_new_string(v[i] + name + 1)) < 0) {
            json_object_put(o);
            o = NULL;
        }
        free(key);
    }
    free(v);
    return o;
}
