/* hashcache.c: file hashes remembered by file identity (see sc_hashcache.h). */
#include "sc_hashcache.h"
#include "sc_cachedir.h"
#include "sc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SC__LINE_MAX (4096 + 256)

int sc_hashcache_default_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;

    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/streamcard", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/streamcard", home);
    else
        return -ENOENT;
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * A well-formed line "v1 <64 hex> <dev> <ino> <size> <mtime> <ctime> <path>" (n bytes, no
 * newline): the part after the hash (the key) and where its path starts.
 */
static bool sc__parse_line(const char *line, size_t n, const char **key, const char **path)
{
    int spaces = 0;

    if (n < 3 + SC_HASH_HEX_LEN + 12 || strncmp(line, "v1 ", 3) != 0)
        return false;
    for (size_t i = 3; i < 3 + SC_HASH_HEX_LEN; i++)
        if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f')))
            return false;
    *key = line + 3 + SC_HASH_HEX_LEN;
    for (size_t i = 3 + SC_HASH_HEX_LEN; i < n; i++) {
        if (line[i] == ' ' && ++spaces == 6) {
            *path = line + i + 1;
            return (*key)[0] == ' ' && *path < line + n;
        }
    }
    return false;
}

/* Look key up in text; copy the hash into hex when a line matches exactly. */
static bool sc__lookup(const char *text, const char *key, char hex[SC_HASH_HEX_LEN + 1])
{
    size_t klen = strlen(key);

    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        const char *k, *p;
        if (sc__parse_line(line, n, &k, &p) && (size_t)(line + n - k) == klen &&
            memcmp(k, key, klen) == 0) {
            memcpy(hex, line + 3, SC_HASH_HEX_LEN);
            hex[SC_HASH_HEX_LEN] = '\0';
            return true;
        }
        line += n + (line[n] == '\n');
    }
    return false;
}

/*
 * The new cache: the old one's well-formed lines for other paths (the newest
 * SC_HASHCACHE_MAX_ENTRIES - 1), then this file's line; written to a temporary file and
 * renamed over the old one.
 */
static void sc__store(int dfd, const char *old, const char *path, const char *line)
{
    size_t cap = (old ? strlen(old) : 0) + strlen(line) + 1, used = 0, keep = 0, total = 0;
    char *out = malloc(cap);

    if (!out)
        return;
    for (int pass = 0; pass < 2 && old; pass++) { /* count, then copy the newest */
        size_t seen = 0;
        for (const char *l = old; *l;) {
            size_t n = strcspn(l, "\n");
            const char *k, *p;
            if (sc__parse_line(l, n, &k, &p) &&
                !((size_t)(l + n - p) == strlen(path) && memcmp(p, path, strlen(path)) == 0)) {
                if (pass == 0)
                    total++;
                else if (seen++ >= total - keep) {
                    memcpy(out + used, l, n);
                    used += n;
                    out[used++] = '\n';
                }
            }
            l += n + (l[n] == '\n');
        }
        keep = total < SC_HASHCACHE_MAX_ENTRIES - 1 ? total : SC_HASHCACHE_MAX_ENTRIES - 1;
    }
    memcpy(out + used, line, strlen(line) + 1); /* with its NUL: room was counted above */
    used += strlen(line);
    sc_cachedir_replace(dfd, SC_HASHCACHE_FILE, out, used);
    free(out);
}

int sc_hashcache_fd(const char *dir, int fd, const char *path, char hex[SC_HASH_HEX_LEN + 1],
                    bool *hit)
{
    char key[SC__LINE_MAX], line[SC__LINE_MAX + SC_HASH_HEX_LEN + 8];
    char *old = NULL;
    struct stat st;
    int dfd = -1, rc;

    if (hit)
        *hit = false;
    /* No cache for what a line cannot name or what is not a plain file. */
    bool cacheable = dir && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                     sc_cachedir_identity(&st, path, key, sizeof(key)) == 0;
    if (cacheable && (dfd = sc_cachedir_open(dir, false)) >= 0 &&
        (old = sc_cachedir_read(dfd, SC_HASHCACHE_FILE, SC_HASHCACHE_MAX_BYTES)) &&
        sc__lookup(old, key, hex)) {
        if (hit)
            *hit = true;
        rc = 0;
        goto out;
    }
    if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE) {
        rc = -errno;
        goto out;
    }
    if ((rc = sc_hash_fd(fd, hex)) < 0 || !cacheable)
        goto out;
    if (dfd == -ENOENT)
        dfd = sc_cachedir_open(dir, true);
    if (dfd >= 0) {
        snprintf(line, sizeof(line), "v1 %s%s\n", hex, key);
        sc__store(dfd, old, path, line);
    }
out:
    free(old);
    if (dfd >= 0)
        close(dfd);
    return rc;
}
