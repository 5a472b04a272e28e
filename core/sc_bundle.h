/*
 * sc_bundle.h: the evidence bundle directory of one run (layout in doc/design.md, "The
 * evidence bundle").
 *
 * All access goes through the bundle's directory fd: files are created with O_NOFOLLOW
 * and subdirectories opened one component at a time with O_NOFOLLOW, so a symlink
 * planted inside the bundle is never followed. sc_bundle_seal() writes SHA256SUMS over
 * every regular file (sorted, "hash  path" lines that `sha256sum -c` accepts);
 * sc_bundle_check_sums() finds edited, missing and added files.
 */
#ifndef SC_BUNDLE_H
#define SC_BUNDLE_H

#include "sc_diag.h"

#include <stddef.h>
#include <time.h>

#define SC_BUNDLE_SUMS "SHA256SUMS"
/* The process name (comm, at most 15 characters) of streamcard run's guardian, which seals
   the bundle when streamcard run is killed; the plugin waits for it by this name. */
#define SC_BUNDLE_GUARDIAN_COMM "streamcard-seal"

typedef struct sc_bundle {
    int dirfd;
    char *path;
} sc_bundle;

/*
 * Creates <parent>/<name>_<YYYYMMDD_HHMMSS> (local time of when; "_2", "_3"... appended
 * if it exists), creating parent and its missing ancestors. Returns 0 or -errno.
 */
int sc_bundle_create(sc_bundle *b, const char *parent, const char *name, time_t when);
/* Opens an existing bundle directory (the final component must not be a symlink). */
int sc_bundle_open(sc_bundle *b, const char *path);
void sc_bundle_close(sc_bundle *b);

/* Opens rel ("prefetch/state/state.env") for writing, creating parents. fd or -errno. */
int sc_bundle_open_file(const sc_bundle *b, const char *rel, int flags, int mode);
/* Writes a whole file (replacing it). Returns 0 or -errno. */
int sc_bundle_write(const sc_bundle *b, const char *rel, const void *data, size_t len);
int sc_bundle_write_str(const sc_bundle *b, const char *rel, const char *text);
/*
 * Reserves bytes of disk for the file rel (created empty): the files written last
 * (results.json, run.conf, SHA256SUMS) are reserved when the bundle is made, so a disk
 * that fills during the run cannot keep the run's verdict and hashes from being written.
 * 0, or -errno (-ENOSPC: not even that much room). Unsupported filesystems return 0.
 */
int sc_bundle_reserve(const sc_bundle *b, const char *rel, size_t bytes);

/* Reads a whole file of the bundle; -ENOENT when absent. */
int sc_bundle_read(const sc_bundle *b, const char *rel, char **out, size_t *len);

/* The text of an optional file of the bundle (malloc'd); NULL when it cannot be read. */
char *sc_bundle_read_opt(const sc_bundle *b, const char *rel);

/*
 * Lists every file of the bundle except SHA256SUMS, sorted, as relative paths (malloc'd
 * array of malloc'd strings). Anything that is not a regular file or a directory
 * (symlinks, fifos) is reported in problems and left out. Returns 0 or -errno.
 */
int sc_bundle_list(const sc_bundle *b, char ***paths, size_t *count, sc_diag *problems);
void sc_bundle_list_free(char **paths, size_t count);

/* Writes SHA256SUMS. Returns 0 or -errno (a problem listing the files is an error). */
int sc_bundle_seal(const sc_bundle *b);

/* Checks SHA256SUMS: appends one line per edited, missing or added file. 0 when clean. */
int sc_bundle_check_sums(const sc_bundle *b, sc_diag *problems);

#endif
