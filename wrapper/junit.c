/* junit.c: the JUnit XML report (see junit.h). */
#include "junit.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sc_junit {
    sc_outfile file; /* opened at once: a bad path is said before the command's work */
    char *suite, *cmd, *path;
    char *body; /* the test cases, until the counts of the suite's head are known */
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

/* Frees j's memory (the output file already committed or aborted). */
static void sc__free(sc_junit *j)
{
    if (j->mem)
        fclose(j->mem);
    free(j->body);
    free(j->suite);
    free(j->cmd);
    free(j->path);
    free(j);
}

sc_junit *sc_junit_new(const char *path, const char *suite, const char *cmd)
{
    sc_junit *j = calloc(1, sizeof(*j));
    char why[4096 + 256];

    if (!j || !(j->suite = strdup(suite)) || !(j->cmd = strdup(cmd)) || !(j->path = strdup(path)) ||
        !(j->mem = open_memstream(&j->body, &j->len))) {
        fprintf(stderr, "streamcard: %s: --junit %s: %s\n", cmd, path, strerror(ENOMEM));
        if (j)
            sc__free(j);
        return NULL;
    }
    if (sc_outfile_open(&j->file, path, why, sizeof(why)) < 0) {
        fprintf(stderr, "streamcard: %s: --junit %s\n", cmd, why);
        sc__free(j);
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

int sc_junit_write(sc_junit *j)
{
    FILE *out = j->file.f;
    char why[4096 + 256];
    int rc = fclose(j->mem) == 0 ? 0 : -ENOMEM;

    j->mem = NULL;
    if (rc == 0) {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"", out);
        sc__xml(out, j->suite);
        fprintf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", j->tests,
                j->failures, j->errors, j->skipped);
        fwrite(j->body, 1, j->len, out);
        fputs("</testsuite>\n</testsuites>\n", out);
        if (ferror(out))
            rc = -EIO;
    }
    if (rc < 0) {
        snprintf(why, sizeof(why), "%s: %s (the file is as it was)", j->path, strerror(-rc));
        sc_outfile_abort(&j->file);
    } else {
        rc = sc_outfile_commit(&j->file, why, sizeof(why));
    }
    if (rc < 0)
        fprintf(stderr, "streamcard: %s: --junit %s\n", j->cmd, why);
    sc__free(j);
    return rc;
}

void sc_junit_abort(sc_junit *j)
{
    if (!j)
        return;
    sc_outfile_abort(&j->file);
    sc__free(j);
}
