/*
 * study_compare.c: `streamcard compare --study STUDY A B` (study.h): a study record declares,
 * per row, the card keys its steps change against the baseline (study.json "differs"); two
 * rows of one study may differ in what the two rows declare, and in nothing else. The
 * record is trusted only once sc_study_load() finds no problem (its sums, every row
 * recomputed from its bundle, the declarations recomputed from its card.yaml); the bundles'
 * real differences are still compared one by one with what is declared.
 */
#include "study.h"
#include "cli.h"
#include "sc_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds the card keys row declares (its "differs") to p->keys. 0 or -ENOMEM. */
static int sc__add_keys(sc_study_pair *p, json_object *row)
{
    json_object *differs;

    if (!json_object_object_get_ex(row, "differs", &differs) ||
        !json_object_is_type(differs, json_type_array))
        return 0;
    size_t n = json_object_array_length(differs);
    const char **grown = realloc(p->keys, (p->n_keys + n + 1) * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    p->keys = grown;
    for (size_t i = 0; i < n; i++) {
        json_object *k = json_object_array_get_idx(differs, i);
        if (json_object_is_type(k, json_type_string))
            p->keys[p->n_keys++] = json_object_get_string(k);
    }
    return 0;
}

static const char *sc__label(json_object *row)
{
    json_object *v;
    return json_object_object_get_ex(row, "label", &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : "?";
}

int sc_study_pair_load(sc_study_pair *p, const char *study, const char *const bundle[2])
{
    char shown[1024];
    sc_diag problems;
    int status = SC_EXIT_OK;

    memset(p, 0, sizeof(*p));
    sc_text_escape(shown, sizeof(shown), study, strlen(study));
    sc_diag_init(&problems);
    if (sc_study_load(study, NULL, &problems, &p->record) < 0 || !p->record) {
        sc_diag_print(&problems, "streamcard: compare: --study: ", stderr);
        fprintf(stderr,
                "streamcard: compare: --study %s: not a study record that can be opened "
                "(valid: the STUDY=<dir> streamcard run printed)\n",
                shown);
        status = SC_EXIT_USAGE;
        goto out;
    }
    if (problems.count) {
        sc_diag_print(&problems, "streamcard: compare: --study: ", stderr);
        fprintf(stderr,
                "streamcard: compare: --study %s: the study record does not verify (%zu "
                "problem%s): its declared differences are not trusted (valid: a record "
                "streamcard verify accepts)\n",
                shown, problems.count + problems.more,
                problems.count + problems.more == 1 ? "" : "s");
        status = SC_EXIT_FAILED;
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        p->row[i] = sc_study_row_of(p->record, study, bundle[i]);
        if (!p->row[i]) {
            char b[1024];
            sc_text_escape(b, sizeof(b), bundle[i], strlen(bundle[i]));
            fprintf(stderr,
                    "streamcard: compare: %s: not a bundle of the study %s (valid: two "
                    "bundles its table names, beside it)\n",
                    b, shown);
            status = SC_EXIT_FAILED;
            goto out;
        }
        if (sc__add_keys(p, p->row[i]) < 0) {
            status = SC_EXIT_ERROR;
            goto out;
        }
    }
    p->label[0] = sc__label(p->row[0]);
    p->label[1] = sc__label(p->row[1]);
out:
    sc_diag_free(&problems);
    if (status != SC_EXIT_OK)
        sc_study_pair_free(p);
    return status;
}

void sc_study_pair_free(sc_study_pair *p)
{
    free(p->keys);
    json_object_put(p->record);
    memset(p, 0, sizeof(*p));
}

/* Whether the pair declares card key key (exactly). */
static bool sc__declares_key(const sc_study_pair *p, const char *key)
{
    for (size_t i = 0; i < p->n_keys; i++)
        if (!strcmp(p->keys[i], key))
            return true;
    return false;
}

bool sc_study_pair_declares(const sc_study_pair *p, const sc_bundle_facts *a,
                            const sc_bundle_facts *b, size_t var, char *undeclared, size_t len)
{
    const char *name = a->vars[var].name;
    char names[1024], key[300];
    size_t used = 0;

    *undeclared = '\0';
    if (strcmp(name, "env") != 0) {
        for (size_t i = 0; i < p->n_keys; i++)
            if (sc_facts_key_changes(p->keys[i], name))
                return true;
        snprintf(undeclared, len, "%s", name);
        return false;
    }
    /* env: each variable of it that differs must be declared by its own name. */
    if (!sc_facts_env_diff(a, b, names, sizeof(names))) {
        snprintf(undeclared, len, "env"); /* differs, but in no variable: not recorded alike */
        return false;
    }
    for (const char *s = names; *s && used < len;) {
        size_t n = strcspn(s, ",");
        snprintf(key, sizeof(key), "env.%.*s", (int)n, s);
        if (!sc__declares_key(p, key))
            used += (size_t)snprintf(undeclared + used, len - used, "%s%s", used ? ", " : "env ",
                                     key + 4);
        s += n;
        s += strspn(s, ", ");
    }
    return used == 0;
}

void sc_study_pair_keys(const sc_study_pair *p, char *buf, size_t len)
{
    size_t used = 0;

    *buf = '\0';
    for (size_t i = 0; i < p->n_keys && used < len; i++) {
        bool again = false;
        for (size_t j = 0; j < i; j++)
            again |= !strcmp(p->keys[i], p->keys[j]);
        if (!again)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", p->keys[i]);
    }
    if (!used)
        snprintf(buf, len, "nothing");
}
