/*
 * tmpdir_util.h: a scratch directory under /tmp for a unit test, and its removal (tests
 * only create small trees there).
 */
#ifndef SC_TEST_TMPDIR_UTIL_H
#define SC_TEST_TMPDIR_UTIL_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Creates /tmp/<prefix>-XXXXXX (prefix starting "sc-"); its malloc'd path, or NULL. */
static inline char *sc_test_tmpdir(const char *prefix)
{
    char tmpl[PATH_MAX];

    snprintf(tmpl, sizeof(tmpl), "/tmp/%s-XXXXXX", prefix);
    return mkdtemp(tmpl) ? strdup(tmpl) : NULL;
}

/* Removes a tree of sc_test_tmpdir() (nothing outside /tmp/sc-) and frees its path. */
static inline void sc_test_rmtree(char *dir)
{
    char cmd[PATH_MAX + 16];

    if (dir && strncmp(dir, "/tmp/sc-", 8) == 0 && !strchr(dir, '\'')) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "warning: could not remove %s\n", dir);
    }
    free(dir);
}

#endif
