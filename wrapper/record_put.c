/*
 * record_put.c: writing one file of a bundle being written (see record.h), apart so that
 * record.c and record_build.c both call it and never each other back.
 */
#include "record.h"

#include <stdio.h>
#include <string.h>

int sc_record_put(sc_execution *x, const char *rel, const char *text)
{
    int rc = sc_bundle_write_str(&x->b, rel, text ? text : "");

    if (rc < 0) {
        if (!x->write_errors++)
            snprintf(x->write_error, sizeof(x->write_error), "%s: %s", rel, strerror(-rc));
        fprintf(stderr, "streamcard: writing %s/%s failed: %s\n", x->b.path, rel, strerror(-rc));
    }
    return rc;
}
