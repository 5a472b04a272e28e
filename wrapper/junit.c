/* junit.c: the JUnit XML report (see junit.h). */
#include "junit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sc_junit {
    char *path, *suite;
    char *body;
    size_t len;
    FILE *mem;
    unsigned tests, failures, skipped, errors;
};

/* XML text or attribute value: the five escapes; C0 controls XML 1.0 forbids (all but
   tab, newline, return) and DEL as '?'. Bytes >= 0x80 are kept: the texts are valid UTF-8
   (safe text, sc_text.h). */
static void sc__xml(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&apos;", out);
            break;
        default:
            fputc((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f ? '?' : *p,
                  out);
        }
    }
}

sc_junit *sc_junit_new(const char *path, const char *suite)
{
    sc_junit *j = calloc(1, sizeof(*j));

    if (!j)
        return NULL;
    j->path = strdup(path);
    j->suite = strdup(suite);
    j->mem = open_memstream(&j->body, &j->len);
    if (!j->path || !j->suite || !j->mem) {
        if (j->mem)
            fclose(j->mem);
        free(j->body);
        free(j->path);
        free(j->suite);
        free(j);
        return NULL;
    }
    return j;
}

void sc_junit_case(sc_junit *j, const char *classname, const char *name, sc_junit_kind kind,
                   const char *message, const char *text)
{
    static const char *const tags[] = {NULL, "failure", "skipped", "error"};

    j->tests++;
    j->failures += kind == SC_JUNIT_FAILURE;
    j->skipped += kind == SC_JUNIT_SKIPPED;
    j->errors += kind == SC_JUNIT_ERROR;
    fputs("  <testcase classname=\"", j->mem);
    sc__xml(j->mem, classname);
    fputs("\" name=\"", j->mem);
    sc__xml(j->mem, name);
    fputs("\">\n", j->mem);
    if (kind != SC_JUNIT_PASS) {
        fprintf(j->mem, "    <%s message=\"", tags[kind]);
        sc__xml(j->mem, message);
        fputs("\">", j->mem);
        sc__xml(j->mem, text);
        fprintf(j->mem, "</%s>\n", tags[kind]);
    } else if (text) {
        fputs("    <system-out>", j->mem);
        sc__xml(j->mem, text);
        fputs("</system-out>\n", j->mem);
    }
    fputs("  </testcase>\n", j->mem);
}

int sc_junit_write(sc_junit *j, const char *cmd)
{
    char *tmp = NULL;
    FILE *out = NULL;
    int rc = 0;

    if (fclose(j->mem) != 0 || asprintf(&tmp, "%s.tmp", j->path) < 0) {
        tmp = NULL;
        rc = -ENOMEM;
    } else if (!(out = fopen(tmp, "w"))) {
        rc = -errno;
    } else {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"", out);
        sc__xml(out, j->suite);
        fprintf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", j->tests,
                j->failures, j->errors, j->skipped);
        fwrite(j->body, 1, j->len, out);
        fputs("</testsuite>\n</testsuites>\n", out);
        if (fclose(out) != 0 || rename(tmp, j->path) < 0)
            rc = -errno;
    }
    if (rc < 0) {
        fprintf(stderr, "streamcard: %s: --junit %s: %s (valid: a file in a writable folder)\n",
                cmd, j->path, strerror(-rc));
        if (tmp)
            unlink(tmp);
    }
    free(tmp);
    free(j->body);
    free(j->path);
    free(j->suite);
    free(j);
    return rc;
}
