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

/* Room for one more line. */
static int sc__diag_grow(sc_diag *d)
{
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        char **grown = realloc(d->lines, cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        d->lines = grown;
        d->cap = cap;
    }
    return 0;
}

int sc_diag_addf(sc_diag *d, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;

    if (sc__diag_grow(d) < 0)
        return -ENOMEM;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -ENOMEM;
    /* A line may carry user text (a card value, a bundle's file name): escaped once here, so
       every reader (a terminal, the slurmd log, a report) gets one safe line. */
    if (!sc_text_is_safe(line, (size_t)n) || (size_t)n > SC_DIAG_MAX_LINE) {
        char *safe = sc_text_escape_dup(line, SC_DIAG_MAX_LINE);
        free(line);
        if (!safe)
            return -ENOMEM;
        line = safe;
    }
    d->lines[d->count++] = line;
    return 0;
}

/* Appends a line that is already safe (taken from another list) as it is. */
static int sc__diag_add_copy(sc_diag *d, const char *line)
{
    if (sc__diag_grow(d) < 0)
        return -ENOMEM;
    if (!(d->lines[d->count] = strdup(line)))
        return -ENOMEM;
    d->count++;
    return 0;
}

int sc_diag_merge(sc_diag *d, const sc_diag *more)
{
    for (size_t i = 0; i < more->count; i++) {
        bool seen = false;
        for (size_t j = 0; j < d->count && !seen; j++)
            seen = strcmp(d->lines[j], more->lines[i]) == 0;
        if (!seen && sc__diag_add_copy(d, more->lines[i]) < 0)
            return -ENOMEM;
    }
    return 0;
}

long sc_diag_take(sc_diag *d, sc_diag *from, size_t max)
{
    size_t n = from->count < max ? from->count : max;

    if (d->count + n > d->cap) {
        char **grown = realloc(d->lines, (d->count + n) * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        d->lines = grown;
        d->cap = d->count + n;
    }
    memcpy(d->lines + d->count, from->lines, n * sizeof(*from->lines));
    d->count += n;
    for (size_t i = n; i < from->count; i++)
        free(from->lines[i]);
    long dropped = (long)(from->count - n);
    free(from->lines);
    sc_diag_init(from);
    return dropped;
}

void sc_diag_print(const sc_diag *d, const char *prefix, void *stream)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf((FILE *)stream, "%s%s\n", prefix, d->lines[i]);
}
