/*
 * sc_bundle.h: the evidence bundle directory of one run (layout in doc/contracts/bundle.md, "The
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

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define SC_BUNDLE_SUMS "SHA256SUMS"
/* The process name (comm, at most 15 characters) of streamcard run's guardian, which seals
   the bundle when streamcard run is killed; the plugin waits for it by this name. */
#define SC_BUNDLE_GUARDIAN_COMM "streamcard-seal"

typedef struct sc_bundle {
    int dirfd;
    char *path;
    /* what one pass has seen (sc_bundle_remember()); NULL: every read opens its file */
    struct sc_bundle_memo *memo;
} sc_bundle;

/*
 * Creates <parent>/<name>_<YYYYMMDD_HHMMSS> (local time of when; "_2", "_3"... appended
 * if it exists), creating parent and its missing ancestors. Returns 0 or -errno.
 */
int sc_bundle_create(sc_bundle *b, const char *parent, const char *name, time_t when);
/* Opens an existing bundle directory (the final component must not be a symlink). */
int sc_bundle_open(sc_bundle *b, const char *path);
void sc_bundle_close(sc_bundle *b);

/*
 * Reads the opened bundle b in one pass from now until it is closed (doc/contracts/bundle.md,
 * "One pass"): it is listed once (sc_bundle_list() gives that listing again); each file
 * read whole (sc_bundle_read()) is hashed from the bytes read, so sc_bundle_check_sums()
 * opens only the files nobody read, and the bytes held to SHA256SUMS are the bytes parsed;
 * a small file outside the runs after the first is kept for a second reader, and the
 * directories walked stay open. Every check of the reader above holds as before. 0, or
 * -ENOMEM (b reads as without it).
 */
int sc_bundle_remember(sc_bundle *b);

/* Opens rel ("prefetch/state/state.env") for writing, creating parents. fd or -errno. */
int sc_bundle_open_file(const sc_bundle *b, const char *rel, int flags, int mode);
/* Writes a whole file (replacing it). Returns 0 or -errno. */
int sc_bundle_write(const sc_bundle *b, const char *rel, const void *data, size_t len);
int sc_bundle_write_str(const sc_bundle *b, const char *rel, const char *text);
/*
 * A file made ahead of its name: an unnamed file (O_TMPFILE) in rel's directory (created),
 * so that the file system's work of making a file (an inode: half a millisecond on ext4
 * without a journal where many files were deleted lately) is done before the moment that
 * counts, such as the snapshots at main_loop_begin, which the workload waits for.
 * sc_bundle_write_ahead() writes it and gives it its name; one that never gets a name
 * vanishes when it is closed. Returns the descriptor, or -errno (-EOPNOTSUPP: the file
 * system has no unnamed files; sc_bundle_write() then makes the file as usual).
 */
int sc_bundle_ahead(const sc_bundle *b, const char *rel);
/*
 * Writes a whole file rel as sc_bundle_write() does, into fd (from sc_bundle_ahead() for
 * that rel, taken over and closed; -1: none), which gets the name rel. When rel exists
 * already or the name cannot be given, the file made ahead is dropped and rel written in
 * place. Returns 0 or -errno.
 */
int sc_bundle_write_ahead(const sc_bundle *b, int fd, const char *rel, const void *data,
                          size_t len);

/*
 * Reserves bytes of disk for the file rel (created empty): the files written last
 * (results.json, run.conf, SHA256SUMS) are reserved when the bundle is made, so a disk
 * that fills during the run cannot keep the run's verdict and hashes from being written.
 * 0, or -errno (-ENOSPC: not even that much room). Unsupported filesystems return 0.
 */
int sc_bundle_reserve(const sc_bundle *b, const char *rel, size_t bytes);

/*
 * Reading a bundle someone else wrote (verify, compare, classify, report, export and the
 * NHC check run as an admin, often root, over users' files) is bounded: every file is
 * opened relative to the bundle's directory fd with O_NOFOLLOW in every component,
 * O_NONBLOCK (a fifo is refused, never waited on) and O_NOCTTY, checked with fstat to be
 * a regular file, and read or hashed within a cap for its kind (doc/contracts/bundle.md, "Reading
 * a bundle"). A bundle as a whole is hashed within SC_BUNDLE_MAX_BYTES and listed within
 * SC_BUNDLE_MAX_FILES entries.
 */
