/* file.c: whole-file reads and writes relative to a directory fd (see sc_file.h). */
#include "sc_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sc_file_read_fd(int fd, size_t max, char **out, size_t *len)
{
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap + 1);

    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (used == cap) {
            if (cap >= max) {
                free(buf);
                return -EFBIG;
            }
            cap = cap * 2 > max ? max : cap * 2;
            char *grown = realloc(buf, cap + 1);
            if (!grown) {
                free(buf);
                return -ENOMEM;
            }
            buf = grown;
        }
        ssize_t n = read(fd, buf + used, cap - used);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int err = -errno;
            free(buf);
            return err;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    buf[used] = '\0';
    *out = buf;
    if (len)
        *len = used;
    return 0;
}

int sc_file_read_at(int dirfd, const char *rel, int extra_flags, size_t max, char **out,
                    size_t *len)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | extra_flags);

    if (fd < 0)
        return -errno;
    int rc = sc_file_read_fd(fd, max, out, len);
    close(fd);
    return rc;
}

int sc_file_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void sc_file_first_line(const char *text, char *buf, size_t buflen)
{
    size_t n = strcspn(text, "\n");

    if (buflen == 0)
        return;
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r'))
        n--;
    if (n >= buflen)
        n = buflen - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

int sc_file_replace_at(int dirfd, const char *name, const char *tmp, const void *buf, size_t len,
                       mode_t mode)
{
    int rc = 0, fd;

    unlinkat(dirfd, tmp, 0); /* a leftover of a crash between create and rename */
    fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return -errno;
    if (fchmod(fd, mode) < 0) /* whatever the umask */
        rc = -errno;
    if (rc == 0)
        rc = sc_file_write_all(fd, buf, len);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
        rc = -errno;
    if (rc == 0 && fsync(dirfd) < 0)
        rc = -errno;
    if (rc < 0)
        unlinkat(dirfd, tmp, 0);
    return rc;
}

int sc_file_is_program(const char *path)
{
    struct stat st;

    if (stat(path, &st) < 0)
        return -errno;
    /* access() alone passes a directory, and for root any file with no execute bit. */
    if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
        return -EACCES;
    return access(path, X_OK) == 0 ? 0 : -errno;
}

/* This machine's ELF class and byte order, as a shared object it loads must have them. */
#if UINTPTR_MAX == 0xffffffffu
typedef Elf32_Ehdr sc__ehdr;
#define SC__ELFCLASS ELFCLASS32
#else
typedef Elf64_Ehdr sc__ehdr;
#define SC__ELFCLASS ELFCLASS64
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SC__ELFDATA ELFDATA2LSB
#else
#define SC__ELFDATA ELFDATA2MSB
#endif

int sc_file_is_shared_object(const char *path, char *why, size_t len)
{
    struct stat st;
    sc__ehdr h;
    int fd;
    ssize_t got;

    if (path[0] != '/') {
        snprintf(why, len, "not an absolute path");
        return -EINVAL;
    }
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0) {
        snprintf(why, len, "%s", strerror(errno));
        return -EINVAL;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, len, "%s", S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        close(fd);
        return -EINVAL;
    }
    got = read(fd, &h, sizeof(h));
    close(fd);
    if (got != (ssize_t)sizeof(h) || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(why, len, "not an ELF file");
        return -EINVAL;
    }
    if (h.e_ident[EI_CLASS] != SC__ELFCLASS || h.e_ident[EI_DATA] != SC__ELFDATA) {
        snprintf(why, len, "an ELF file of another class or byte order than this machine's");
        return -EINVAL;
    }
    if (h.e_type != ET_DYN) {
        snprintf(why, len, "an ELF %s, not a shared object",
                 h.e_type == ET_EXEC  ? "executable"
                 : h.e_type == ET_REL ? "object file"
                                      : "file");
        return -EINVAL;
    }
    return 0;
}

bool sc_file_maps_shows(const char *maps, const char *path)
{
    size_t n = strlen(path);

    for (const char *p = maps; (p = strstr(p, " file=")); p += 6)
        if (!strncmp(p + 6, path, n) && (p[6 + n] == ' ' || p[6 + n] == '\n' || !p[6 + n]))
            return true;
    return false;
}

char *sc_file_which(const char *name)
{
    const char *path = getenv("PATH");
    char candidate[4096];

    for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
        size_t n = strcspn(dir, ":");
        int len = snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)n, dir, name);
        if (*dir == '/' && len > 0 && (size_t)len < sizeof(candidate) &&
            sc_file_is_program(candidate) == 0) {
            char *found = strdup(candidate);
            if (!found)
                errno = ENOMEM;
            return found;
        }
        dir += n;
        if (*dir == ':')
            dir++;
    }
    errno = ENOENT;
    return NULL;
}
