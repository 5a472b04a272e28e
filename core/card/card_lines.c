/*
 * card_lines.c: a card's cpu_list, prefetch and governor read from its lines, without a YAML
 * parser (see sc_card_lines.h). One pass, line by line; the state between lines is where the
 * experiment: block is, its indentation, and the block scalar being skipped. Each line is
 * lexed on its own (sc__lex): a line whose quoted text or [ ] { } collection does not end
 * on it stops the scan, so that no line is ever read as a key that YAML reads as text.
 */
#include "sc_card_lines.h"
#include "sc_card_schema.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sc_card_field sc_card_lines_fields[SC_CARD_LINES_KEYS] = {SC_CF_CPU_LIST, SC_CF_PREFETCH,
                                                                SC_CF_GOVERNOR};
static const char *const sc__names[SC_CARD_LINES_KEYS] = {"cpu_list", "prefetch", "governor"};

/* What the scan does not follow, said once where it is met. */
#define SC__OPEN "a quoted text or [ ] { } collection that goes on past its line"
#define SC__ODD "an anchor, alias, tag, directive or reserved indicator"

/* One line lexed on its own, from its first non-space character. */
typedef struct sc__lex {
    bool open;      /* a quoted scalar or flow collection does not end on the line */
    bool odd;       /* something the scan does not read (SC__ODD, a misplaced header) */
    size_t key_end; /* a key starting at the indentation: where its text ends (0: none) */
    bool key_plain; /* that key is a plain scalar */
    size_t value;   /* after that key's ':': the value's first character (n: none) */
    int block_min;  /* > 0: the line opens a block scalar; its least content indentation */
} sc__lex;

/* The scan between lines. */
typedef struct sc__scan {
    sc_card_lines *out;
    int section;      /* 0 before experiment:, 1 in its block, 2 after */
    bool content;     /* a line other than a comment came: a document marker is a second one */
    bool keyed;       /* a key at the start of a line came: the card's mapping starts there */
    int indent;       /* the experiment block's indentation; -1 until its first line */
    int last;         /* the key of the last line at that indentation: 0-2, or -1 */
    bool seq;         /* that line's key has no value on it: "- " lines there are its list */
    int block_min;    /* > 0 while in a block scalar: its least content indentation */
    int block_indent; /* its content indentation; -1 until its first line that is not blank */
    int block_blank;  /* the most spaces of its leading blank lines */
} sc__scan;

static void sc__stop(sc__scan *s, int line, const char *why)
{
    if (!s->out->unclear_line) {
        s->out->unclear_line = line;
        s->out->unclear_why = why;
    }
}

static void sc__unclear_key(sc__scan *s, int k, int line, const char *why)
{
    s->out->key[k].state = SC_CARD_LINE_UNCLEAR;
    s->out->key[k].line = line;
    s->out->key[k].why = why;
}

static bool sc__blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The end (one past the closing quote) of the quoted scalar opening at p[i], or 0 when the
   line ends first. */
static size_t sc__quoted_end(const char *p, size_t n, size_t i)
{
    for (size_t j = i + 1; j < n; j++) {
        /* An escape in double quotes, or a doubled quote in single quotes: skip its pair. */
        if ((p[i] == '"' && p[j] == '\\') ||
            (p[i] == '\'' && p[j] == '\'' && j + 1 < n && p[j + 1] == '\''))
            j++;
        else if (p[j] == p[i])
            return j + 1;
    }
    return 0;
}

/* A block scalar header at p[i] ('|' or '>'): only chomping indicators and a comment may
   follow. key_col, seq_col: the columns of the key and '-' before it on the line (-1). */
static void sc__header(sc__lex *x, const char *p, size_t n, size_t i, long key_col, long seq_col)
{
    size_t j = i + 1;

    if (j < n && (p[j] == '+' || p[j] == '-'))
        j++;
    while (j < n && sc__blank(p[j]))
        j++;
    long parent = key_col >= 0 ? key_col : seq_col;
    if ((j < n && p[j] != '#') || (j < n && !sc__blank(p[j - 1])) || parent < 0) {
        x->odd = true; /* an indentation digit, text after it, or no key to hang from */
        return;
    }
    x->block_min = (int)parent + 1;
}

