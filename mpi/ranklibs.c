/* ranklibs.c: the shared objects each rank mapped, printed by rank 0 (ranklibs.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "ranklibs.h"
#include "sc_trace_protocol.h"
#include "textgather.h"

#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCM__LIBS_TEXT_MAX (64 * 1024) /* one rank's list, at most (some 600 paths) */

/* One rank's list as it is made: "<host>\t<path>\n" per object, each once. */
struct scm__libs {
    char text[SCM__LIBS_TEXT_MAX];
    size_t len;
    char host[64];
};

/* A path is kept whole: absolute, without a byte that would end or split its line. */
static bool scm__path_ok(const char *path)
{
    if (!path || path[0] != '/')
        return false; /* the executable (""), the vDSO (no directory) */
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < ' ')
            return false;
    return true;
}

static int scm__one(struct dl_phdr_info *info, size_t size, void *ctx)
{
    struct scm__libs *l = ctx;
    char line[4200];

    (void)size;
    if (!scm__path_ok(info->dlpi_name))
        return 0;
    int n = snprintf(line, sizeof(line), "%s\t%s\n", l->host, info->dlpi_name);
    if (n < 0 || (size_t)n >= sizeof(line) || strstr(l->text, line))
        return 0;
    if (l->len + (size_t)n + 1 > sizeof(l->text))
        return 1; /* full: the rest is left out */
    memcpy(l->text + l->len, line, (size_t)n + 1);
    l->len += (size_t)n;
    return 0;
}

static int scm__cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Rank 0: one TRACE_RANK_LIBRARY line per distinct "<host>\t<path>" line of all (sorted),
   with how many ranks listed it (each rank lists a path once). */
static void scm__print(char *all, FILE *out)
{
    size_t n = 0, k = 0;
    char **lines;

    for (const char *p = all; (p = strchr(p, '\n')); p++)
        n++;
    if (!n || !(lines = calloc(n, sizeof(*lines))))
        return;
    for (char *p = all, *end; k < n && (end = strchr(p, '\n')); p = end + 1) {
        *end = '\0';
        lines[k++] = p;
    }
    qsort(lines, k, sizeof(*lines), scm__cmp);
    for (size_t i = 0, j; i < k; i = j) {
        for (j = i + 1; j < k && !strcmp(lines[j], lines[i]);)
            j++;
        char *tab = strchr(lines[i], '\t');
        if (!tab)
            continue;
        *tab = '\0';
        fprintf(out, SC_TRACE_RANK_LIBRARY("%s", "%zu", "%s") "\n", lines[i], j - i, tab + 1);
    }
    free(lines);
}

void scm_ranklibs_report(MPI_Comm comm, int rank, FILE *out)
{
    struct scm__libs *l = calloc(1, sizeof(*l));
    char *all;

    if (l) {
        if (gethostname(l->host, sizeof(l->host) - 1) != 0)
            snprintf(l->host, sizeof(l->host), "unknown");
        dl_iterate_phdr(scm__one, l);
    }
    all = scm_text_gather(comm, rank, l ? l->text : NULL);
    if (rank == 0 && all) {
        scm__print(all, out);
        fflush(out);
    }
    free(all);
    free(l);
}
