/* runenv.c: the environment variables the runtimes read (see sc_runenv.h). */
#include "sc_runenv.h"
#include "sc_card.h"
#include "sc_trace_protocol.h"
#include "sc_workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pattern ending in '*' is a prefix; any other is an exact name. */
static const char *const sc__patterns[] = {
    "OMP_*",   "GOMP_*",   "KMP_*",          "OPENBLAS_*", "GOTO*",
    "MKL_*",   "OMPI_*",   "PMIX_MCA_*",     "FI_*",       "UCX_*",
    "I_MPI_*", "MALLOC_*", "GLIBC_TUNABLES", "LD_PRELOAD", "LD_LIBRARY_PATH",
};
#define SC__NPATTERNS (sizeof(sc__patterns) / sizeof(sc__patterns[0]))

static bool sc__is(const char *name, size_t len, const char *word)
{
    return strlen(word) == len && strncmp(name, word, len) == 0;
}

bool sc_runenv_read(const char *name, size_t len)
{
    for (size_t i = 0; i < SC__NPATTERNS; i++) {
        const char *p = sc__patterns[i];
        size_t n = strlen(p);
        if (p[n - 1] == '*' ? len >= n - 1 && strncmp(name, p, n - 1) == 0 : sc__is(name, len, p))
            return true;
    }
    return false;
}

bool sc_runenv_placement(const char *name, size_t len)
{
    return sc__is(name, len, "OMP_NUM_THREADS") || sc__is(name, len, "OMP_PLACES") ||
           sc__is(name, len, "OMP_PROC_BIND");
}

const char *sc_runenv_patterns(void)
{
    return "OMP_*, GOMP_*, KMP_*, OPENBLAS_*, GOTO*, MKL_*, OMPI_* (OMPI_MCA_*), PMIX_MCA_*, "
           "FI_*, UCX_*, I_MPI_*, MALLOC_*, GLIBC_TUNABLES, LD_PRELOAD, LD_LIBRARY_PATH";
}

int sc_runenv_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
    int c = strncmp(x, y, nx < ny ? nx : ny);

    return c ? c : (nx > ny) - (nx < ny);
}

int sc_runenv_filter(const char *block, size_t len, char **out)
{
    const char **kept = NULL;
    size_t n = 0, cap = 0, size = 0;
    FILE *mem = open_memstream(out, &size);
    int rc = 0;

    if (!mem)
        return -ENOMEM;
    for (size_t off = 0; off < len;) {
        const char *e = block + off;
        size_t elen = strnlen(e, len - off), name = strcspn(e, "=");
        off += elen + 1;
        if (name >= elen || !sc_runenv_read(e, name))
            continue;
        if (n == cap) {
            const char **grown = realloc(kept, (cap = cap ? 2 * cap : 32) * sizeof(*kept));
            if (!grown) {
                rc = -ENOMEM;
                goto out;
            }
            kept = grown;
        }
        kept[n++] = e;
    }
    if (n)
        qsort(kept, n, sizeof(*kept), sc_runenv_cmp);
    for (size_t i = 0; i < n; i++) {
        size_t elen = strnlen(kept[i], len - (size_t)(kept[i] - block));
        for (size_t j = 0; j < elen; j++) {
            unsigned char c = (unsigned char)kept[i][j];
            fputc(c < 0x20 || c == 0x7f ? '?' : c, mem);
        }
        fputc('\n', mem);
    }
out:
    free(kept);
    if (fclose(mem) != 0 && rc == 0)
        rc = -ENOMEM;
    if (rc < 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

bool sc_runenv_own_preload(const struct sc_card *card, const char *entry, size_t len)
{
    static const char name[] = "LD_PRELOAD=", probe[] = "/" SC_MPIPROBE_LIBRARY;
    size_t n = sizeof(name) - 1, p = sizeof(probe) - 1;

    if (!card || len <= n || strncmp(entry, name, n) != 0)
        return false;
    const char *value = entry + n, *colon = memchr(value, ':', len - n);
    size_t vlen = len - n, first = colon ? (size_t)(colon - value) : vlen;
    /* An MPI program's ranks: the probe first (wrapper/plan.c). */
    if (sc_workload_mpi(card) && sc_workload_foreign(card) && first >= p &&
        !memcmp(value + first - p, probe, p)) {
        if (!colon)
            return true;
        value = colon + 1;
        vlen -= first + 1;
    }
    return card->blas && card->blas[0] == '/' && vlen == strlen(card->blas) &&
           !strncmp(value, card->blas, vlen);
}