#define SC_BUNDLE_CAP_LOG (64u << 20)   /* *.log: stream.log, prefetch/control.log */
#define SC_BUNDLE_CAP_JSON (4u << 20)   /* *.json: results.json, build.json */
#define SC_BUNDLE_CAP_KV (1u << 20)     /* key=value: *.conf, *.env, *.ready, platform/ *.txt */
#define SC_BUNDLE_CAP_SUMS (16u << 20)  /* SHA256SUMS */
#define SC_BUNDLE_CAP_OTHER (16u << 20) /* snapshots (numa_maps, status), anything else */
/* matrix/<bytes>B.csv, one size of a link matrix: its reader holds it to the cap of its node
   count too (sc_pairs_csv_cap()) */
#define SC_BUNDLE_CAP_MATRIX (128u << 20)
#define SC_BUNDLE_MAX_BYTES (256u << 20) /* all files of a bundle, hashed */
#define SC_BUNDLE_MAX_FILES 131072u      /* entries of a bundle, listed */

/* The most bytes a bundle file may hold, by its name: card.yaml the card's own cap
   (SC_CARD_MAX_BYTES), then the caps above. */
size_t sc_bundle_cap(const char *rel);

/*
 * Opens the file rel ("stream.log", "run-2/stream.log") of the bundle for reading as
 * described above. Returns an fd (its size in *size, may be NULL), -ELOOP for a symlink,
 * -EINVAL for anything that is not a regular file (a fifo, a socket, a device),
 * -EFBIG above sc_bundle_cap(rel), or another -errno.
 */
int sc_bundle_open_read(const sc_bundle *b, const char *rel, size_t *size);

/* What sc_bundle_open_read()'s error rc means for rel, as a short phrase for a message
   ("a symlink (never followed)", "over the 64 MiB cap of a log"). Static or in buf. */
const char *sc_bundle_read_error(const char *rel, int rc, char *buf, size_t len);

/* Reads a whole file of the bundle (sc_bundle_open_read()); -ENOENT when absent. */
int sc_bundle_read(const sc_bundle *b, const char *rel, char **out, size_t *len);

/* The text of an optional file of the bundle (malloc'd); NULL when it cannot be read. */
char *sc_bundle_read_opt(const sc_bundle *b, const char *rel);

/* Hashes the file rel of the bundle, streamed, as sc_bundle_open_read() opens it (or as the
   pass read it, sc_bundle_remember()). */
int sc_bundle_hash(const sc_bundle *b, const char *rel, char hex[65]);

/* Whether the pass over b (sc_bundle_remember()) read rel whole: true with its hash. */
bool sc_bundle_hash_seen(const sc_bundle *b, const char *rel, char hex[65]);

/*
 * Lists every file of the bundle except SHA256SUMS, sorted, as relative paths (malloc'd
 * array of malloc'd strings). Anything that is not a regular file or a directory
 * (symlinks, fifos) is reported in problems and left out. Returns 0 or -errno.
 */
int sc_bundle_list(const sc_bundle *b, char ***paths, size_t *count, sc_diag *problems);
void sc_bundle_list_free(char **paths, size_t count);

/* Writes SHA256SUMS. Returns 0 or -errno (a problem listing the files is an error). */
int sc_bundle_seal(const sc_bundle *b);

/* Checks SHA256SUMS: appends one line per edited, missing, added or unreadable file (a
   file over its cap is not hashed; the bundle is hashed within SC_BUNDLE_MAX_BYTES), and
   one when the files cannot all be listed (too many, nested too deep, unreadable, out of
   memory): no failure leaves the list without a line. O(n log n) in the files and lines.
   0 when clean, -EINVAL with problems, -ENOMEM. */
int sc_bundle_check_sums(const sc_bundle *b, sc_diag *problems);

#endif
