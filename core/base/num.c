/* num.c: figures as finite numbers only (see sc_num.h). */
#include "sc_num.h"
#include "sc_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_num_json(json_object *v, double *out)
{
    if (!v)
        return -ENOENT;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return -EINVAL;
    double d = json_object_get_double(v);
    if (!isfinite(d))
        return -ERANGE;
    *out = d;
    return 0;
}

int sc_num_get(json_object *o, const char *key, double *out)
{
    json_object *v = NULL;

    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
        return -ENOENT;
    return sc_num_json(v, out);
}

/* The length of the digits at p[0..n). */
static size_t sc__digits(const char *p, size_t n)
{
    size_t i = 0;

    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    return i;
}

int sc_num_text(const char *text, size_t len, double *out)
{
    char buf[128], *end;
    size_t i = 0, mant;

    /* [+-] digits [. digits] [(e|E) [+-] digits]: what a workload's printf writes. */
    if (i < len && (text[i] == '+' || text[i] == '-'))
        i++;
    mant = sc__digits(text + i, len - i);
    i += mant;
    if (i < len && text[i] == '.') {
        size_t frac = sc__digits(text + i + 1, len - i - 1);
        mant += frac;
        i += 1 + frac;
    }
    if (mant == 0)
        return -EINVAL;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (text[j] == '+' || text[j] == '-'))
            j++;
        size_t exp = sc__digits(text + j, len - j);
        if (exp == 0)
            return -EINVAL;
        i = j + exp;
    }
    if (i != len || len >= sizeof(buf))
        return -EINVAL;
    memcpy(buf, text, len);
    buf[len] = '\0';
    double d = strtod(buf, &end);
    if (*end)
        return -EINVAL;
    if (!isfinite(d))
        return -ERANGE;
    *out = d;
    return 0;
}

int sc_num_str(const char *text, double *out)
{
    return text ? sc_num_text(text, strlen(text), out) : -ENOENT;
}

/* The walk of sc_num_all_finite(): path holds the way down to v (used bytes of it). */
typedef struct sc__walk {
    char *path;
    size_t cap;
    size_t nodes;
    double bad; /* the number that is not finite */
    bool over;  /* beyond SC_NUM_MAX_NODES or SC_NUM_MAX_DEPTH */
} sc__walk;

static bool sc__finite_at(sc__walk *w, json_object *v, size_t used, int depth)
{
    if (++w->nodes > SC_NUM_MAX_NODES || depth > SC_NUM_MAX_DEPTH) {
        w->over = true;
        return false;
    }
    if (json_object_is_type(v, json_type_double)) {
        w->bad = json_object_get_double(v);
        return isfinite(w->bad);
    }
    if (json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            int n = snprintf(w->path + used, w->cap - used, "[%zu]", i);
            size_t next = n < 0 || (size_t)n >= w->cap - used ? w->cap - 1 : used + (size_t)n;
            if (!sc__finite_at(w, json_object_array_get_idx(v, i), next, depth + 1))
                return false;
        }
        w->path[used] = '\0';
    } else if (json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, key, val)
        {
            size_t next = used;
            if (used && next < w->cap - 1)
                w->path[next++] = '.';
            next += sc_text_escape(w->path + next, w->cap - next, key, strlen(key));
            if (!sc__finite_at(w, val, next, depth + 1))
                return false;
        }
        w->path[used] = '\0';
    }
    return true;
}

bool sc_num_all_finite(json_object *doc, char *where, size_t len)
{
    char path[256] = "";
    sc__walk w = {.path = path, .cap = sizeof(path)};
    bool ok = sc__finite_at(&w, doc, 0, 0);

    if (!ok && where && len) {
        if (w.over)
            snprintf(where, len, "more than %d values or %d levels", SC_NUM_MAX_NODES,
                     SC_NUM_MAX_DEPTH);
        else
            snprintf(where, len, "%s is %s", *path ? path : "the document",
                     isnan(w.bad) ? "NaN"
                     : w.bad > 0  ? "Infinity"
                                  : "-Infinity");
    }
    return ok;
}
