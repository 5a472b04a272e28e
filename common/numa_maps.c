/* numa_maps.c: anonymous memory per NUMA node from a numa_maps text (see sc_numa_maps.h). */
#include "sc_numa_maps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_numa_maps_anon(const char *text, sc_numa_maps_fn fn, void *ctx)
{
    int anon = 0;

    for (const char *line = text; line && *line;) {
        size_t n = strcspn(line, "\n");
        /* The whole line: a long file= path or many nodes must not hide pages elsewhere. */
        char *buf = strndup(line, n);
        if (!buf)
            return -ENOMEM;
        unsigned long long page_kb = 4;
        const char *ps = strstr(buf, "kernelpagesize_kB=");
        if (ps)
            page_kb = strtoull(ps + 18, NULL, 10);
        if (strstr(buf, " anon=")) {
            anon++;
            char *save = NULL;
            for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                long node;
                unsigned long long pages;
                if (sscanf(tok, "N%ld=%llu", &node, &pages) == 2)
                    fn(node, pages * page_kb * 1024, ctx);
            }
        }
        free(buf);
        line += n;
        if (*line)
            line++;
    }
    return anon;
}
