/* mpistack.c: the MPI stack's libraries and settings, for compare and build.json (see
   sc_mpistack.h). */
#include "sc_mpistack.h"
#include "sc_trace_protocol.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_mpi_lib_parse(const char *text, sc_mpi_lib *out)
{
    int used = 0;

    memset(out, 0, sizeof(*out));
    if (sscanf(text,
               SC_TRACE_AFTER_TAG(SC_TRACE_MPI_LIBRARY("%ld", "%15s", "%15s", "%71s", "%511s") "%n",
                                  SC_TRACE_TAG_MPI_LIBRARY),
               &out->rank, out->name, out->loaded, out->sha256, out->path, &used) != 5 ||
        !used)
        return -EINVAL;
    snprintf(out->version, sizeof(out->version), "%s", text + used);
    return 0;
}

/* One setting as one rank reported it (TRACE_MPI_PARAM after its tag). */
typedef struct sc__param {
    long rank;
    char name[64], source[160];
    const char *value;
} sc__param;

static int sc__param_parse(const char *text, sc__param *out)
{
    int used = 0;

    if (sscanf(text,
               SC_TRACE_AFTER_TAG(SC_TRACE_MPI_PARAM("%ld", "%63s", "%159s") "%n",
                                  SC_TRACE_TAG_MPI_PARAM),
               &out->rank, out->name, out->source, &used) != 3 ||
        !used)
        return -EINVAL;
    out->value = text + used;
    return 0;
}

/* Calls fn(value, arg) for every run.conf line "key=value" (in a copy: NUL-terminated). */
static int sc__each(const char *run_conf, const char *key, int (*fn)(const char *, void *),
                    void *arg)
{
    size_t k = strlen(key);

    for (const char *p = run_conf ? run_conf : ""; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > k && !strncmp(p, key, k) && p[k] == '=') {
            char *value = strndup(p + k + 1, n - k - 1);
            int rc = value ? fn(value, arg) : -ENOMEM;
            free(value);
            if (rc < 0)
                return rc;
        }
        p += n + (p[n] == '\n');
    }
    return 0;
}

