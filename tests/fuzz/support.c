/* support.c: what the fuzz targets share (see support.h). */
#include "support.h"
#include "sc_fsroot.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *sc_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);

    sc_fuzz_require(text != NULL, "out of memory");
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

size_t sc_fuzz_split(const uint8_t *data, size_t size, char **parts, size_t max)
{
    size_t n = 0, start = 0;

    for (size_t i = 0; i < max; i++)
        parts[i] = NULL;
    while (n < max && start <= size) {
        const uint8_t *nul = size > start ? memchr(data + start, '\0', size - start) : NULL;
        size_t end = nul ? (size_t)(nul - data) : size;
        parts[n++] = sc_fuzz_text(data + start, end - start);
        if (!nul)
            break;
        start = end + 1;
    }
    return n;
}

void sc_fuzz_free_parts(char **parts, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        free(parts[i]);
        parts[i] = NULL;
    }
}

void sc_fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: %s\n", what);
    abort();
}

static char sc__tmpdir[PATH_MAX];

static int sc__remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* best effort: a file that stays is no reason to stop */
    return 0;
}

static void sc__remove_tmpdir(void)
{
    if (*sc__tmpdir)
        nftw(sc__tmpdir, sc__remove, 16, FTW_DEPTH | FTW_PHYS);
}

const char *sc_fuzz_tmpdir(void)
{
    if (*sc__tmpdir)
        return sc__tmpdir;
    const char *base = getenv("TMPDIR");
    snprintf(sc__tmpdir, sizeof(sc__tmpdir), "%s/streamcard-fuzz.XXXXXX",
             base && *base ? base : "/tmp");
    sc_fuzz_require(mkdtemp(sc__tmpdir) != NULL, "cannot create a temporary directory");
    atexit(sc__remove_tmpdir);
    return sc__tmpdir;
}

void sc_fuzz_put(const char *dir, const char *rel, const char *text)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (!text) {
        sc_fuzz_require(unlink(path) == 0 || errno == ENOENT, "cannot remove a file");
        return;
    }
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        sc_fuzz_require(mkdir(path, 0700) == 0 || errno == EEXIST, "cannot create a directory");
        *p = '/';
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    sc_fuzz_require(fd >= 0, "cannot create a file");
    size_t len = strlen(text);
    for (const char *p = text; len > 0;) {
        ssize_t n = write(fd, p, len);
        sc_fuzz_require(n > 0 || (n < 0 && errno == EINTR), "cannot write a file");
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        }
    }
    close(fd);
}

const struct sc_fsroot *sc_fuzz_sysroot(const char *rel, const char *text)
{
    static sc_fsroot root = {.fd = -1};
    char dir[4096];

    if (root.fd >= 0)
        return &root;
    snprintf(dir, sizeof(dir), "%s/sysroot", sc_fuzz_tmpdir());
    sc_fuzz_put(dir, rel, text);
    sc_fuzz_require(sc_fsroot_open(&root, dir) == 0, "cannot open the sysroot");
    return &root;
}
