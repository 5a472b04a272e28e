/*
 * sc_dynlib.h: a shared library loaded when first needed, not when a streamcard process starts
 * (its relocations and pages cost every process before main(): doc/contracts/root.md). Its
 * callers keep a table of typed function pointers (core/trust/libcrypto.c for OpenSSL,
 * wrapper/history_sqlite.c for SQLite) and fill it once with sc_dynlib_load().
 */
#ifndef SC_DYNLIB_H
#define SC_DYNLIB_H

#include <stddef.h>

/*
 * dlopen's soname (RTLD_NOW | RTLD_LOCAL) from the system's library path (a soname, never a
 * path: the plugin loads as root) and stores each of the n functions names[i] in *slots[i]
 * (a function pointer's storage, as POSIX takes dlsym's answer). Returns the handle, which
 * stays loaded, or NULL with one line in why: "<need>: <dlerror>" when the library cannot be
 * loaded, "<soname> has no <name>" when a function is missing (the library is closed then).
 */
void *sc_dynlib_load(const char *soname, const char *need, const char *const *names,
                     void **const *slots, size_t n, char *why, size_t whylen);

#endif
