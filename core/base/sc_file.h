/*
 * sc_file.h: whole-file reads and writes relative to a directory descriptor.
 *
 * Everything the core reads or writes goes through a directory fd (a sysroot, a bundle,
 * /proc/<pid>), so tests can point it at a tree of their own and privileged callers can
 * refuse symlinks with O_NOFOLLOW.
 */
#ifndef SC_FILE_H
#define SC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Largest file sc_file_read_at() accepts (numa_maps of a big process can be megabytes). */
#define SC_FILE_MAX_READ (256u << 20)

/*
 * Reads the whole file rel (opened with extra_flags | O_RDONLY | O_CLOEXEC) into a
 * malloc'd, NUL-terminated buffer. Returns 0 or -errno (-EFBIG above max bytes).
 * len may be NULL.
 */
int sc_file_read_at(int dirfd, const char *rel, int extra_flags, size_t max, char **out,
                    size_t *len);

/* Reads from an open fd until EOF, as sc_file_read_at(). */
int sc_file_read_fd(int fd, size_t max, char **out, size_t *len);

/*
 * Replaces the file name in dirfd atomically with len bytes of buf: written to tmp (a
 * leftover removed first; created exclusively, not following a symlink, mode exactly
 * mode), synced, renamed over name, and the directory synced. On failure tmp is removed and
 * name is as it was. Returns 0 or -errno.
 */
int sc_file_replace_at(int dirfd, const char *name, const char *tmp, const void *buf, size_t len,
                       mode_t mode);

/* Writes all len bytes to fd, retrying short writes and EINTR. Returns 0 or -errno. */
int sc_file_write_all(int fd, const void *buf, size_t len);

/* Copies the first line of text (without '\n', trailing blanks removed) into buf. */
void sc_file_first_line(const char *text, char *buf, size_t buflen);

/* Whether path is a regular file this process may execute: 0, -EACCES (not a regular file,
   or not executable), or stat()'s -errno. */
int sc_file_is_program(const char *path);

/*
 * Whether path is an absolute path to a readable regular file that is an ELF shared object
 * (e_type ET_DYN, of this machine's class and byte order: <elf.h>'s header read as glibc
 * lays it out): 0, or -EINVAL with why (one phrase: "not an absolute path", "a directory",
 * "not an ELF file", ...).
 */
int sc_file_is_shared_object(const char *path, char *why, size_t len);

/* Whether a numa_maps text (/proc/<pid>/numa_maps) maps the file path: a " file=<path>"
   word. */
bool sc_file_maps_shows(const char *maps, const char *path);

/*
 * The executable regular file called name in the first directory of PATH that holds one
 * (/usr/bin:/bin when PATH is unset), as a malloc'd absolute path; directories of PATH that
 * are not absolute ("", ".") are skipped. NULL (errno ENOENT or ENOMEM) when none does.
 */
char *sc_file_which(const char *name);

#endif
