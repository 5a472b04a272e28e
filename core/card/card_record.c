/*
 * card_record.c: a checked card as a flat record, written by the unprivileged check on the
 * node and read by root (see sc_card_record.h). The reader is bounded by the record's size
 * and checks each line as it goes; it builds the card only through the schema's conversion
 * (sc__card_assign) and the card rules (sc_card_check), as a card read from YAML is built.
 */
#include "sc_card_record.h"
#include "sc_card_schema.h"
#include "sc_kv.h"
#include "sc_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC__RECORD_MAGIC "streamcard-card-record=1"

/* True when s is one line of printable ASCII: what a field value may be. */
static bool sc__one_line(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f)
            return false;
    return *s != '\0';
}

/* The keys root acts on: every single-valued key the card gives, and the run's name. The
   question (free text), the patterns and the lists (env, controlled_variables,
   command, metrics) stay in the YAML. */
static bool sc__carried(const sc_card *card, const sc__card_key *key)
{
    if (key->type == SC__CT_ENV || key->type == SC__CT_LIST || key->type == SC__CT_METRICS ||
        key->field == SC_CF_QUESTION || key->field == SC_CF_VALIDATE_PATTERN ||
        key->field == SC_CF_BEGIN_PATTERN || key->field == SC_CF_END_PATTERN)
        return false;
    return card->present[key->field] || (key->field == SC_CF_RUN_NAME && card->run_name);
}

/* Appends a field line per carried key; false when a value cannot travel as one line. */
static bool sc__put_fields(sc_kv *kv, const sc_card *card)
{
    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        if (!sc__carried(card, key))
            continue;
        char *value = key->type == SC__CT_CPULIST && card->cpu_list
                          ? strdup(card->cpu_list)
                          : sc__card_value_text(card, key->field);
        bool ok = value && sc__one_line(value);
        if (ok)
            sc_kv_addf(kv, "field", "%s %d %s", key->path, card->line[i], value);
        free(value);
        if (!ok)
            return false;
    }
    return true;
}

char *sc_card_record_format(const sc_card *card, int check_rc, const sc_diag *problems,
                            const char *sha, unsigned uid)
{
    bool ok = check_rc == 0 && card && card->sweep_field == SC_CF_COUNT;
    sc_kv kv, fields;

    sc_kv_init(&kv);
    sc_kv_init(&fields);
    if (ok)
        ok = sc__put_fields(&fields, card);
    sc_kv_append(&kv, SC__RECORD_MAGIC "\n");
    sc_kv_addf(&kv, "sha256", "%s", sha);
    sc_kv_addf(&kv, "uid", "%u", uid);
    sc_kv_addf(&kv, "verdict", "%s", ok ? "ok" : "refused");
    size_t shown = problems ? problems->count : 0;
    if (shown > SC_CARD_RECORD_PROBLEMS)
        shown = SC_CARD_RECORD_PROBLEMS;
    for (size_t i = 0; i < shown; i++) /* one line each, escaped by sc_diag_addf */
        sc_kv_addf(&kv, "problem", "%s", problems->lines[i]);
    size_t more = problems ? problems->count - shown + problems->more : 0;
    if (!ok && !shown && check_rc == 0)
        sc_kv_addf(&kv, "problem", "%s",
                   card && card->sweep_field != SC_CF_COUNT
                       ? "a card for one run has no sweep (valid: streamcard run CARD --submit)"
                       : "a value of the card cannot travel as one line of text");
    sc_kv_addf(&kv, "more", "%zu", more);
    if (ok && fields.text)
        sc_kv_append(&kv, fields.text);
    sc_kv_addf(&kv, "end", "1");
    sc_kv_free(&fields);
    if (kv.failed || fields.failed) {
        sc_kv_free(&kv);
        return NULL;
    }
    return kv.text;
}

/* State of one read. */
typedef struct sc__reader {
    const char *sha;
    unsigned uid;
    const char *name;
    sc_card *card;
    sc_diag *problems;
    sc_diag assign; /* what the schema says of a field it refuses */
    int verdict;    /* -1 not seen, 0 refused, 1 ok */
    bool sha_seen, uid_seen, more_seen, end_seen;
    bool given[SC_CF_COUNT];
} sc__reader;

/* A decimal number that fits max, the whole of s. */
static bool sc__number(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end = NULL;

    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0' && *out <= max;
}

