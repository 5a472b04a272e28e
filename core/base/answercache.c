/* answercache.c: answers remembered by key and by the identity of their files (see
   sc_answercache.h). */
#include "sc_answercache.h"
#include "sc_cachedir.h"
#include "sc_file.h"
#include "sc_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SC__IDENTITY_MAX (PATH_MAX + 128)

/* One well-formed block of the cache: where it is, its key's hash, its first f line. */
typedef struct sc__block {
    const char *start, *end; /* end: after its "." line */
    const char *body;        /* its first line after "v1 <hash>" */
    char sha[SC_HASH_HEX_LEN + 1];
} sc__block;

static size_t sc__line_len(const char *p)
{
    return strcspn(p, "\n");
}

static const char *sc__next_line(const char *p)
{
    size_t n = sc__line_len(p);

    return p + n + (p[n] == '\n');
}

/* Whether the block starting at p is well-formed ("v1 <hash>", f lines, a lines, "."). */
static bool sc__parse_block(const char *p, sc__block *b)
{
    size_t n = sc__line_len(p), files = 0;

    if (n != 3 + SC_HASH_HEX_LEN || strncmp(p, "v1 ", 3) != 0 ||
        strspn(p + 3, "0123456789abcdef") != SC_HASH_HEX_LEN)
        return false;
    memcpy(b->sha, p + 3, SC_HASH_HEX_LEN);
    b->sha[SC_HASH_HEX_LEN] = '\0';
    b->start = p;
    b->body = sc__next_line(p);
    const char *l = b->body;
    for (; !strncmp(l, "f ", 2); l = sc__next_line(l))
        if (++files > SC_ANSWERCACHE_MAX_FILES)
            return false;
    while (!strncmp(l, "a ", 2))
        l = sc__next_line(l);
    if (l[0] != '.' || (l[1] != '\n' && l[1] != '\0'))
        return false;
    b->end = sc__next_line(l);
    return true;
}

/* The next well-formed block at or after p (a malformed one is skipped line by line). */
static bool sc__next_block(const char **p, sc__block *b)
{
    while (**p) {
        if (sc__parse_block(*p, b)) {
            *p = b->end;
            return true;
        }
        *p = sc__next_line(*p);
    }
    return false;
}

/* The identity line of path as it is now: "f <identity>". */
static int sc__file_line(const char *path, char *buf, size_t len)
{
    struct stat st;

    if (len < 2 || stat(path, &st) < 0)
        return -errno;
    buf[0] = 'f';
    return sc_cachedir_identity(&st, path, buf + 1, len - 1);
}

/* Whether every f line of block b still names the same file, unchanged. */
static bool sc__files_unchanged(const sc__block *b)
{
    char now[SC__IDENTITY_MAX];

    for (const char *l = b->body; !strncmp(l, "f ", 2); l = sc__next_line(l)) {
        size_t n = sc__line_len(l);
        const char *path = l;
        for (int spaces = 0; path < l + n && spaces < 6; path++)
            spaces += *path == ' ';
        char name[PATH_MAX];
        size_t plen = (size_t)(l + n - path);
        if (path >= l + n || plen >= sizeof(name))
            return false;
        memcpy(name, path, plen);
        name[plen] = '\0';
        if (sc__file_line(name, now, sizeof(now)) < 0 || strlen(now) != n || memcmp(now, l, n) != 0)
            return false;
    }
    return true;
}

/* The answer of block b: its a lines without their "a ", each ending in a newline. */
static char *sc__answer_of(const sc__block *b)
{
    char *out = malloc((size_t)(b->end - b->start) + 1);
    size_t used = 0;
    const char *l = b->body;

    if (!out)
        return NULL;
    while (!strncmp(l, "f ", 2))
        l = sc__next_line(l);
    for (; !strncmp(l, "a ", 2); l = sc__next_line(l)) {
        size_t n = sc__line_len(l) - 2;
        memcpy(out + used, l + 2, n);
        used += n;
        out[used++] = '\n';
    }
    out[used] = '\0';
    return out;
}

/* The cache's text in dir (NULL: none we trust) and its directory (-errno: none). */
static char *sc__load(const char *dir, bool create, int *dfd)
{
    *dfd = sc_cachedir_open(dir, create);
    return *dfd >= 0 ? sc_cachedir_read(*dfd, SC_ANSWERCACHE_FILE, SC_ANSWERCACHE_MAX_BYTES) : NULL;
}

