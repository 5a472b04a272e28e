/*
 * sc_answercache.h: what a program answered (a workload's --build-info), remembered between
 * runs, so that a run does not start the workload once more (loading a 36 MB BLAS and
 * starting its threads) only to ask what it is.
 *
 * An entry is found by its key, a text the caller makes of everything the answer may depend
 * on besides files (the program's path, this host and its boot, the environment that steers
 * the dynamic loader and the libraries), and holds the files the answer depends on (the
 * program, the libraries it names) with their identity as sc_hashcache.h compares it
 * (device, inode, size, mtime and ctime to the nanosecond). It is returned only while every
 * one of those files is unchanged; what no identity can show (which files the loader picks
 * for the next run) is the caller's to check against the run (wrapper/record_build.c: the
 * libraries the workload mapped).
 *
 * The cache is <dir>/answers-v1 (the directory of sc_hashcache_default_dir()), trusted as
 * the hash cache is; blocks of lines, the newest last:
 *
 *   v1 <sha256 of the key>
 *   f <dev> <ino> <size> <mtime_s>.<mtime_ns> <ctime_s>.<ctime_ns> <path>   (each file)
 *   a <a line of the answer>                                               (each line)
 *   .
 *
 * A block that does not parse, a cache too big or not ours, any error reading or writing it
 * means "not cached", never an error.
 */
#ifndef SC_ANSWERCACHE_H
#define SC_ANSWERCACHE_H

#include <stddef.h>

#define SC_ANSWERCACHE_FILE "answers-v1"
#define SC_ANSWERCACHE_MAX_ENTRIES 16
#define SC_ANSWERCACHE_MAX_BYTES (64u << 10)
#define SC_ANSWERCACHE_MAX_FILES 8

/*
 * The answer remembered for key in dir (malloc'd into *answer): 0 when an entry has this
 * key and every file it depends on is still the same file, unchanged; -ENOENT otherwise
 * (no entry, a changed file, no cache we trust), -ENOMEM.
 */
int sc_answercache_get(const char *dir, const char *key, char **answer);

/*
 * This host's name and boot (the kernel's boot_id, one line), what an answer that holds until
 * the machine restarts is keyed on, into host and boot (hostlen, bootlen bytes). 0, or -1
 * when either cannot be read.
 */
int sc_answercache_host_boot(char *host, size_t hostlen, char *boot, size_t bootlen);

/*
 * Remembers answer for key, depending on the n files named in files (each stat'ed now: a
 * file that cannot be, more than SC_ANSWERCACHE_MAX_FILES, or an answer too large for the
 * cache, and nothing is remembered). Replaces an entry of the same key; keeps the newest
 * SC_ANSWERCACHE_MAX_ENTRIES. 0, or -errno when nothing was remembered (never an error for
 * the caller: the next run asks again).
 */
int sc_answercache_put(const char *dir, const char *key, const char *answer,
                       const char *const *files, size_t n);

#endif