/* "field=<path> <line> <value>": set through the schema. */
static int sc__field(sc__reader *r, char *rest, char *why, size_t whylen)
{
    char *sp1 = strchr(rest, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL, where[160];
    unsigned long long line;

    if (!sp2) {
        snprintf(why, whylen, "field %.40s is not \"<key> <line> <value>\"", rest);
        return -EBADMSG;
    }
    *sp1 = *sp2 = '\0';
    const sc__card_key *key = sc__card_key_by_path(rest);
    if (!key || key->type == SC__CT_ENV || key->type == SC__CT_LIST ||
        key->type == SC__CT_METRICS || key->field == SC_CF_VALIDATE_PATTERN ||
        key->field == SC_CF_BEGIN_PATTERN || key->field == SC_CF_END_PATTERN ||
        !sc__number(sp1 + 1, 1u << 20, &line) || !sc__one_line(sp2 + 1) ||
        strlen(sp2 + 1) > SC_CARD_MAX_SCALAR || r->given[key->field]) {
        snprintf(why, whylen, "field %.40s is not a card key given once with a line and a value",
                 rest);
        return -EBADMSG;
    }
    r->given[key->field] = true;
    r->card->present[key->field] = true;
    r->card->line[key->field] = (int)line;
    snprintf(where, sizeof(where), "%.100s:%d", r->name, (int)line);
    int rc = sc__card_assign(r->card, key, sp2 + 1, where, &r->assign);
    if (rc == -EINVAL)
        snprintf(why, whylen, "field %s: %s", sc__card_key_name(key),
                 r->assign.count ? r->assign.lines[0] : "refused by the card schema");
    return rc == -EINVAL ? -EBADMSG : rc;
}

/* One line of the record (without its newline). */
static int sc__line(sc__reader *r, char *line, char *why, size_t whylen)
{
    unsigned long long n;

    if (r->end_seen) {
        snprintf(why, whylen, "text after end=1");
        return -EBADMSG;
    }
    if (strncmp(line, "sha256=", 7) == 0 && !r->sha_seen) {
        r->sha_seen = true;
        if (strcmp(line + 7, r->sha) == 0)
            return 0;
        snprintf(why, whylen, "it is for another card (SHA-256 %.64s)", line + 7);
        return -EBADMSG;
    }
    if (strncmp(line, "uid=", 4) == 0 && !r->uid_seen) {
        r->uid_seen = true;
        if (sc__number(line + 4, UINT32_MAX, &n) && n == r->uid)
            return 0;
        snprintf(why, whylen, "the check ran as uid %.12s, not the job's uid %u", line + 4, r->uid);
        return -EBADMSG;
    }
    if (strncmp(line, "verdict=", 8) == 0 && r->verdict < 0) {
        r->verdict = strcmp(line + 8, "ok") == 0 ? 1 : strcmp(line + 8, "refused") == 0 ? 0 : -2;
        if (r->verdict >= 0)
            return 0;
        snprintf(why, whylen, "its verdict is neither ok nor refused");
        return -EBADMSG;
    }
    if (strncmp(line, "problem=", 8) == 0 && r->problems->count < SC_CARD_RECORD_PROBLEMS &&
        sc_text_is_printable(line + 8, strlen(line + 8)))
        return sc_diag_addf(r->problems, "%s", line + 8);
    if (strncmp(line, "more=", 5) == 0 && !r->more_seen && sc__number(line + 5, 1u << 30, &n)) {
        r->more_seen = true;
        r->problems->more = n;
        return 0;
    }
    if (strncmp(line, "field=", 6) == 0 && r->verdict == 1)
        return sc__field(r, line + 6, why, whylen);
    if (strcmp(line, "end=1") == 0) {
        r->end_seen = true;
        return 0;
    }
    snprintf(why, whylen, "unexpected line \"%.40s\"", line);
    return -EBADMSG;
}

/* Splits text into lines, each handed to sc__line; the first failure ends it. */
static int sc__read_lines(sc__reader *r, const char *text, size_t len, char *why, size_t whylen)
{
    char *copy = malloc(len + 1), *line, *save = NULL;
    int rc = 0;

    if (!copy)
        return -ENOMEM;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (strlen(copy) != len || len == 0 || copy[len - 1] != '\n' ||
        strncmp(copy, SC__RECORD_MAGIC "\n", sizeof(SC__RECORD_MAGIC)) != 0) {
        snprintf(why, whylen,
                 "it does not start with \"" SC__RECORD_MAGIC "\" or is not lines "
                 "of text");
        rc = -EBADMSG;
    }
    /* Only past a whole magic line: a shorter text has nothing after it to split. */
    line = rc == 0 ? strtok_r(copy + sizeof(SC__RECORD_MAGIC), "\n", &save) : NULL;
    for (; rc == 0 && line; line = strtok_r(NULL, "\n", &save))
        rc = sc__line(r, line, why, whylen);
    free(copy);
    return rc;
}

int sc_card_record_read(const char *text, size_t len, const char *sha, unsigned uid,
                        const char *name, sc_card **card, sc_diag *problems, char *why,
                        size_t whylen)
{
    sc__reader r = {.sha = sha, .uid = uid, .name = name, .problems = problems, .verdict = -1};
    char reason[600] = "";
    int rc = 0;

    *card = NULL;
    sc_diag_init(&r.assign);
    if (len > SC_CARD_RECORD_MAX_BYTES) {
        snprintf(reason, sizeof(reason), "it is longer than %d bytes", SC_CARD_RECORD_MAX_BYTES);
        rc = -EBADMSG;
    } else if (!(r.card = sc_card_new())) {
        rc = -ENOMEM;
    } else {
        r.card->from_record = true;
        free(r.card->source_name); /* messages name the card as the job named it */
        r.card->source_name = strdup(name);
        rc = r.card->source_name ? sc__read_lines(&r, text, len, reason, sizeof(reason)) : -ENOMEM;
    }
    if (rc == 0 && (!r.sha_seen || !r.uid_seen || r.verdict < 0 || !r.more_seen || !r.end_seen)) {
        snprintf(reason, sizeof(reason), "it is incomplete");
        rc = -EBADMSG;
    }
    if (rc == 0 && r.verdict == 0 && problems->count == 0) {
        snprintf(reason, sizeof(reason), "it refuses the card without saying why");
        rc = -EBADMSG;
    }
    if (rc == 0 && r.verdict == 1) {
        sc_diag_free(&r.assign);
        if (sc_card_check(r.card, &r.assign) < 0) {
            snprintf(reason, sizeof(reason), "the card rules refuse it: %s",
                     r.assign.count ? r.assign.lines[0] : "out of memory");
            rc = -EBADMSG;
        }
    }
    if (rc == 0 && r.verdict == 1) {
        *card = r.card;
        r.card = NULL;
    } else if (rc == 0) {
        rc = -EINVAL;
    }
    /* The reason may quote the record's bytes, which the user's process wrote: escaped. */
    if (rc == -EBADMSG && why && whylen)
        sc_text_escape(why, whylen, reason, strlen(reason));
    sc_card_free(r.card);
    sc_diag_free(&r.assign);
    return rc;
}