/* Lexes p[0, n) from column ind. See sc__lex. */
static void sc__lex_line(const char *p, size_t n, size_t ind, sc__lex *x)
{
    bool at = true; /* at a token's start: a quote or bracket there opens one */
    long tok = -1, key_col = -1, seq_col = -1;
    int depth = 0; /* open flow collections */

    memset(x, 0, sizeof(*x));
    x->value = n;
    for (size_t i = ind; i < n;) {
        char c = p[i];
        if (sc__blank(c)) {
            i++;
            continue;
        }
        if (c == '#' && (i == 0 || sc__blank(p[i - 1])))
            break; /* a comment */
        if (at) {
            at = false;
            tok = (long)i;
            if (x->key_end && x->value == n)
                x->value = i;
            if (c == '"' || c == '\'') {
                size_t end = sc__quoted_end(p, n, i);
                if (!end) {
                    x->open = true;
                    return;
                }
                i = end;
                continue;
            }
            if (c == '[' || c == '{') {
                depth++;
                i++;
                at = true;
                continue;
            }
            if (depth == 0 && (c == '|' || c == '>')) {
                sc__header(x, p, n, i, key_col, seq_col);
                return;
            }
            if (depth == 0 && c == '-' && (i + 1 == n || sc__blank(p[i + 1]))) {
                seq_col = (long)i;
                i++;
                at = true;
                continue;
            }
            if (strchr("&*!%@`|>", c) || (c == '?' && (i + 1 == n || sc__blank(p[i + 1])))) {
                x->odd = true;
                return;
            }
        }
        if (depth > 0 && c == ',') {
            at = true;
        } else if (depth > 0 && (c == ']' || c == '}')) {
            depth--;
        } else if (depth > 0 && (c == '[' || c == '{')) {
            x->odd = true; /* not inside a plain scalar of a flow collection */
            return;
        } else if (c == ':' && (depth > 0 || i + 1 == n || sc__blank(p[i + 1]))) {
            /* A value indicator (in a flow collection any ':' may be one: what follows is
               taken as a token's start, so a quote there is seen). */
            if (depth == 0 && tok >= 0) {
                key_col = tok;
                if ((size_t)tok == ind && !x->key_end) {
                    x->key_end = i;
                    x->key_plain = p[ind] != '"' && p[ind] != '\'';
                }
            }
            at = true;
        }
        i++;
    }
    x->open = depth > 0;
}

/* A value of the scan's charset (what the three keys take), at most a card's scalar. */
static bool sc__value_ok(const char *v, size_t len)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._,-";

    if (len == 0 || len > SC_CARD_MAX_SCALAR)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!v[i] || !strchr(ok, v[i]))
            return false;
    return true;
}

/* The line at experiment's indentation giving key k: its value, plain or quoted. */
static void sc__value(sc__scan *s, int k, const char *text, const char *p, size_t n,
                      const sc__lex *x, int line)
{
    size_t v = x->value, end = n;

    if (s->out->key[k].state != SC_CARD_LINE_ABSENT) {
        sc__unclear_key(s, k, line, "it is given twice");
        return;
    }
    if (v < n && (p[v] == '"' || p[v] == '\'')) {
        end = sc__quoted_end(p, n, v);
        if (!end) { /* the lexer saw it end on the line: never here */
            sc__unclear_key(s, k, line, SC__OPEN);
            return;
        }
        size_t rest = end;
        while (rest < n && sc__blank(p[rest]))
            rest++;
        if (rest < n && p[rest] != '#') {
            sc__unclear_key(s, k, line, "text follows its quoted value");
            return;
        }
        v++;
        end--;
    } else {
        for (size_t i = v; i < n; i++)
            if (p[i] == '#' && sc__blank(p[i - 1])) {
                end = i;
                break;
            }
        while (end > v && sc__blank(p[end - 1]))
            end--;
    }
    if (v >= n || !sc__value_ok(p + v, end - v)) {
        sc__unclear_key(s, k, line,
                        "its value is not one plain or quoted word of A-Z, a-z, 0-9, '.', "
                        "'_', ',' and '-' on the key's line");
        return;
    }
    s->out->key[k] =
        (sc_card_line){SC_CARD_LINE_FOUND, line, (size_t)(p + v - text), end - v, NULL};
}

/* A line at the start of a line (no indentation). */
static void sc__top(sc__scan *s, const char *p, size_t n, const sc__lex *x, int line)
{
    bool marker =
        n >= 3 && (!strncmp(p, "---", 3) || !strncmp(p, "...", 3)) && (n == 3 || sc__blank(p[3]));
    if (marker && p[0] == '-' && !s->content && n == 3) {
        s->content = true; /* the document's start */
        return;
    }
    s->content = true;
    if (marker) {
        sc__stop(s, line, "a document marker after the start");
        return;
    }
    if (s->section == 1)
        s->section = 2;
    if (!x->key_end || !x->key_plain) {
        sc__stop(s, line, "a line at the start of a line that is not a plain key");
        return;
    }
    size_t kend = x->key_end;
    while (kend > 0 && sc__blank(p[kend - 1]))
        kend--;
    if (kend != 10 || strncmp(p, "experiment", 10) != 0)
        return;
    if (s->section != 0) {
        sc__stop(s, line, "experiment: given twice");
        return;
    }
    if (x->value != n || x->block_min) {
        sc__stop(s, line, "experiment: not followed by its keys on their own lines");
        return;
    }
    s->section = 1;
}

