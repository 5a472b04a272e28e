/*
 * strv.c: a growing array of strings (sc_strv.h).
 */
#include "sc_strv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void sc__strv_push(sc_strv *s, char *str)
{
    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        char **grown = realloc(s->v, cap * sizeof(*grown));
        if (!grown) {
            s->failed = 1;
            free(str);
            return;
        }
        s->v = grown;
        s->cap = cap;
    }
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

void sc_strv_addf(sc_strv *s, const char *fmt, ...)
{
    va_list ap;
    char *str = NULL;

    va_start(ap, fmt);
    if (vasprintf(&str, fmt, ap) < 0) {
        s->failed = 1;
        str = NULL;
    }
    va_end(ap);
    if (str)
        sc__strv_push(s, str);
}

void sc_strv_opt(sc_strv *s, const char *flag, const char *fmt, ...)
{
    char *value = NULL;
    va_list ap;

    va_start(ap, fmt);
    int n = vasprintf(&value, fmt, ap);
    va_end(ap);
    if (n < 0) {
        s->failed = 1;
        return;
    }
    sc_strv_addf(s, "%s", flag);
    sc__strv_push(s, value);
}

void sc_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}
