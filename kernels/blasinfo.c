/*
 * blasinfo.c: the BLAS library mapped into this process and its threading (see blasinfo.h).
 */
#include "blasinfo.h"

#include <cblas.h>
#include <errno.h>
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

void sct_blas_probe(struct sct_blas_info *b)
{
    const char *s;

    memset(b, 0, sizeof(*b));
    if (sct_loaded_library_path(sct__blas_prefixes, b->library, sizeof(b->library)) != 0)
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

/* A JSON string from a library's text; such text holds no quotes, but be safe. */
static void sct__json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, out);
    fputc('"', out);
}

int sct_blas_json(FILE *out, const struct sct_blas_info *b)
{
    fputs("{\"library\": ", out);
    sct__json_str(out, b->library);
    fputs(", \"config\": ", out);
    sct__json_str(out, b->config);
    fputs(", \"corename\": ", out);
    sct__json_str(out, b->corename);
    fputs(", \"parallel\": ", out);
    sct__json_str(out, b->parallel);
    fprintf(out, ", \"num_threads\": %d, \"num_procs\": %d}", b->num_threads, b->num_procs);
    return ferror(out) ? -EIO : 0;
}
