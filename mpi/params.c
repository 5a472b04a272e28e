/* params.c: the transport settings in force and their sources (see params.h). */
#include "params.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scm_params_mca_relevant(const char *name)
{
    static const char *const fw[] = {
        "pml", "btl", "mtl", "bml", "osc", "opal_common_ofi", "opal_common_ucx"};

    for (size_t i = 0; i < sizeof(fw) / sizeof(fw[0]); i++) {
        size_t n = strlen(fw[i]);
        if (!strncmp(name, fw[i], n) && (name[n] == '\0' || name[n] == '_'))
            return 1;
    }
    return 0;
}

static struct scm_param *scm__find(struct scm_params *ps, const char *name)
{
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->p[i].name, name))
            return &ps->p[i];
    return NULL;
}

/* A value as one line: control characters become '?'. */
static void scm__clean(char *s)
{
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            *s = '?';
}

void scm_params_add(struct scm_params *ps, const char *name, const char *source, const char *value)
{
    struct scm_param *p = scm__find(ps, name);

    if (!p && ps->n == SCM_MAX_PARAMS) {
        ps->dropped++;
        return;
    }
    if (!p)
        p = &ps->p[ps->n++];
    snprintf(p->name, sizeof(p->name), "%s", name);
    snprintf(p->source, sizeof(p->source), "%s", source);
    snprintf(p->value, sizeof(p->value), "%s", value);
    scm__clean(p->name);
    scm__clean(p->value);
}

void scm_params_from_env(struct scm_params *ps, char *const *envp)
{
    static const char mca[] = "OMPI_MCA_";
    char name[64];

    memset(ps, 0, sizeof(*ps));
    for (char *const *e = envp; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        size_t n = (size_t)(eq - *e);
        if (!strncmp(*e, mca, sizeof(mca) - 1)) {
            snprintf(name, sizeof(name), "%.*s", (int)(n - (sizeof(mca) - 1)),
                     *e + sizeof(mca) - 1);
            if (scm_params_mca_relevant(name))
                scm_params_add(ps, name, "environment", eq + 1);
        } else if (!strncmp(*e, "FI_", 3) || !strncmp(*e, "UCX_", 4)) {
            snprintf(name, sizeof(name), "%.*s", (int)n, *e);
            scm_params_add(ps, name, "environment", eq + 1);
        }
    }
}

/* One "name = value" line of a parameter file; 0 when it is one. */
static int scm__file_line(char *line, char **name, char **value)
{
    char *eq = strchr(line, '=');

    while (isspace((unsigned char)*line))
        line++;
    if (!eq || *line == '#' || line == eq)
        return -1;
    char *end = eq;
    while (end > line && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    char *v = eq + 1;
    while (isspace((unsigned char)*v))
        v++;
    v[strcspn(v, "\r\n")] = '\0';
    for (char *t = v + strlen(v); t > v && isspace((unsigned char)t[-1]);)
        *--t = '\0';
    *name = line;
    *value = v;
    return 0;
}

void scm_params_from_files(struct scm_params *ps, const char *files)
{
    char list[1024], line[512], source[128];

    snprintf(list, sizeof(list), "%s", files ? files : "");
    for (char *save = NULL, *path = strtok_r(list, ":", &save); path;
         path = strtok_r(NULL, ":", &save)) {
        FILE *f = fopen(path, "re");
        if (!f)
            continue; /* the user's file usually does not exist */
        snprintf(source, sizeof(source), "file:%s", path);
        while (fgets(line, sizeof(line), f)) {
            char *name, *value;
            if (scm__file_line(line, &name, &value) != 0 || !scm_params_mca_relevant(name))
                continue;
            if (!scm__find(ps, name)) /* the environment, then the first file listed, wins */
                scm_params_add(ps, name, source, value);
        }
        fclose(f);
    }
}

static int scm__cmp(const void *a, const void *b)
{
    const struct scm_param *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : strcmp(x->source, y->source);
}

void scm_params_sort(struct scm_params *ps)
{
    qsort(ps->p, (size_t)ps->n, sizeof(ps->p[0]), scm__cmp);
}
