/* cachedir.c: the per-user cache directory the caches share (see sc_cachedir.h). */
#include "sc_cachedir.h"
#include "sc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A file or directory of the cache that we may trust: ours, and nobody else may write it. */
static bool sc__ours(int fd, mode_t type, size_t max)
{
    struct stat st;

    return fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == type && st.st_uid == geteuid() &&
           !(st.st_mode & (S_IWGRP | S_IWOTH)) && (type != S_IFREG || st.st_size <= (off_t)max);
}

/* mkdir -p for the cache directory, 0700 for what it creates. */
static void sc__make_dirs(const char *dir)
{
    char buf[PATH_MAX];

    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
        return;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        (void)!mkdir(buf, 0700);
        *p = '/';
    }
    (void)!mkdir(buf, 0700);
}

int sc_cachedir_open(const char *dir, bool create)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0 && errno == ENOENT && create) {
        sc__make_dirs(dir);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0)
        return -errno;
    if (!sc__ours(fd, S_IFDIR, 0)) {
        close(fd);
        return -EPERM;
    }
    return fd;
}

char *sc_cachedir_read(int dfd, const char *name, size_t max)
{
    char *text = NULL;
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0)
        return NULL;
    if (!sc__ours(fd, S_IFREG, max) || sc_file_read_fd(fd, max, &text, NULL) < 0) {
        free(text);
        text = NULL;
    }
    close(fd);
    return text;
}

void sc_cachedir_replace(int dfd, const char *name, const char *text, size_t len)
{
    char tmp[128];
    int fd;

    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", name, (long)getpid());
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    int rc = sc_file_write_all(fd, text, len);
    if (close(fd) < 0 || rc < 0 || renameat(dfd, tmp, dfd, name) < 0)
        unlinkat(dfd, tmp, 0);
}

int sc_cachedir_identity(const struct stat *st, const char *path, char *buf, size_t len)
{
    if (strchr(path, '\n'))
        return -ENAMETOOLONG;
    int n = snprintf(buf, len, " %llu %llu %llu %lld.%09ld %lld.%09ld %s",
                     (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                     (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
                     st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec, path);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
