/*
 * openat2_util.h: whether openat2() exists here. A test of what RESOLVE_IN_ROOT keeps inside
 * a fake sysroot (absolute symlinks, links climbing out) cannot run without it: kernels
 * before 5.6, and Debian 12's qemu-user (7.2), which does not emulate the call (the arm64
 * tests run under it). The code falls back to openat() there, which follows such links.
 */
#ifndef SC_TEST_OPENAT2_UTIL_H
#define SC_TEST_OPENAT2_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* True when openat2() answers; false (after a "skip" line naming test) when it is missing. */
static inline bool sc_test_have_openat2(const char *test)
{
    struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                           .resolve = RESOLVE_IN_ROOT};
    long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

    if (fd >= 0) {
        close((int)fd);
        return true;
    }
    if (errno != ENOSYS)
        return true; /* it exists; the test will say what went wrong */
    fprintf(stderr, "skip %s: no openat2() here (a kernel before 5.6, or qemu-user 7.2): "
                    "RESOLVE_IN_ROOT cannot be tested\n", test);
    return false;
}

#endif
