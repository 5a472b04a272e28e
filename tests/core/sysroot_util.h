/*
 * sysroot_util.h: build a fake machine tree (a "sysroot") for tests: the same files the
 * platform code reads under "/" in production, written into a temporary directory.
 */
#ifndef SC_TEST_SYSROOT_UTIL_H
#define SC_TEST_SYSROOT_UTIL_H

#include "tmpdir_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates a temporary directory; returns its malloc'd path or NULL. */
static inline char *sysroot_make(void)
{
    return sc_test_tmpdir("sc-sysroot");
}

/* Writes text to root/rel, creating parent directories. Returns 0 or -1. */
static inline int sysroot_put(const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX];
    if (!root) /* sysroot_make() failed */
        return -1;
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* Removes the tree and frees its path. */
static inline void sysroot_remove(char *root)
{
    sc_test_rmtree(root);
}

#endif