int sc_answercache_get(const char *dir, const char *key, char **answer)
{
    char sha[SC_HASH_HEX_LEN + 1];
    sc__block b, found = {0};
    int dfd = -1, rc = -ENOENT;

    *answer = NULL;
    if (!dir || sc_hash_buf(key, strlen(key), sha) < 0)
        return -ENOENT;
    char *text = sc__load(dir, false, &dfd);
    for (const char *p = text; p && sc__next_block(&p, &b);)
        if (!strcmp(b.sha, sha))
            found = b; /* the newest wins */
    if (found.start && sc__files_unchanged(&found)) {
        *answer = sc__answer_of(&found);
        rc = *answer ? 0 : -ENOMEM;
    }
    free(text);
    if (dfd >= 0)
        close(dfd);
    return rc;
}

/* Appends n bytes of s to the buffer *out (of *used bytes, room for cap). */
static bool sc__put(char *out, size_t cap, size_t *used, const char *s, size_t n)
{
    if (*used + n >= cap)
        return false;
    memcpy(out + *used, s, n);
    *used += n;
    out[*used] = '\0';
    return true;
}

/* The new entry's block into out (cap bytes). 0, -EFBIG when it does not fit, or the -errno
   of a file that cannot be stat'ed. */
static int sc__make_block(char *out, size_t cap, size_t *used, const char *sha, const char *answer,
                          const char *const *files, size_t n)
{
    char line[SC__IDENTITY_MAX];
    bool ok = sc__put(out, cap, used, "v1 ", 3) && sc__put(out, cap, used, sha, strlen(sha)) &&
              sc__put(out, cap, used, "\n", 1);

    for (size_t i = 0; ok && i < n; i++) {
        int rc = sc__file_line(files[i], line, sizeof(line));
        if (rc < 0)
            return rc;
        ok = sc__put(out, cap, used, line, strlen(line)) && sc__put(out, cap, used, "\n", 1);
    }
    for (const char *l = answer; ok && *l; l = sc__next_line(l))
        ok = sc__put(out, cap, used, "a ", 2) && sc__put(out, cap, used, l, sc__line_len(l)) &&
             sc__put(out, cap, used, "\n", 1);
    return ok && sc__put(out, cap, used, ".\n", 2) ? 0 : -EFBIG;
}

int sc_answercache_put(const char *dir, const char *key, const char *answer,
                       const char *const *files, size_t n)
{
    char sha[SC_HASH_HEX_LEN + 1], *mine = NULL, *out = NULL;
    size_t mine_len = 0, used = 0, total = 0, seen = 0;
    sc__block b;
    int dfd = -1, rc = -EINVAL;

    if (!dir || n > SC_ANSWERCACHE_MAX_FILES || sc_hash_buf(key, strlen(key), sha) < 0)
        return -EINVAL;
    char *old = sc__load(dir, true, &dfd);
    if (dfd < 0) {
        rc = dfd;
        goto out;
    }
    rc = -ENOMEM;
    if (!(mine = malloc(SC_ANSWERCACHE_MAX_BYTES)) || !(out = malloc(SC_ANSWERCACHE_MAX_BYTES)))
        goto out;
    rc = sc__make_block(mine, SC_ANSWERCACHE_MAX_BYTES, &mine_len, sha, answer, files, n);
    if (rc < 0)
        goto out;
    for (const char *p = old; p && sc__next_block(&p, &b);)
        total += strcmp(b.sha, sha) != 0;
    /* The newest other entries that leave room for this one, then this one. */
    for (const char *p = old; p && sc__next_block(&p, &b);) {
        if (!strcmp(b.sha, sha) || seen++ + SC_ANSWERCACHE_MAX_ENTRIES <= total)
            continue;
        if (used + (size_t)(b.end - b.start) + mine_len < SC_ANSWERCACHE_MAX_BYTES)
            sc__put(out, SC_ANSWERCACHE_MAX_BYTES, &used, b.start, (size_t)(b.end - b.start));
    }
    sc__put(out, SC_ANSWERCACHE_MAX_BYTES, &used, mine, mine_len);
    sc_cachedir_replace(dfd, SC_ANSWERCACHE_FILE, out, used);
    rc = 0;
out:
    free(old);
    free(mine);
    free(out);
    if (dfd >= 0)
        close(dfd);
    return rc;
}

int sc_answercache_host_boot(char *host, size_t hostlen, char *boot, size_t bootlen)
{
    char *text = NULL;

    if (!hostlen || !bootlen)
        return -1;
    host[0] = boot[0] = '\0';
    if (gethostname(host, hostlen - 1) ||
        sc_file_read_at(AT_FDCWD, "/proc/sys/kernel/random/boot_id", 0, 4096, &text, NULL) < 0)
        return -1;
    host[hostlen - 1] = '\0';
    sc_file_first_line(text, boot, bootlen);
    free(text);
    return boot[0] ? 0 : -1;
}
