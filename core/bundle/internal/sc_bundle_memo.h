/*
 * sc_bundle_memo.h: internal to the bundle module: what one pass over a bundle someone else
 * wrote has seen (sc_bundle_remember(), doc/contracts/bundle.md, "One pass").
 *
 * The bundle is listed once; every file read through sc_bundle_read() is hashed from the
 * very bytes read (the bytes checked against SHA256SUMS are the bytes parsed), and its text
 * is kept when a second reader of the same pass may want it (a small file outside the
 * runs after the first: card.yaml, run.conf, results.json, the platform files, the first
 * run's snapshots), within SC_BUNDLE_MEMO_KEEP bytes in all. The directories the pass walked
 * stay open (at most SC_BUNDLE_MEMO_DIRS), so a run's eleven files do not reopen run-<i>/
 * eleven times.
 */
#ifndef SC_BUNDLE_MEMO_H
#define SC_BUNDLE_MEMO_H

#include "sc_diag.h"

#include <stdbool.h>
#include <stddef.h>

/* The most text a pass keeps for a second reader: the small files the facts read again
   after verify (a bundle at every cap keeps less than this beside its budget,
   doc/contracts/limits.md). */
#define SC_BUNDLE_MEMO_KEEP (16u << 20)
/* The directories a pass keeps open (a descriptor each). */
#define SC_BUNDLE_MEMO_DIRS 128

typedef struct sc_bundle_memo sc_bundle_memo;

/* A memo over a listing (paths sorted, taken over; rc and the problems the listing said, to
   be said again to each sc_bundle_list()). NULL on ENOMEM (paths freed). */
sc_bundle_memo *sc__memo_new(char **paths, size_t count, int list_rc, const sc_diag *problems);
void sc__memo_free(sc_bundle_memo *m);

/* The listing again, as sc_bundle_list() gives it: a copy of the paths, the problems
   appended to problems. Returns the listing's rc or -ENOMEM. */
int sc__memo_list(const sc_bundle_memo *m, char ***paths, size_t *count, sc_diag *problems);

/* The text of rel kept by this pass: 0 with a malloc'd copy (NUL-terminated), -ENOENT when
   none is kept, -ENOMEM. */
int sc__memo_text(const sc_bundle_memo *m, const char *rel, char **out, size_t *len);

/* The bytes of rel as read (len of them): hashed, and kept when a second reader may want
   them. A path the listing does not hold is not noted. 0 or -ENOMEM. */
int sc__memo_note(sc_bundle_memo *m, const char *rel, const char *text, size_t len);

/* Whether this pass read rel whole: its hash (hex) and size. */
bool sc__memo_hash(const sc_bundle_memo *m, const char *rel, char *hex, size_t *size);

/* A descriptor (dup'd, the caller closes it) of the directory dir ("run-2") this pass
   walked, or -ENOENT. */
int sc__memo_dir(const sc_bundle_memo *m, const char *dir, size_t len);
/* Keeps fd (dup'd) as the directory dir (len bytes) when there is room. */
void sc__memo_keep_dir(sc_bundle_memo *m, const char *dir, size_t len, int fd);

#endif
