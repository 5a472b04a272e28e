/* kv.c: "key=value" lines (see sc_kv.h). */
#include "sc_kv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_kv_init(sc_kv *kv)
{
    kv->text = NULL;
    kv->len = kv->cap = 0;
    kv->failed = 0;
}

void sc_kv_free(sc_kv *kv)
{
    if (!kv)
        return;
    free(kv->text);
    sc_kv_init(kv);
}

static void sc__kv_put(sc_kv *kv, const char *s, size_t n, bool sanitize)
{
    if (kv->len + n + 1 > kv->cap) {
        size_t cap = (kv->cap ? kv->cap * 2 : 1024) + n;
        char *grown = realloc(kv->text, cap);
        if (!grown) {
            kv->failed = 1;
            return;
        }
        kv->text = grown;
        kv->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        kv->text[kv->len++] = (sanitize && (unsigned char)c < 0x20 && c != '\t') ? '?' : c;
    }
    kv->text[kv->len] = '\0';
}

void sc_kv_addf(sc_kv *kv, const char *key, const char *fmt, ...)
{
    char *value = NULL;
    va_list ap;

    va_start(ap, fmt);
    int n = vasprintf(&value, fmt, ap);
    va_end(ap);
    if (n < 0) {
        kv->failed = 1;
        return;
    }
    sc__kv_put(kv, key, strlen(key), true);
    sc__kv_put(kv, "=", 1, false);
    sc__kv_put(kv, value, (size_t)n, true);
    sc__kv_put(kv, "\n", 1, false);
    free(value);
}

void sc_kv_append(sc_kv *kv, const char *text)
{
    sc__kv_put(kv, text, strlen(text), false);
}

bool sc_kv_get(const char *text, const char *key, char *buf, size_t buflen)
{
    size_t klen = strlen(key);
    const char *found = NULL;

    if (!text)
        return false;
    for (const char *line = text; *line;) {
        if (strncmp(line, key, klen) == 0 && line[klen] == '=')
            found = line + klen + 1;
        const char *nl = strchr(line, '\n');
        if (!nl)
            break;
        line = nl + 1;
    }
    if (!found)
        return false;
    size_t n = strcspn(found, "\n");
    if (buflen == 0)
        return true;
    if (n >= buflen)
        n = buflen - 1;
    memcpy(buf, found, n);
    buf[n] = '\0';
    return true;
}

bool sc_kv_get_long(const char *text, const char *key, long *out)
{
    char buf[64], *end = NULL;

    if (!sc_kv_get(text, key, buf, sizeof(buf)) || !*buf)
        return false;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}
