/* hostlist.c: membership in a Slurm hostlist expression (see sc_hostlist.h). */
#include "sc_hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits list at top-level commas (not those inside brackets); calls fn per item. */
typedef int (*sc__item_fn)(const char *item, size_t len, void *ctx);

static int sc__each_item(const char *list, sc__item_fn fn, void *ctx)
{
    const char *start = list;
    int depth = 0;

    for (const char *p = list;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        if ((*p == ',' && depth == 0) || *p == '\0') {
            int rc = fn(start, (size_t)(p - start), ctx);
            if (rc)
                return rc;
            if (*p == '\0')
                return 0;
            start = p + 1;
        }
    }
}

/* Does host match item "prefix[ranges]suffix" (or a plain name)? */
static bool sc__item_matches(const char *item, size_t len, const char *host)
{
    const char *open = memchr(item, '[', len);

    if (!open)
        return strlen(host) == len && strncmp(host, item, len) == 0;
    const char *close = memchr(open, ']', len - (size_t)(open - item));
    size_t plen = (size_t)(open - item), slen = len - (size_t)(close - item) - 1;
    size_t hlen = strlen(host);
    if (hlen < plen + slen || strncmp(host, item, plen) != 0 ||
        strncmp(host + hlen - slen, close + 1, slen) != 0)
        return false;
    const char *num = host + plen;
    size_t nlen = hlen - plen - slen;
    if (nlen == 0)
        return false;
    for (size_t i = 0; i < nlen; i++)
        if (!isdigit((unsigned char)num[i]))
            return false;
    long value = strtol(num, NULL, 10);
    /* Each range: "a" or "a-b"; the width of a padded range must match the host's digits. */
    for (const char *r = open + 1; r < close;) {
        size_t rlen = strcspn(r, ",]");
        const char *dash = memchr(r, '-', rlen);
        size_t alen = dash ? (size_t)(dash - r) : rlen;
        long a = strtol(r, NULL, 10), b = dash ? strtol(dash + 1, NULL, 10) : a;
        bool padded = alen > 1 && r[0] == '0';
        if (value >= a && value <= b && (!padded || nlen == alen))
            if (padded || num[0] != '0' || nlen == 1)
                return true;
        r += rlen;
        if (*r == ',')
            r++;
    }
    return false;
}

typedef struct sc__contains {
    const char *host;
    bool found;
} sc__contains;

static int sc__contains_item(const char *item, size_t len, void *ctx)
{
    sc__contains *c = ctx;

    if (sc__item_matches(item, len, c->host)) {
        c->found = true;
        return 1;
    }
    return 0;
}

typedef struct sc__checker {
    char *why;
    size_t whylen;
} sc__checker;

static int sc__check_item(const char *item, size_t len, void *ctx)
{
    sc__checker *c = ctx;
    const char *open = memchr(item, '[', len), *close = memchr(item, ']', len);

    if (len == 0) {
        snprintf(c->why, c->whylen, "empty host name");
        return -EINVAL;
    }
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)item[i]) && !strchr("-_.[],", item[i])) {
            snprintf(c->why, c->whylen, "\"%.*s\" has a character not allowed in a host name",
                     (int)len, item);
            return -EINVAL;
        }
    if (!open && !close)
        return 0;
    if (!open || !close || close < open || memchr(open + 1, '[', len - (size_t)(open - item) - 1)) {
        snprintf(c->why, c->whylen, "\"%.*s\" has unbalanced or nested brackets", (int)len, item);
        return -EINVAL;
    }
    for (const char *r = open + 1; r < close;) {
        size_t rlen = strcspn(r, ",]");
        const char *dash = memchr(r, '-', rlen);
        char *end = NULL;
        long a = strtol(r, &end, 10);
        bool ok = end != r && (dash ? end == dash : end == r + rlen);
        if (ok && dash) {
            long b = strtol(dash + 1, &end, 10);
            ok = end == r + rlen && end != dash + 1 && b >= a;
        }
        if (!ok || !isdigit((unsigned char)*r)) {
            snprintf(c->why, c->whylen, "\"%.*s\" is not a range like 01-04 in \"%.*s\"",
                     (int)rlen, r, (int)len, item);
            return -EINVAL;
        }
        r += rlen;
        if (*r == ',')
            r++;
    }
    return 0;
}

int sc_hostlist_check(const char *list, char *why, size_t whylen)
{
    char dummy[256];
    sc__checker c = {why ? why : dummy, why ? whylen : sizeof(dummy)};

    if (!list || !*list) {
        snprintf(c.why, c.whylen, "empty host list");
        return -EINVAL;
    }
    return sc__each_item(list, sc__check_item, &c) ? -EINVAL : 0;
}

static int sc__count_item(const char *item, size_t len, void *ctx)
{
    unsigned long *count = ctx;
    const char *open = memchr(item, '[', len);

    if (!open) {
        (*count)++;
        return 0;
    }
    const char *close = memchr(open, ']', len - (size_t)(open - item));
    for (const char *r = open + 1; r < close;) {
        size_t rlen = strcspn(r, ",]");
        const char *dash = memchr(r, '-', rlen);
        long a = strtol(r, NULL, 10), b = dash ? strtol(dash + 1, NULL, 10) : a;
        *count += (unsigned long)(b - a + 1);
        r += rlen;
        if (*r == ',')
            r++;
    }
    return 0;
}

unsigned long sc_hostlist_count(const char *list)
{
    unsigned long count = 0;

    if (sc_hostlist_check(list, NULL, 0) < 0)
        return 0;
    sc__each_item(list, sc__count_item, &count);
    return count;
}

bool sc_hostlist_contains(const char *list, const char *host)
{
    sc__contains c = {host, false};

    if (sc_hostlist_check(list, NULL, 0) < 0)
        return false;
    sc__each_item(list, sc__contains_item, &c);
    return c.found;
}