/* An indented line inside the experiment block. */
static void sc__experiment(sc__scan *s, const char *text, const char *p, size_t n, size_t ind,
                           const sc__lex *x, int line)
{
    if (s->indent < 0)
        s->indent = (int)ind;
    if ((int)ind < s->indent) {
        sc__stop(s, line, "a line less indented than experiment's keys");
        return;
    }
    if ((int)ind > s->indent) { /* the value of the last key goes on, or nests */
        if (s->last >= 0 && s->out->key[s->last].state == SC_CARD_LINE_FOUND)
            sc__unclear_key(s, s->last, s->out->key[s->last].line,
                            "a more indented line follows it, so its value may go on");
        return;
    }
    /* A list may sit at its key's indentation ("key:" then "- item" lines). */
    if (s->seq && ind < n && p[ind] == '-' && (ind + 1 == n || sc__blank(p[ind + 1])))
        return;
    s->last = -1;
    s->seq = false;
    if (!x->key_end || !x->key_plain) {
        sc__stop(s, line, "a line under experiment: that is not a plain key");
        return;
    }
    s->seq = x->value == n && !x->block_min;
    for (int k = 0; k < SC_CARD_LINES_KEYS; k++) {
        size_t klen = strlen(sc__names[k]);
        size_t kend = x->key_end;
        while (kend > ind && sc__blank(p[kend - 1]))
            kend--;
        if (kend - ind == klen && !strncmp(p + ind, sc__names[k], klen)) {
            s->last = k;
            if (x->block_min)
                sc__unclear_key(s, k, line, "its value is a block scalar");
            else
                sc__value(s, k, text, p, n, x, line);
        }
    }
}

/* In a block scalar: true when the line is its content (or blank inside it). */
static bool sc__in_block(sc__scan *s, size_t ind, bool blank, int line)
{
    if (!s->block_min)
        return false;
    if (blank) {
        if (s->block_indent < 0 && (int)ind > s->block_blank)
            s->block_blank = (int)ind;
        return true;
    }
    if (s->block_indent < 0 && (int)ind >= s->block_min) {
        if (s->block_blank > (int)ind)
            sc__stop(s, line,
                     "a block scalar's leading blank lines are more indented than its text");
        s->block_indent = (int)ind;
    }
    if (s->block_indent >= 0 && (int)ind >= s->block_indent)
        return true;
    s->block_min = 0; /* a less indented line ends it */
    return false;
}

/* One line p[0, n) without its break. */
static void sc__line(sc__scan *s, const char *text, const char *p, size_t n, int line)
{
    size_t ind = 0;
    sc__lex x;

    while (ind < n && p[ind] == ' ')
        ind++;
    size_t first = ind;
    while (first < n && sc__blank(p[first]))
        first++;
    bool blank = first == n;
    if (sc__in_block(s, ind, blank, line) || blank)
        return;
    if (p[ind] == '\t') {
        sc__stop(s, line, "a tab in the indentation");
        return;
    }
    if (p[ind] == '#')
        return; /* a comment line */
    sc__lex_line(p, n, ind, &x);
    if (x.open || x.odd) {
        sc__stop(s, line, x.open ? SC__OPEN : SC__ODD);
        return;
    }
    if (ind == 0) {
        sc__top(s, p, n, &x, line);
        s->keyed = s->keyed || x.key_end;
    } else if (!s->keyed) {
        /* An indented mapping at the top: a line at the start of a line then ends YAML's
           document, and the reader ignores what follows. */
        sc__stop(s, line, "an indented line before the card's first key");
    } else if (s->section == 1) {
        sc__experiment(s, text, p, n, ind, &x, line);
    }
    if (x.block_min) {
        s->block_min = x.block_min;
        s->block_indent = -1;
        s->block_blank = 0;
    }
}

/* Bytes YAML takes as a line break that the scan does not split at, or that it cannot read
   past: a lone CR, NEL, LS, PS, a NUL, a byte order mark after the start. */
static const char *sc__odd_bytes(const char *p, size_t n, bool last_has_lf)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\r' && !(i + 1 == n && last_has_lf))
            return "a carriage return that is not before a line feed";
        if (c == 0)
            return "a NUL byte";
        if (c == 0xc2 && i + 1 < n && (unsigned char)p[i + 1] == 0x85)
            return "a Unicode line break (NEL)";
        if (c == 0xe2 && i + 2 < n && (unsigned char)p[i + 1] == 0x80 &&
            ((unsigned char)p[i + 2] == 0xa8 || (unsigned char)p[i + 2] == 0xa9))
            return "a Unicode line or paragraph separator";
        if (c == 0xef && i + 2 < n && (unsigned char)p[i + 1] == 0xbb &&
            (unsigned char)p[i + 2] == 0xbf)
            return "a byte order mark after the start";
    }
    return NULL;
}

