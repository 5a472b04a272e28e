/* writer.c: the writes into one bundle, their failures counted (see writer.h). */
#include "writer.h"

#include <stdio.h>
#include <string.h>

int sc_writer_put(sc_writer *w, const sc_bundle *b, const char *rel, const char *text)
{
    int rc = sc_bundle_write_str(b, rel, text ? text : "");

    if (rc < 0) {
        char why[sizeof(w->first)];
        snprintf(why, sizeof(why), "%s: %s", rel, strerror(-rc));
        sc_writer_add(w, 1, why);
        fprintf(stderr, "streamcard: writing %s/%s failed: %s\n", b->path, rel, strerror(-rc));
    }
    return rc;
}

void sc_writer_add(sc_writer *w, int errors, const char *first)
{
    if (errors <= 0)
        return;
    if (!w->errors)
        snprintf(w->first, sizeof(w->first), "%s", first ? first : "");
    w->errors += errors;
}
