/*
 * attest_statement.c: the in-toto statement of what root did to a node's platform for a
 * job (sc_attest.h; doc/contracts/attestation.md): made by the plugin, read by verify from a
 * file the user may have written, so the reader takes known fields only, each bounded.
 */
#include "sc_attest.h"
#include "sc_hash.h"
#include "sc_text.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_attest_claims_subject(sc_attest_claims *c, const char *name, const char *text)
{
    if (c->n_subjects == SC_ATTEST_MAX_SUBJECTS || strlen(name) >= SC_ATTEST_MAX_FIELD)
        return -E2BIG;
    sc_attest_subject *s = &c->subjects[c->n_subjects];
    snprintf(s->name, sizeof(s->name), "%s", name);
    if (sc_hash_buf(text, strlen(text), s->sha256) < 0)
        return -EIO;
    c->n_subjects++;
    return 0;
}

int sc_attest_claims_state(sc_attest_claims *c, const char *kv_text)
{
    for (const char *p = kv_text; p && *p;) {
        size_t n = strcspn(p, "\n"), k = strcspn(p, "=");
        if (k < n && *p != '#' && k < sizeof(c->state[0].key) &&
            n - k - 1 < sizeof(c->state[0].value)) {
            if (c->n_state == SC_ATTEST_MAX_STATE)
                return -E2BIG;
            sc_attest_pair *pr = &c->state[c->n_state++];
            snprintf(pr->key, sizeof(pr->key), "%.*s", (int)k, p);
            snprintf(pr->value, sizeof(pr->value), "%.*s", (int)(n - k - 1), p + k + 1);
        }
        p += n + (p[n] != '\0');
    }
    return 0;
}

const char *sc_attest_claims_get(const sc_attest_claims *c, const char *key)
{
    const char *v = NULL;

    for (size_t i = 0; i < c->n_state; i++) /* the last one wins, as in sc_kv */
        if (strcmp(c->state[i].key, key) == 0)
            v = c->state[i].value;
    return v;
}

static void sc__add_str(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, json_object_new_string(value));
}

int sc_attest_statement_make(const sc_attest_claims *c, char **json)
{
    json_object *st = json_object_new_object(), *subjects = json_object_new_array();
    json_object *pred = json_object_new_object(), *state = json_object_new_object();
    json_object *plugin = json_object_new_object();

    *json = NULL;
    sc__add_str(st, "_type", SC_ATTEST_STATEMENT_TYPE);
    for (size_t i = 0; i < c->n_subjects; i++) {
        json_object *s = json_object_new_object(), *d = json_object_new_object();
        sc__add_str(s, "name", c->subjects[i].name);
        sc__add_str(d, "sha256", c->subjects[i].sha256);
        json_object_object_add(s, "digest", d);
        json_object_array_add(subjects, s);
    }
    json_object_object_add(st, "subject", subjects);
    sc__add_str(st, "predicateType", SC_ATTEST_PREDICATE_TYPE);
    sc__add_str(pred, "phase", c->phase);
    sc__add_str(pred, "role", c->role);
    json_object_object_add(pred, "job_id", json_object_new_int64(c->job_id));
    sc__add_str(pred, "step", c->step);
    json_object_object_add(pred, "uid", json_object_new_int64(c->uid));
    sc__add_str(pred, "user", c->user);
    sc__add_str(pred, "node", c->node);
    sc__add_str(pred, "time", c->time);
    sc__add_str(pred, "card_sha256", c->card_sha256);
    sc__add_str(pred, "job_cpus", c->job_cpus);
    sc__add_str(pred, "job_mems", c->job_mems);
    sc__add_str(pred, "kernel_tainted", c->kernel_tainted);
    sc__add_str(pred, "microcode", c->microcode);
    sc__add_str(plugin, "version", c->plugin_version);
    sc__add_str(plugin, "build", c->plugin_build);
    json_object_object_add(pred, "plugin", plugin);
    json_object_object_add(pred, "result", json_object_new_int(c->result));
    for (size_t i = 0; i < c->n_state; i++)
        sc__add_str(state, c->state[i].key, c->state[i].value);
    json_object_object_add(pred, "state", state);
    json_object_object_add(st, "predicate", pred);
    const char *text =
        json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    *json = text ? strdup(text) : NULL;
    json_object_put(st);
    return *json ? 0 : -ENOMEM;
}

/* ---- reading ---- */

typedef struct sc__reader {
    char *why;
    size_t whylen;
} sc__reader;

