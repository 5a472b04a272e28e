/*
 * journal.h: the restore journal of platform changes, one file per job in a root-owned
 * state directory.
 *
 * Before anything is written to the platform, the originals (per CPU and register the
 * value and mask; per CPU the governor), the requested settings and the holders (the step
 * daemons using the change, with their start times) are written to job_<jobid>.journal and
 * fsync'd, file and directory. Steps of one job share one change: each adds itself as a
 * holder; the last one to leave restores the originals and removes the journal. A holder
 * is alive while /proc/<pid> exists with the recorded start time (pids are reused).
 *
 * The file is text, one "key=value" per line (the format is in journal.c). It is replaced
 * atomically (temporary file, fsync, rename, fsync of the directory), so a reader sees the
 * old or the new version, never half of one. All operations on the directory run under an
 * flock on <state_dir>/streamcard.lock (sc_statedir_lock()).
 *
 * Errors: 0 or -errno, with one line in why (may be NULL).
 */
#ifndef SC_JOURNAL_H
#define SC_JOURNAL_H

#include "sc_card.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SC_JOURNAL_NAME_MAX 32 /* governor and arch names */

typedef struct sc_journal_msr {
    unsigned cpu;
    uint32_t reg;
    uint64_t mask; /* the bits the change touches */
    uint64_t orig; /* the whole register before the change */
} sc_journal_msr;

typedef struct sc_journal_gov {
    unsigned cpu;
    char orig[SC_JOURNAL_NAME_MAX];
} sc_journal_gov;

typedef struct sc_journal_holder {
    pid_t pid;
    unsigned long long start; /* field 22 of /proc/<pid>/stat, clock ticks after boot */
} sc_journal_holder;

typedef struct sc_journal {
    uint32_t job_id;
    sc_prefetch prefetch;               /* the request */
    char governor[SC_JOURNAL_NAME_MAX]; /* "unchanged" or a governor name */
    hwloc_bitmap_t cpus;                /* the CPUs the request covers */
    char arch[SC_JOURNAL_NAME_MAX];     /* sc_arch_name() when the journal was written */
    sc_journal_msr *msr;
    size_t n_msr;
    sc_journal_gov *gov;
    size_t n_gov;
    sc_journal_holder *holders;
    size_t n_holders;
} sc_journal;

typedef struct sc_statedir {
    int fd;      /* the directory, O_DIRECTORY */
    int lock_fd; /* streamcard.lock, -1 until sc_statedir_lock() */
    char *path;  /* for messages */
} sc_statedir;

/* An empty journal for job_id (governor "unchanged"). Returns 0 or -ENOMEM. */
int sc_journal_init(sc_journal *j, uint32_t job_id);
/* Frees everything; accepts NULL and a journal whose init failed. */
void sc_journal_free(sc_journal *j);

int sc_journal_add_msr(sc_journal *j, const sc_journal_msr *rec);
int sc_journal_add_gov(sc_journal *j, unsigned cpu, const char *orig);
/* Adds a holder unless the same pid is already there. Returns 0 or -ENOMEM. */
int sc_journal_add_holder(sc_journal *j, pid_t pid, unsigned long long start);
/* Removes pid; returns true when it was a holder. */
bool sc_journal_remove_holder(sc_journal *j, pid_t pid);
/* Removes every holder that is no longer alive; returns how many live ones remain. */
size_t sc_journal_prune_holders(sc_journal *j);
/* True when the journal records the same request (prefetch, governor, cpus). */
bool sc_journal_same_request(const sc_journal *j, sc_prefetch prefetch, const char *governor,
                             hwloc_const_bitmap_t cpus);

/* The journal as text, malloc'd; NULL on ENOMEM. */
char *sc_journal_format(const sc_journal *j);
/*
 * Parses text into j (initialised by the caller with sc_journal_init(); its job= line must
 * name j->job_id, so a journal copied to another job's name is refused). A malformed
 * journal gives -EBADMSG with the first bad line in why; j then still holds every record
 * that parsed, so a restore can do what it safely can.
 */
int sc_journal_parse(const char *text, sc_journal *j, char *why, size_t whylen);

/* The start time of a live process (field 22 of /proc/<pid>/stat). Returns 0 or -errno. */
int sc_proc_start_time(pid_t pid, unsigned long long *start);
/* True when pid runs and started at start (not a reused pid). */
bool sc_journal_holder_alive(const sc_journal_holder *h);

/*
 * Opens the state directory, creating it 0700 when missing (its parent must exist). Refuses
 * a symlink, a non-directory, a directory owned by neither root nor the effective uid, and
 * one that group or others can write.
 */
int sc_statedir_open(sc_statedir *d, const char *path, char *why, size_t whylen);
/* Unlocks and closes; accepts a directory whose open failed. */
void sc_statedir_close(sc_statedir *d);
/* Takes the exclusive lock, waiting at most 30 s (-EBUSY after that). */
int sc_statedir_lock(sc_statedir *d, char *why, size_t whylen);
void sc_statedir_unlock(sc_statedir *d);

/*
 * Loads job_<job_id>.journal into j (initialised by the caller). Returns 0, -ENOENT when
 * there is none, -EBADMSG when it is corrupt (j holds what parsed), or another -errno.
 */
int sc_journal_load(const sc_statedir *d, uint32_t job_id, sc_journal *j, char *why, size_t whylen);
/* Writes j atomically and durably (see above); -EFBIG, writing nothing, when its text would
   be longer than a journal may be (4 MiB, what sc_journal_load() reads). */
int sc_journal_store(const sc_statedir *d, const sc_journal *j, char *why, size_t whylen);
/* Removes job_<job_id>.journal and syncs the directory. -ENOENT when there is none. */
int sc_journal_remove(const sc_statedir *d, uint32_t job_id, char *why, size_t whylen);
/* The job ids that have a journal, ascending, malloc'd (NULL when none). */
int sc_journal_list(const sc_statedir *d, uint32_t **jobs, size_t *count);

/* What a damaged journal is renamed to, with its name and the time after it. */
#define SC_JOURNAL_DAMAGED "damaged_"

/*
 * Moves job_<job_id>.journal aside as damaged_job_<job_id>.journal.<UTC time> (never over
 * another file), for an admin, and syncs the directory: a journal that cannot be read is
 * restored as far as it can be, then set aside, so that it never keeps the node from taking
 * platform jobs. aside receives the new name. Returns 0 or -errno.
 */
int sc_journal_set_aside(const sc_statedir *d, uint32_t job_id, char *aside, size_t asidelen,
                         char *why, size_t whylen);

/* The names of the damaged journals set aside, malloc'd (each and the array). */
int sc_journal_list_damaged(const sc_statedir *d, char ***names, size_t *count);

#endif
