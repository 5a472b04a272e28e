/* spank_log.c: the platform layer's logs into Slurm's log (see spank_log.h). */
#include "spank_log.h"

#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <string.h>

void sc_spank_log_lines(const char *prefix, const char *text)
{
    for (const char *line = text; line && *line;) {
        size_t n = strcspn(line, "\n");
        if (n)
            slurm_info("%s%.*s", prefix, (int)n, line);
        line += n;
        if (*line)
            line++;
    }
}
