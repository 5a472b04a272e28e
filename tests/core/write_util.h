/*
 * write_util.h: a file of a core unit test written whole (tests of modules that compare
 * files by identity: the hash and answer caches).
 */
#ifndef SC_TEST_WRITE_UTIL_H
#define SC_TEST_WRITE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sc_file.h"

/* Writes text as the whole of path (created 0644, or rewritten in place: same inode).
   0 or -errno. */
static inline int sc_test_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0)
        return -errno;
    int rc = sc_file_write_all(fd, text, strlen(text));
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

#endif
