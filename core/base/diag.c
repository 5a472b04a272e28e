/* diag.c: the list of one-line problems (see sc_diag.h). */
#include "sc_diag.h"
#include "sc_text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_diag_init(sc_diag *d)
{
    d->lines = NULL;
    d->count = 0;
    d->cap = 0;
    d->more = 0;
}

void sc_diag_free(sc_diag *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        free(d->lines[i]);
    free(d->lines);
    sc_diag_init(d);
}

int sc_diag_addf(sc_diag *d, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;

    if (d->count >= SC_DIAG_MAX_LINES) {
        d->more++;
        return 0;
    }
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        char **grown = realloc(d->lines, cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        d->lines = grown;
        d->cap = cap;
    }
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -ENOMEM;
    /* A line may carry user text (a card value, a bundle's file name): escaped once here, so
       every reader (a terminal, the slurmd log, a report, the card check's record) gets one
       safe line. A printable line (one escaped already, taken from another list) is kept as
       it is, so nothing is escaped twice. */
    if (sc_text_is_printable(line, (size_t)n)) {
        sc_text_truncate(line, SC_DIAG_MAX_LINE);
    } else {
        char *safe = sc_text_escape_dup(line, SC_DIAG_MAX_LINE);
        free(line);
        if (!safe)
            return -ENOMEM;
        line = safe;
    }
    d->lines[d->count++] = line;
    return 0;
}

int sc_diag_merge(sc_diag *d, const sc_diag *more)
{
    /* Both lists are bounded, so this is at most SC_DIAG_MAX_LINES^2 comparisons. */
    for (size_t i = 0; i < more->count; i++) {
        bool seen = false;
        for (size_t j = 0; j < d->count && !seen; j++)
            seen = strcmp(d->lines[j], more->lines[i]) == 0;
        if (!seen && sc_diag_addf(d, "%s", more->lines[i]) < 0)
            return -ENOMEM;
    }
    /* What more dropped may repeat what d holds (a problem every run of a sweep has): it
       adds at least as many problems as the larger of the two counts. */
    if (more->more > d->more)
        d->more = more->more;
    return 0;
}

int sc_diag_append(sc_diag *d, const sc_diag *more)
{
    for (size_t i = 0; i < more->count; i++)
        if (sc_diag_addf(d, "%s", more->lines[i]) < 0)
            return -ENOMEM;
    d->more += more->more;
    return 0;
}

void sc_diag_print(const sc_diag *d, const char *prefix, void *stream)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf((FILE *)stream, "%s%s\n", prefix, d->lines[i]);
    if (d->more)
        fprintf((FILE *)stream, "%s... and %zu more problem%s\n", prefix, d->more,
                d->more == 1 ? "" : "s");
}
