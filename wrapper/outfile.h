/*
 * outfile.h: a file a command writes for someone else to read (export -o, report -o, history
 * report -o): whole or not at all, never through a link (doc/contracts/analysis.md, "Output
 * files").
 *
 * The text goes to a new temporary file beside the target, made with mkstemp (a name of its
 * own, O_EXCL: two writers never share one), then is flushed, fsync'd, given the mode a new
 * file would get (0666 less the umask), and renamed over the target, and the directory is
 * fsync'd. A reader (node_exporter's textfile collector) sees the old file or the new one,
 * never a part; of two writers at once the last rename wins, with a complete file. A target
 * that is a symlink, or anything but a regular file, is refused before anything is written
 * (rename would replace a link put there later, never write through it). The temporary
 * name, ".<name>.XXXXXX", starts with a dot and does not end in the target's suffix, so a
 * collector that reads "*.prom" never reads it.
 */
#ifndef SC_OUTFILE_H
#define SC_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct sc_outfile {
    FILE *f;    /* where to write: the temporary file, or stdout for "-" */
    char *path; /* the target (malloc'd); NULL for stdout */
    char *tmp;  /* the temporary file's path (malloc'd) */
} sc_outfile;

/*
 * Opens o for path ("-": stdout, written as it goes). 0, or -errno with one line in why
 * (what failed, why, what would be valid): -ELOOP a symlink at path, -EINVAL path is there
 * but not a regular file, else why the temporary file could not be made.
 */
int sc_outfile_open(sc_outfile *o, const char *path, char *why, size_t len);

/* Makes the written text the target's (see above); frees o. 0, or -errno with one line in
   why (the temporary file removed, the target as it was). */
int sc_outfile_commit(sc_outfile *o, char *why, size_t len);

/* Drops what was written (the temporary file removed, the target as it was); frees o. Safe
   on a zeroed o. */
void sc_outfile_abort(sc_outfile *o);

#endif
