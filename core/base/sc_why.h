/*
 * sc_why.h: fill a caller's one-line reason buffer. Every function of the platform layer
 * (core's readers, spank/'s writers and facade) and of the core's key handling that can refuse
 * takes (char *why, size_t whylen); NULL means "not wanted".
 */
#ifndef SC_WHY_H
#define SC_WHY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline void sc__why(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline void sc__why(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    if (!why || whylen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

#endif
