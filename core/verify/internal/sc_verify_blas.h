/*
 * sc_verify_blas.h: internal to verify: a card's blas: a path (a library of the user's,
 * preloaded) was really used. build.json's blas_preload names the card's path and the file
 * it resolved to; every run whose snapshot (numa_maps_at_ready.txt) shows mappings must map
 * that file (a program that ended before its snapshot shows none).
 */
#ifndef SC_VERIFY_BLAS_H
#define SC_VERIFY_BLAS_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_diag.h"

#include <stddef.h>

/* Adds a problem when build.json (its text; NULL: missing, said elsewhere) does not record
   the card's blas: path, or a snapshot of one of the n runs does not map it. */
void sc_verify_blas_preload(const sc_bundle *b, const sc_card *card, const char *build, size_t n,
                            sc_diag *problems);

#endif