void sc_card_lines_scan(const char *text, size_t len, sc_card_lines *out)
{
    sc__scan s = {.out = out, .indent = -1, .last = -1};
    size_t start = 0;
    int line = 1;

    memset(out, 0, sizeof(*out));
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        start = 3; /* a byte order mark at the start, as YAML skips it */
    while (start < len && !out->unclear_line) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - start;
        const char *odd = sc__odd_bytes(text + start, n, nl != NULL);
        if (odd)
            sc__stop(&s, line, odd);
        else
            sc__line(&s, text, text + start, n && text[end - 1] == '\r' ? n - 1 : n, line);
        start = end + 1;
        line++;
    }
}

/* The card's value of field, as text for a message. */
static const char *sc__card_value(const sc_card *card, sc_card_field field)
{
    if (field == SC_CF_CPU_LIST)
        return card->cpu_list ? card->cpu_list : "(none)";
    if (field == SC_CF_PREFETCH)
        return sc_prefetch_name(card->prefetch);
    return card->governor ? card->governor : "unchanged";
}

/* The line's value, through the schema's conversion, is the card's. */
static int sc__same(const sc_card *card, sc_card_field field, const char *value, bool *same)
{
    sc_card *t = sc_card_new();
    sc_diag d;

    *same = false;
    if (!t)
        return -ENOMEM;
    sc_diag_init(&d);
    int rc = sc__card_assign(t, &sc__card_keys[field], value, "line", &d);
    if (rc == 0 && field == SC_CF_CPU_LIST)
        *same = t->cpus && card->cpus && hwloc_bitmap_isequal(t->cpus, card->cpus);
    else if (rc == 0 && field == SC_CF_PREFETCH)
        *same = t->prefetch == card->prefetch;
    else if (rc == 0)
        *same = t->governor && card->governor && strcmp(t->governor, card->governor) == 0;
    sc_diag_free(&d);
    sc_card_free(t);
    return rc == -ENOMEM ? rc : 0;
}

int sc_card_lines_check(const char *text, size_t len, const sc_card *card, const char *name,
                        sc_diag *diag)
{
    sc_card_lines l;
    int rc = 0;

    sc_card_lines_scan(text, len, &l);
    if (l.unclear_line) {
        sc_diag_addf(diag,
                     "%s:%d: the node reads cpu_list, prefetch and governor from the card's "
                     "lines without a YAML parser, and cannot read past %s (valid: block style, "
                     "each quoted text and [ ] { } list on one line)",
                     name, l.unclear_line, l.unclear_why);
        return -EBADMSG;
    }
    for (int k = 0; rc == 0 && k < SC_CARD_LINES_KEYS; k++) {
        sc_card_field f = sc_card_lines_fields[k];
        const sc_card_line *c = &l.key[k];
        bool present = card->present[f], same = false;
        if (c->state == SC_CARD_LINE_UNCLEAR) {
            sc_diag_addf(diag,
                         "%s:%d: %s: the node cannot read its line: %s (valid: one line \"%s: "
                         "VALUE\" directly under experiment:)",
                         name, c->line, sc__names[k], c->why, sc__names[k]);
            rc = -EBADMSG;
        } else if (present && c->state == SC_CARD_LINE_ABSENT) {
            sc_diag_addf(diag,
                         "%s:%d: %s: the node finds no line \"%s: VALUE\" directly under "
                         "experiment: (valid: that line, in block style)",
                         name, card->line[f], sc__names[k], sc__names[k]);
            rc = -EBADMSG;
        } else if (!present && c->state == SC_CARD_LINE_FOUND) {
            sc_diag_addf(diag,
                         "%s:%d: the line %s: %.*s is not a key of the card as read (valid: a "
                         "card whose lines say what it holds)",
                         name, c->line, sc__names[k], (int)c->len, text + c->off);
            rc = -EBADMSG;
        } else if (present) {
            char *value = strndup(text + c->off, c->len);
            rc = value ? sc__same(card, f, value, &same) : -ENOMEM;
            if (rc == 0 && !same) {
                sc_diag_addf(diag,
                             "%s:%d: %s: the card's line says %s, but the card as read says %s "
                             "(valid: what the line says)",
                             name, c->line, sc__names[k], value, sc__card_value(card, f));
                rc = -EBADMSG;
            }
            free(value);
        }
    }
    return rc;
}
