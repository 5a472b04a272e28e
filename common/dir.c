/* dir.c: a directory stream relative to a directory handle (see sc_dir.h). */
#include "sc_dir.h"

#include <errno.h>
#include <fcntl.h>
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
