/* fsroot.c: machine files under a root directory (see sc_fsroot.h). */
#include "sc_fsroot.h"
#include "sc_dir.h"
#include "sc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sc_fsroot_open(sc_fsroot *root, const char *path)
{
    if (!path || !*path)
        path = "/";
    root->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root->fd < 0) {
        root->path = NULL;
        return -errno;
    }
    root->path = strdup(path);
    if (!root->path) {
        close(root->fd);
        root->fd = -1;
        return -ENOMEM;
    }
    return 0;
}

void sc_fsroot_close(sc_fsroot *root)
{
    if (!root)
        return;
    if (root->fd >= 0)
        close(root->fd);
    free(root->path);
    root->fd = -1;
    root->path = NULL;
}

int sc_fsroot_openat(const sc_fsroot *root, const char *rel, int flags)
{
    return sc_dir_open_in_root(root->fd, rel, flags);
}

int sc_fsroot_read(const sc_fsroot *root, const char *rel, char **out)
{
    int fd = sc_fsroot_openat(root, rel, O_RDONLY);

    if (fd < 0)
        return fd;
    int rc = sc_file_read_fd(fd, SC_FILE_MAX_READ, out, NULL);
    close(fd);
    return rc;
}

int sc_fsroot_read_linef(const sc_fsroot *root, char *buf, size_t buflen, const char *fmt, ...)
{
    char rel[512];
    char *text = NULL;
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(rel, sizeof(rel), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(rel))
        return -ENAMETOOLONG;
    int rc = sc_fsroot_read(root, rel, &text);
    if (rc < 0)
        return rc;
    sc_file_first_line(text, buf, buflen);
    free(text);
    return 0;
}