static int sc__bad(sc__reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sc__bad(sc__reader *r, const char *fmt, ...)
{
    va_list ap;

    if (r->why && r->whylen) {
        va_start(ap, fmt);
        vsnprintf(r->why, r->whylen, fmt, ap);
        va_end(ap);
    }
    return -EBADMSG;
}

/* A text field: a string of printable ASCII shorter than size. */
static int sc__text(sc__reader *r, json_object *v, const char *key, char *out, size_t size)
{
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    size_t n = s ? (size_t)json_object_get_string_len(v) : 0;

    if (!s || n >= size)
        return sc__bad(r, "statement: %s: not a string of at most %zu characters", key, size - 1);
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            return sc__bad(r, "statement: %s: not printable ASCII", key);
    memcpy(out, s, n + 1);
    return 0;
}

static int sc__uint32(sc__reader *r, json_object *v, const char *key, uint32_t *out)
{
    int64_t x = json_object_get_int64(v);

    if (!json_object_is_type(v, json_type_int) || x < 0 || x > UINT32_MAX)
        return sc__bad(r, "statement: %s: not a 32-bit unsigned integer", key);
    *out = (uint32_t)x;
    return 0;
}

static int sc__subjects(sc__reader *r, json_object *v, sc_attest_claims *c)
{
    json_object *name, *digest, *sha;
    size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;

    if (n == 0 || n > SC_ATTEST_MAX_SUBJECTS)
        return sc__bad(r, "statement: subject: not a list of 1 to %d artifacts",
                       SC_ATTEST_MAX_SUBJECTS);
    for (size_t i = 0; i < n; i++) {
        json_object *s = json_object_array_get_idx(v, i);
        sc_attest_subject *o = &c->subjects[i];
        if (!json_object_is_type(s, json_type_object) || json_object_object_length(s) != 2 ||
            !json_object_object_get_ex(s, "name", &name) ||
            !json_object_object_get_ex(s, "digest", &digest) ||
            !json_object_is_type(digest, json_type_object) ||
            json_object_object_length(digest) != 1 ||
            !json_object_object_get_ex(digest, "sha256", &sha))
            return sc__bad(r, "statement: subject %zu: not {name, digest: {sha256}}", i);
        if (sc__text(r, name, "subject name", o->name, sizeof(o->name)) < 0 ||
            sc__text(r, sha, "subject sha256", o->sha256, sizeof(o->sha256)) < 0)
            return -EBADMSG;
        if (strlen(o->sha256) != SC_ATTEST_FPR_LEN ||
            strspn(o->sha256, "0123456789abcdef") != SC_ATTEST_FPR_LEN)
            return sc__bad(r, "statement: subject %zu: sha256 is not 64 hex digits", i);
    }
    c->n_subjects = n;
    return 0;
}

static int sc__state(sc__reader *r, json_object *v, sc_attest_claims *c)
{
    if (!json_object_is_type(v, json_type_object) ||
        json_object_object_length(v) > SC_ATTEST_MAX_STATE)
        return sc__bad(r, "statement: state: not an object of at most %d values",
                       SC_ATTEST_MAX_STATE);
    json_object_object_foreach(v, key, value)
    {
        sc_attest_pair *p = &c->state[c->n_state];
        if (strlen(key) >= sizeof(p->key))
            return sc__bad(r, "statement: state: a key longer than %zu", sizeof(p->key) - 1);
        snprintf(p->key, sizeof(p->key), "%s", key);
        if (sc__text(r, value, "state value", p->value, sizeof(p->value)) < 0)
            return -EBADMSG;
        c->n_state++;
    }
    return 0;
}

static int sc__predicate_field(sc__reader *r, sc_attest_claims *c, const char *key, json_object *v)
{
    const struct {
        const char *name;
        char *out;
        size_t size;
    } texts[] = {{"phase", c->phase, sizeof(c->phase)},
                 {"role", c->role, sizeof(c->role)},
                 {"step", c->step, sizeof(c->step)},
                 {"user", c->user, sizeof(c->user)},
                 {"node", c->node, sizeof(c->node)},
                 {"time", c->time, sizeof(c->time)},
                 {"card_sha256", c->card_sha256, sizeof(c->card_sha256)},
                 {"job_cpus", c->job_cpus, sizeof(c->job_cpus)},
                 {"job_mems", c->job_mems, sizeof(c->job_mems)},
                 {"kernel_tainted", c->kernel_tainted, sizeof(c->kernel_tainted)},
                 {"microcode", c->microcode, sizeof(c->microcode)}};
    json_object *pv, *pb;

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if (strcmp(key, texts[i].name) == 0)
            return sc__text(r, v, key, texts[i].out, texts[i].size);
    if (strcmp(key, "job_id") == 0)
        return sc__uint32(r, v, key, &c->job_id);
    if (strcmp(key, "uid") == 0)
        return sc__uint32(r, v, key, &c->uid);
    if (strcmp(key, "result") == 0) {
        int64_t x = json_object_get_int64(v);
        if (!json_object_is_type(v, json_type_int) || x < -4095 || x > 0)
            return sc__bad(r, "statement: result: not 0 or -errno");
        c->result = (int)x;
        return 0;
    }
    if (strcmp(key, "state") == 0)
        return sc__state(r, v, c);
    if (strcmp(key, "plugin") == 0) {
        if (!json_object_is_type(v, json_type_object) || json_object_object_length(v) != 2 ||
            !json_object_object_get_ex(v, "version", &pv) ||
            !json_object_object_get_ex(v, "build", &pb))
            return sc__bad(r, "statement: plugin: not {version, build}");
        if (sc__text(r, pv, "plugin version", c->plugin_version, sizeof(c->plugin_version)) < 0)
            return -EBADMSG;
        return sc__text(r, pb, "plugin build", c->plugin_build, sizeof(c->plugin_build));
    }
    char shown[64]; /* the attacker's text, escaped and cut */
    sc_text_escape(shown, sizeof(shown), key, strlen(key));
    return sc__bad(r, "statement: predicate: unknown field %s", shown);
}

static int sc__predicate(sc__reader *r, json_object *v, sc_attest_claims *c)
{
    if (!json_object_is_type(v, json_type_object) || json_object_object_length(v) != 16)
        return sc__bad(r, "statement: predicate: not an object of the 16 fields of %s",
                       SC_ATTEST_PREDICATE_TYPE);
    json_object_object_foreach(v, key, value)
    {
        if (sc__predicate_field(r, c, key, value) < 0)
            return -EBADMSG;
    }
    return 0;
}

int sc_attest_statement_parse(const char *json, size_t len, sc_attest_claims *c, char *why,
                              size_t whylen)
{
    sc__reader r = {why, whylen};
    json_object *st = NULL, *v;
    json_tokener *tok;
    const char *type;
    int rc;

    memset(c, 0, sizeof(*c));
    if (len > SC_ATTEST_MAX_ENVELOPE)
        return sc__bad(&r, "statement: larger than %d bytes", SC_ATTEST_MAX_ENVELOPE);
    if (!(tok = json_tokener_new_ex(5)))
        return -ENOMEM;
    st = json_tokener_parse_ex(tok, json, (int)len);
    if (st && (json_tokener_get_error(tok) != json_tokener_success ||
               !json_object_is_type(st, json_type_object) || json_object_object_length(st) != 4)) {
        json_object_put(st);
        st = NULL;
    }
    json_tokener_free(tok);
    if (!st)
        return sc__bad(&r, "statement: not a JSON object of _type, subject, predicateType, "
                           "predicate");
    rc = json_object_object_get_ex(st, "_type", &v) && (type = json_object_get_string(v)) &&
                 json_object_is_type(v, json_type_string) &&
                 strcmp(type, SC_ATTEST_STATEMENT_TYPE) == 0
             ? 0
             : sc__bad(&r, "statement: _type is not %s", SC_ATTEST_STATEMENT_TYPE);
    if (rc == 0 && !(json_object_object_get_ex(st, "predicateType", &v) &&
                     json_object_is_type(v, json_type_string) &&
                     strcmp(json_object_get_string(v), SC_ATTEST_PREDICATE_TYPE) == 0))
        rc = sc__bad(&r, "statement: predicateType is not %s", SC_ATTEST_PREDICATE_TYPE);
    if (rc == 0)
        rc = json_object_object_get_ex(st, "subject", &v) ? sc__subjects(&r, v, c)
                                                          : sc__bad(&r, "statement: no subject");
    if (rc == 0)
        rc = json_object_object_get_ex(st, "predicate", &v)
                 ? sc__predicate(&r, v, c)
                 : sc__bad(&r, "statement: no predicate");
    json_object_put(st);
    if (rc < 0)
        memset(c, 0, sizeof(*c));
    return rc;
}
