/* dir.c: a directory stream relative to a directory handle (see sc_dir.h). */
#include "sc_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

DIR *sc_dir_openat(int dirfd, const char *path, int flags)
{
    int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

    if (!dir && fd >= 0) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return dir;
}

int sc_dir_open_in_root(int rootfd, const char *rel, int flags)
{
    struct open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};

    while (*rel == '/')
        rel++;
    long fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
    if (fd >= 0)
        return (int)fd;
    if (errno != ENOSYS)
        return -errno;
    fd = openat(rootfd, rel, flags | O_CLOEXEC);
    return fd >= 0 ? (int)fd : -errno;
}
