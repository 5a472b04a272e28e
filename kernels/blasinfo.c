/*
 * blasinfo.c: the BLAS library mapped into this process and its threading (see blasinfo.h).
 */
#include "blasinfo.h"

#include <cblas.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"

/* File names of the BLAS libraries a Debian system can map: OpenBLAS (any variant, also
 * behind libblas.so.3), BLIS, MKL, ATLAS, the reference BLAS. */
static const char *const sct__blas_prefixes[] = {
    "libopenblas", "libblas.so", "libblis", "libmkl_rt", "libtatlas", "libsatlas", NULL};

/* openblas_get_parallel(): 0 sequential, 1 pthreads, 2 OpenMP. */
static const char *sct__parallel_name(int p)
{
    switch (p) {
    case 0:
        return "sequential";
    case 1:
        return "pthread";
    case 2:
        return "openmp";
    default:
        return "unknown";
    }
}

/* The file that defines the cblas_sgemm this process calls (a library preloaded under any
   name, blas: a path, included), resolved: 0, or -ENOENT. */
static int sct__sgemm_library(char *buf, size_t len)
{
    union {
        void (*fn)(void);
        void *addr;
    } sgemm = {.fn = (void (*)(void))cblas_sgemm};
    char resolved[PATH_MAX];
    Dl_info info;

    if (!dladdr(sgemm.addr, &info) || !info.dli_fname || info.dli_fname[0] != '/' ||
        !realpath(info.dli_fname, resolved) || strlen(resolved) >= len)
        return -ENOENT;
    strcpy(buf, resolved);
    return 0;
}

void sct_blas_probe(struct sct_blas_info *b)
{
    const char *s;

    memset(b, 0, sizeof(*b));
    if (sct__sgemm_library(b->library, sizeof(b->library)) != 0 &&
        sct_loaded_library_path(sct__blas_prefixes, b->library, sizeof(b->library)) != 0)
        strcpy(b->library, "unknown");
    s = openblas_get_config();
    b->config = s ? s : "unknown";
    s = openblas_get_corename();
    b->corename = s ? s : "unknown";
    b->parallel = sct__parallel_name(openblas_get_parallel());
    b->num_threads = openblas_get_num_threads();
    b->num_procs = openblas_get_num_procs();
}

int sct_blas_print(FILE *out, const char *prefix, const struct sct_blas_info *b)
{
    int rc = fprintf(out,
                     "%sblas_library=%s\n%sblas_config=%s\n%sblas_corename=%s\n"
                     "%sblas_parallel=%s\n%sblas_num_threads=%d\n%sblas_num_procs=%d\n",
                     prefix, b->library, prefix, b->config, prefix, b->corename, prefix,
                     b->parallel, prefix, b->num_threads, prefix, b->num_procs);
    return rc < 0 ? -EIO : 0;
}

json_object *sct_blas_json(const struct sct_blas_info *b)
{
    json_object *o = json_object_new_object();

    if (!o)
        return NULL;
    json_object_object_add(o, "library", json_object_new_string(b->library));
    json_object_object_add(o, "config", json_object_new_string(b->config));
    json_object_object_add(o, "corename", json_object_new_string(b->corename));
    json_object_object_add(o, "parallel", json_object_new_string(b->parallel));
    json_object_object_add(o, "num_threads", json_object_new_int(b->num_threads));
    json_object_object_add(o, "num_procs", json_object_new_int(b->num_procs));
    return o;
}
