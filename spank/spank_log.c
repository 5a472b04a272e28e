/* spank_log.c: the plugins' messages, escaped and bounded (see spank_log.h). */
#include "spank_log.h"
#include "sc_text.h"

#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Formats and logs one message, escaped unless it is printable as it is (a line escaped
   already, such as a problem of the card check's record, is not escaped twice). */
static void sc__log(bool error, const char *fmt, va_list ap)
{
    char raw[SC_SPANK_LOG_MAX], line[SC_SPANK_LOG_MAX];
    const char *text = line;

    vsnprintf(raw, sizeof(raw), fmt, ap);
    if (sc_text_is_printable(raw, strlen(raw)))
        text = raw;
    else
        sc_text_escape(line, sizeof(line), raw, strlen(raw));
    if (error)
        slurm_error("%s", text);
    else
        slurm_info("%s", text);
}

void sc_spank_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sc__log(true, fmt, ap);
    va_end(ap);
}

void sc_spank_info(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sc__log(false, fmt, ap);
    va_end(ap);
}

void sc_spank_log_lines(const char *prefix, const char *text)
{
    for (const char *line = text; line && *line;) {
        size_t n = strcspn(line, "\n");
        if (n)
            sc_spank_info("%s%.*s", prefix, (int)n, line);
        line += n;
        if (*line)
            line++;
    }
}