/* Appends printf-style text to *out ("" to start); frees and NULLs it on ENOMEM. */
static void sc__cat(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sc__cat(char **out, const char *fmt, ...)
{
    char *more = NULL, *both = NULL;
    va_list ap;

    if (!*out)
        return;
    va_start(ap, fmt);
    int n = vasprintf(&more, fmt, ap);
    va_end(ap);
    if (n < 0 || asprintf(&both, "%s%s", *out, more) < 0)
        both = NULL;
    free(more);
    free(*out);
    *out = both;
}

/* What sc_mpistack_library() collects: per rank, the identity of each library named. */
typedef struct sc__libs {
    const char *names;
    long ranks[64];
    char *ident[64];
    size_t n;
} sc__libs;

static int sc__lib_line(const char *value, void *arg)
{
    sc__libs *l = arg;
    sc_mpi_lib lib;
    size_t i;

    if (sc_mpi_lib_parse(value, &lib) != 0)
        return 0;
    char pad[32];
    snprintf(pad, sizeof(pad), " %s ", lib.name);
    char names[128];
    snprintf(names, sizeof(names), " %s ", l->names);
    if (!strstr(names, pad))
        return 0;
    for (i = 0; i < l->n && l->ranks[i] != lib.rank; i++)
        ;
    if (i == l->n) {
        if (l->n == sizeof(l->ranks) / sizeof(l->ranks[0]))
            return 0; /* more ranks than compared: the first 64 stand for the run */
        l->ranks[l->n] = lib.rank;
        l->ident[l->n++] = strdup("");
    }
    bool two = strchr(l->names, ' ') != NULL;
    if (!strcmp(lib.loaded, "no"))
        sc__cat(&l->ident[i], "%s%s%snot loaded", l->ident[i] && *l->ident[i] ? ", " : "",
                two ? lib.name : "", two ? " " : "");
    else
        sc__cat(&l->ident[i], "%s%s%s%.*s sha256:%s", l->ident[i] && *l->ident[i] ? ", " : "",
                two ? lib.name : "", two ? " " : "", (int)strcspn(lib.version, ","), lib.version,
                lib.sha256); /* "Open MPI v4.1.4": the rest of its line is in run.conf */
    return l->ident[i] ? 0 : -ENOMEM;
}

char *sc_mpistack_library(const char *run_conf, const char *names)
{
    sc__libs l = {.names = names};
    char *out = NULL;

    if (sc__each(run_conf, "mpi_library", sc__lib_line, &l) < 0)
        goto out_free;
    if (l.n == 0) {
        out = strdup("unavailable");
        goto out_free;
    }
    out = strdup(l.ident[0]);
    for (size_t i = 1; i < l.n; i++)
        if (strcmp(l.ident[i], l.ident[0]) != 0)
            sc__cat(&out, " | rank %ld: %s", l.ranks[i], l.ident[i]);
out_free:
    for (size_t i = 0; i < l.n; i++)
        free(l.ident[i]);
    return out;
}

/* What sc_mpistack_settings() collects: rank 0's settings the card's env does not make. */
typedef struct sc__settings {
    const sc_card *card;
    char *out;
    int count;
} sc__settings;

/* True when the card's env sets the variable behind setting name. */
static bool sc__card_sets(const sc_card *card, const char *name)
{
    for (size_t i = 0; card && i < card->n_env; i++) {
        const char *k = card->env[i].key;
        if (!strcmp(k, name) || (!strncmp(k, "OMPI_MCA_", 9) && !strcmp(k + 9, name)))
            return true;
    }
    return false;
}

static int sc__setting_line(const char *value, void *arg)
{
    sc__settings *s = arg;
    sc__param p;

    if (sc__param_parse(value, &p) != 0 || p.rank != 0 || sc__card_sets(s->card, p.name))
        return 0;
    sc__cat(&s->out, "%s%s=%s (%s)", s->count++ ? "; " : "", p.name, p.value, p.source);
    return s->out ? 0 : -ENOMEM;
}

char *sc_mpistack_settings(const char *run_conf, const sc_card *card)
{
    sc__settings s = {.card = card, .out = strdup("")};

    if (sc__each(run_conf, "mpi_param", sc__setting_line, &s) < 0) {
        free(s.out);
        return NULL;
    }
    if (s.out && s.count == 0) {
        free(s.out);
        return strdup("none");
    }
    return s.out; /* the workload prints them in name order */
}

/* What sc_mpistack_providers() collects: rank 0's list, and each rank's that differs. */
typedef struct sc__providers {
    char *first, *out;
} sc__providers;

static int sc__providers_line(const char *value, void *arg)
{
    sc__providers *p = arg;
    const char *fi = strstr(value, " fi_info=");
    long rank = -1;

    if (!fi || sscanf(value, "rank=%ld", &rank) != 1)
        return 0;
    fi += strlen(" fi_info=");
    if (!p->first) {
        p->first = strdup(fi);
        sc__cat(&p->out, "%s", fi);
    } else if (strcmp(p->first, fi) != 0) {
        sc__cat(&p->out, " | rank %ld: %s", rank, fi);
    }
    return p->out && p->first ? 0 : -ENOMEM;
}

char *sc_mpistack_providers(const char *run_conf)
{
    sc__providers p = {.first = NULL, .out = strdup("")};

    if (p.out && sc__each(run_conf, "transport_rank", sc__providers_line, &p) < 0) {
        free(p.out);
        p.out = NULL;
    }
    if (p.out && !p.first) {
        free(p.out);
        p.out = strdup("unavailable");
    }
    free(p.first);
    return p.out;
}

json_object *sc_mpistack_json(const sc_tracelog *t)
{
    const sc_text_list *libs = &t->mpi[SC_MPI_LIBRARY], *params = &t->mpi[SC_MPI_PARAM];

    if (!libs->n && !params->n)
        return NULL;
    json_object *root = json_object_new_object(), *la = json_object_new_array();
    json_object *pa = json_object_new_array();
    for (size_t i = 0; i < libs->n; i++) {
        sc_mpi_lib lib;
        if (sc_mpi_lib_parse(libs->items[i], &lib) != 0)
            continue;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "rank", json_object_new_int64(lib.rank));
        json_object_object_add(o, "name", json_object_new_string(lib.name));
        json_object_object_add(o, "loaded", json_object_new_string(lib.loaded));
        json_object_object_add(o, "sha256", json_object_new_string(lib.sha256));
        json_object_object_add(o, "path", json_object_new_string(lib.path));
        json_object_object_add(o, "version", json_object_new_string(lib.version));
        json_object_array_add(la, o);
    }
    for (size_t i = 0; i < params->n; i++) {
        sc__param p;
        if (sc__param_parse(params->items[i], &p) != 0)
            continue;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "rank", json_object_new_int64(p.rank));
        json_object_object_add(o, "name", json_object_new_string(p.name));
        json_object_object_add(o, "source", json_object_new_string(p.source));
        json_object_object_add(o, "value", json_object_new_string(p.value));
        json_object_array_add(pa, o);
    }
    json_object_object_add(root, "libraries", la);
    json_object_object_add(root, "settings", pa);
    return root;
}
