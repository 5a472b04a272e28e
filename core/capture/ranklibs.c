/* ranklibs.c: the libraries an MPI program's ranks mapped, read from its log (sc_ranklibs.h). */
#include "sc_ranklibs.h"
#include "sc_trace_protocol.h"

#include <stdbool.h>
#include <string.h>

static bool sc__listed(const sc_strv *paths, const char *path, size_t len)
{
    for (size_t i = 0; i < paths->n; i++)
        if (strlen(paths->v[i]) == len && !strncmp(paths->v[i], path, len))
            return true;
    return false;
}

void sc_ranklibs_paths(const char *log, sc_strv *paths)
{
    static const char tag[] = SC_TRACE_TAG_RANK_LIBRARY;

    for (const char *line = log; line && *line && paths->n < SC_RANKLIBS_MAX;) {
        size_t n = strcspn(line, "\n");
        const char *path = strncmp(line, tag, sizeof(tag) - 1) ? NULL : strstr(line, " path=");
        if (path && path < line + n && path[6] == '/') {
            path += 6;
            size_t len = (size_t)(line + n - path);
            while (len && path[len - 1] == '\r')
                len--;
            if (!sc__listed(paths, path, len))
                sc_strv_addf(paths, "%.*s", (int)len, path);
        }
        line += n + (line[n] == '\n');
    }
}
