/*
 * writer.h: the writes into one bundle being written, each failure counted and the first
 * kept with its reason. The writer owns the bundle's write errors: the end of the bundle (its
 * evidence gate, run.conf, the exit status) asks it what was lost, and nothing else counts
 * them (doc/contracts/bundle.md, "The evidence bundle").
 */
#ifndef SC_WRITER_H
#define SC_WRITER_H

#include "sc_bundle.h"

typedef struct sc_writer {
    int errors;      /* writes that failed */
    char first[256]; /* the first failure, "<file>: <why>"; "" while none failed */
} sc_writer;

/* Writes text (NULL: empty) as the bundle file rel; a failure is counted, kept when it is the
   first, and said on stderr. Returns 0 or -errno. */
int sc_writer_put(sc_writer *w, const sc_bundle *b, const char *rel, const char *text);
/* Counts errors failures made elsewhere (a run's observer), first the reason of theirs. */
void sc_writer_add(sc_writer *w, int errors, const char *first);

#endif
