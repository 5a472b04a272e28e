/*
 * sc_strv.h: a growing NULL-terminated array of malloc'd strings: a command line or an
 * environment being built (the plan's argv and envp; a workload module's options). A
 * failed allocation is remembered in failed and later additions are dropped.
 */
#ifndef SC_STRV_H
#define SC_STRV_H

#include <stddef.h>

typedef struct sc_strv {
    char **v; /* NULL-terminated; NULL while empty */
    size_t n, cap;
    int failed;
} sc_strv;

/* Appends one formatted string. */
void sc_strv_addf(sc_strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends "--flag" and its formatted value: one option of a workload's command line. */
void sc_strv_opt(sc_strv *s, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Frees a NULL-terminated array of strings (s->v, or an array taken from it); NULL is fine. */
void sc_strv_free(char **v);

#endif
