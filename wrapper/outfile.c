/* outfile.c: files written whole or not at all, never through a link (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of path ("." for a bare name) and its last component, malloc'd. */
static int sc__split(const char *path, char **dir, char **base)
{
    const char *slash = strrchr(path, '/');

    *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    *base = strdup(slash ? slash + 1 : path);
    if (!*dir || !*base) {
        free(*dir);
        free(*base);
        *dir = *base = NULL;
        return -ENOMEM;
    }
    return 0;
}

int sc_outfile_open(sc_outfile *o, const char *path, char *why, size_t len)
{
    struct stat st;
    char *dir = NULL, *base = NULL;
    int rc, fd = -1;

    memset(o, 0, sizeof(*o));
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        rc = S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
        snprintf(why, len, "%s: %s, not written (valid: a regular file or a new name)", path,
                 rc == -ELOOP ? "a symlink" : "not a regular file");
        return rc;
    }
    if ((rc = sc__split(path, &dir, &base)) < 0) {
        snprintf(why, len, "%s: %s", path, strerror(-rc));
        return rc;
    }
    if (!*base) {
        rc = -EISDIR;
        snprintf(why, len, "%s: a directory, not a file name (valid: a file name)", path);
        goto fail;
    }
    if (asprintf(&o->tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
        o->tmp = NULL;
        rc = -ENOMEM;
    } else if (!(o->path = strdup(path))) {
        rc = -ENOMEM;
    }
    if (rc < 0) {
        snprintf(why, len, "%s: %s", path, strerror(-rc));
        goto fail;
    }
    if ((fd = mkstemp(o->tmp)) < 0 || !(o->f = fdopen(fd, "w"))) {
        rc = -errno;
        snprintf(why, len,
                 "%s: cannot make a temporary file in %s: %s (valid: a writable "
                 "directory)",
                 path, dir, strerror(errno));
        if (fd >= 0) {
            unlink(o->tmp);
            close(fd);
        }
        goto fail;
    }
    free(dir);
    free(base);
    return 0;
fail:
    free(dir);
    free(base);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof(*o));
    return rc;
}

/* The directory of o's target, fsync'd after the rename (the new name durable). */
static void sc__sync_dir(const char *path)
{
    char *dir = NULL, *base = NULL;

    if (sc__split(path, &dir, &base) == 0) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
    }
    free(dir);
    free(base);
}

int sc_outfile_commit(sc_outfile *o, char *why, size_t len)
{
    mode_t mask = umask(0);
    int rc = 0;

    umask(mask);
    if (o->f == stdout) {
        rc = fflush(stdout) == 0 ? 0 : -errno;
        if (rc < 0)
            snprintf(why, len, "stdout: %s", strerror(-rc));
        memset(o, 0, sizeof(*o));
        return rc;
    }
    if (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0 || fchmod(fileno(o->f), 0666 & ~mask) != 0)
        rc = -errno;
    if (fclose(o->f) != 0 && rc == 0)
        rc = -errno;
    o->f = NULL;
    if (rc == 0 && rename(o->tmp, o->path) != 0)
        rc = -errno;
    if (rc < 0) {
        snprintf(why, len, "%s: %s (the file is as it was)", o->path, strerror(-rc));
        sc_outfile_abort(o);
        return rc;
    }
    sc__sync_dir(o->path);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof(*o));
    return 0;
}

void sc_outfile_abort(sc_outfile *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof(*o));
}
