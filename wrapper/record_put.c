/*
 * record_put.c: writing one file of a bundle being written (see record.h), through the
 * bundle's writer (writer.h), apart so that record.c and record_build.c both call it and
 * never each other back.
 */
#include "record.h"

int sc_record_put(sc_execution *x, const char *rel, const char *text)
{
    return sc_writer_put(&x->out, &x->b, rel, text);
}
