/* bundle_memo.c: what one pass over a bundle has seen (see sc_bundle_memo.h). */
#include "sc_bundle_memo.h"
#include "sc_bundle.h"
#include "sc_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One file read whole by the pass. */
typedef struct sc__seen {
    char hex[SC_HASH_HEX_LEN + 1];
    size_t size;
    char *text; /* kept for a second reader; NULL when not */
} sc__seen;

/* One directory the pass walked, kept open. */
typedef struct sc__dir {
    char *rel;
    int fd;
} sc__dir;

struct sc_bundle_memo {
    char **paths; /* the listing, sorted */
    size_t count;
    int list_rc;
    sc_diag list_problems;
    uint32_t *slot; /* per listed path: 1 + its index into seen, 0 when not read */
    sc__seen *seen;
    size_t n_seen, cap_seen;
    size_t kept; /* bytes of text kept */
    sc__dir dirs[SC_BUNDLE_MEMO_DIRS];
    size_t n_dirs;
};

static int sc__cmp_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

sc_bundle_memo *sc__memo_new(char **paths, size_t count, int list_rc, const sc_diag *problems)
{
    sc_bundle_memo *m = calloc(1, sizeof(*m));

    if (m)
        m->slot = calloc(count ? count : 1, sizeof(*m->slot));
    if (!m || !m->slot) {
        free(m);
        sc_bundle_list_free(paths, count);
        return NULL;
    }
    m->paths = paths;
    m->count = count;
    m->list_rc = list_rc;
    sc_diag_init(&m->list_problems);
    sc_diag_append(&m->list_problems, problems); /* -ENOMEM: said fewer times */
    return m;
}

void sc__memo_free(sc_bundle_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_seen; i++)
        free(m->seen[i].text);
    free(m->seen);
    free(m->slot);
    for (size_t i = 0; i < m->n_dirs; i++) {
        free(m->dirs[i].rel);
        close(m->dirs[i].fd);
    }
    sc_bundle_list_free(m->paths, m->count);
    sc_diag_free(&m->list_problems);
    free(m);
}

int sc__memo_list(const sc_bundle_memo *m, char ***paths, size_t *count, sc_diag *problems)
{
    if (problems)
        sc_diag_append(problems, &m->list_problems);
    if (m->list_rc < 0)
        return m->list_rc;
    char **copy = calloc(m->count ? m->count : 1, sizeof(*copy));
    for (size_t i = 0; copy && i < m->count; i++) {
        if (!(copy[i] = strdup(m->paths[i]))) {
            sc_bundle_list_free(copy, i);
            copy = NULL;
        }
    }
    if (!copy)
        return -ENOMEM;
    *paths = copy;
    *count = m->count;
    return 0;
}

/* Where the listing holds rel: true with its index. */
static bool sc__listed(const sc_bundle_memo *m, const char *rel, size_t *idx)
{
    char **hit =
        m->count ? bsearch(&rel, m->paths, m->count, sizeof(*m->paths), sc__cmp_paths) : NULL;

    if (hit)
        *idx = (size_t)(hit - m->paths);
    return hit != NULL;
}

/* The record of rel, or NULL when the pass has not read it (or the listing lacks it). */
static sc__seen *sc__find(const sc_bundle_memo *m, const char *rel)
{
    size_t idx;

    return sc__listed(m, rel, &idx) && m->slot[idx] ? &m->seen[m->slot[idx] - 1] : NULL;
}

int sc__memo_text(const sc_bundle_memo *m, const char *rel, char **out, size_t *len)
{
    const sc__seen *s = sc__find(m, rel);

    if (!s || !s->text)
        return -ENOENT;
    char *copy = malloc(s->size + 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, s->text, s->size);
    copy[s->size] = '\0';
    *out = copy;
    if (len)
        *len = s->size;
    return 0;
}

/* Whether a second reader of the pass may want rel: not a log (the first run's is handed
   over parsed) and not a file of a run after the first. */
static bool sc__worth_keeping(const char *rel, size_t len)
{
    size_t n = strlen(rel);
    unsigned long run = 0;

    if (len > SC_BUNDLE_CAP_JSON || (n >= 4 && strcmp(rel + n - 4, ".log") == 0))
        return false;
    return !(sscanf(rel, "run-%lu/", &run) == 1 && run >= 2);
}

int sc__memo_note(sc_bundle_memo *m, const char *rel, const char *text, size_t len)
{
    size_t idx = 0;

    if (!sc__listed(m, rel, &idx) || m->slot[idx])
        return 0; /* not a listed file, or noted already */
    if (m->n_seen == m->cap_seen) {
        size_t cap = m->cap_seen ? m->cap_seen * 2 : 32;
        sc__seen *grown = realloc(m->seen, cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        m->seen = grown;
        m->cap_seen = cap;
    }
    sc__seen *s = &m->seen[m->n_seen];
    memset(s, 0, sizeof(*s));
    sc_hash_buf(text, len, s->hex);
    s->size = len;
    if (sc__worth_keeping(rel, len) && m->kept + len <= SC_BUNDLE_MEMO_KEEP &&
        (s->text = malloc(len ? len : 1))) {
        memcpy(s->text, text, len);
        m->kept += len;
    }
    m->slot[idx] = (uint32_t)++m->n_seen;
    return 0;
}

bool sc__memo_hash(const sc_bundle_memo *m, const char *rel, char *hex, size_t *size)
{
    const sc__seen *s = sc__find(m, rel);

    if (!s)
        return false;
    memcpy(hex, s->hex, sizeof(s->hex));
    *size = s->size;
    return true;
}

int sc__memo_dir(const sc_bundle_memo *m, const char *dir, size_t len)
{
    for (size_t i = 0; i < m->n_dirs; i++)
        if (strlen(m->dirs[i].rel) == len && memcmp(m->dirs[i].rel, dir, len) == 0) {
            int fd = fcntl(m->dirs[i].fd, F_DUPFD_CLOEXEC, 0);
            return fd < 0 ? -errno : fd;
        }
    return -ENOENT;
}

void sc__memo_keep_dir(sc_bundle_memo *m, const char *dir, size_t len, int fd)
{
    if (m->n_dirs >= SC_BUNDLE_MEMO_DIRS)
        return;
    char *rel = strndup(dir, len);
    int kept = rel ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (kept < 0) {
        free(rel);
        return;
    }
    m->dirs[m->n_dirs].rel = rel;
    m->dirs[m->n_dirs].fd = kept;
    m->n_dirs++;
}

/* A listing's paths (sc_bundle_list()): here, beside the memo that keeps one, so that the
   bundle and its memo do not call each other (static.call_loops). */
void sc_bundle_list_free(char **paths, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    free(paths);
}
