/* text.c: small text helpers (see sc_text.h). */
#include "sc_text.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an escaped text ends with when it was cut to fit. */
#define SC__TRUNCATED "..."

bool sc_word_in(const char *list, const char *seps, const char *word)
{
    size_t n = strlen(word);

    if (!list)
        return false;
    for (const char *w = list + strspn(list, seps); *w;) {
        size_t len = strcspn(w, seps);
        if (len == n && strncmp(w, word, n) == 0)
            return true;
        w += len;
        w += strspn(w, seps);
    }
    return false;
}

/* The length of the UTF-8 sequence at s (at most n bytes) when it is well formed
   (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), else 0; its code
   point in *cp. */
static size_t sc__utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t len;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, *cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, *cp = c & 0x0F, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, *cp = c & 0x07, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    return len;
}

/* Code points a terminal or a log reader may act on rather than show: C0 and C1 controls,
   DEL, the line and paragraph separators and the bidirectional overrides and isolates
   (which reorder what is shown). */
static bool sc__is_control(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The escaped form of the unit at s: writes it to buf (at least 8 bytes), returns its
   length; *used is how many input bytes it covers. */
static size_t sc__escape_unit(const unsigned char *s, size_t n, char *buf, size_t *used)
{
    unsigned cp = 0;
    size_t len = sc__utf8_decode(s, n, &cp);

    if (len == 0) {
        *used = 1;
        return (size_t)snprintf(buf, 8, "\\x%02x", s[0]);
    }
    *used = len;
    if (cp == '\\' || cp == '\n' || cp == '\t' || cp == '\r') {
        buf[0] = '\\';
        buf[1] = cp == '\\' ? '\\' : cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
        return 2;
    }
    if (sc__is_control(cp))
        return (size_t)snprintf(buf, 8, cp < 0x80 ? "\\x%02x" : "\\u%04x", cp);
    memcpy(buf, s, len);
    return len;
}

size_t sc_text_escape(char *out, size_t out_cap, const char *in, size_t in_len)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t total = 0, pos = 0, used, len;
    char unit[8];

    if (out_cap == 0)
        return 0;
    /* First pass: does all of it fit? Otherwise room is kept for the "..." marker. */
    for (size_t i = 0; i < in_len; i += used)
        total += sc__escape_unit(s + i, in_len - i, unit, &used);
    size_t room = total <= out_cap - 1 ? out_cap - 1
                  : out_cap - 1 >= sizeof(SC__TRUNCATED) - 1
                      ? out_cap - 1 - (sizeof(SC__TRUNCATED) - 1)
                      : 0;
    for (size_t i = 0; i < in_len; i += used) {
        len = sc__escape_unit(s + i, in_len - i, unit, &used);
        if (pos + len > room)
            break;
        memcpy(out + pos, unit, len);
        pos += len;
    }
    if (total > out_cap - 1 && out_cap - 1 >= sizeof(SC__TRUNCATED) - 1) {
        memcpy(out + pos, SC__TRUNCATED, sizeof(SC__TRUNCATED) - 1);
        pos += sizeof(SC__TRUNCATED) - 1;
    }
    out[pos] = '\0';
    return pos;
}

char *sc_text_escape_dup(const char *s, size_t max_len)
{
    size_t n = strlen(s), cap = n * 4 + 1; /* at most four bytes out per byte in */
    char *out;

    if (max_len && cap > max_len + 1)
        cap = max_len + 1;
    out = malloc(cap);
    if (out)
        sc_text_escape(out, cap, s, n);
    return out;
}

size_t sc_text_cut(const char *s, size_t len, size_t max)
{
    size_t n = max;

    if (len <= max)
        return len;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) /* s[n] continues a character */
        n--;
    return n;
}

bool sc_text_is_safe(const char *s, size_t len)
{
    char unit[8];
    size_t used;

    for (size_t i = 0; i < len; i += used) {
        size_t n = sc__escape_unit((const unsigned char *)s + i, len - i, unit, &used);
        if (n != used || memcmp(unit, s + i, n) != 0)
            return false;
    }
    return true;
}

bool sc_text_is_printable(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned cp = 0;

    for (size_t i = 0, used; i < len; i += used) {
        used = sc__utf8_decode(p + i, len - i, &cp);
        if (used == 0 || sc__is_control(cp))
            return false;
    }
    return true;
}

size_t sc_text_truncate(char *s, size_t max_len)
{
    size_t n = strlen(s), cut;

    if (n <= max_len)
        return n;
    cut = max_len >= sizeof(SC__TRUNCATED) - 1 ? max_len - (sizeof(SC__TRUNCATED) - 1) : 0;
    cut = sc_text_cut(s, n, cut); /* back to the start of a character */
    memcpy(s + cut, SC__TRUNCATED, sizeof(SC__TRUNCATED));
    return cut + sizeof(SC__TRUNCATED) - 1;
}

/* FNV-1a of a NUL-terminated text. */
static uint64_t sc__fnv1a(const char *text)
{
    uint64_t h = 14695981039346656037ull;

    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

int sc_text_find_repeats(const char *const *texts, size_t n, size_t *first)
{
    size_t cap = 2;

    while (cap < 2 * n)
        cap *= 2;
    /* Open addressing, at most half full: a slot holds 1 + the index of a text, 0 if empty. */
    size_t *slot = calloc(cap, sizeof(*slot));
    if (!slot)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        first[i] = n;
        if (!texts[i])
            continue;
        size_t h = (size_t)(sc__fnv1a(texts[i]) & (cap - 1));
        while (slot[h] && strcmp(texts[slot[h] - 1], texts[i]) != 0)
            h = (h + 1) & (cap - 1);
        if (slot[h])
            first[i] = slot[h] - 1;
        else
            slot[h] = i + 1;
    }
    free(slot);
    return 0;
}

size_t sc_text_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];

    if (la >= 63 || lb >= 63)
        return SIZE_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}
