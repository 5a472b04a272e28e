/*
 * pfctl_call.h: internal to pfctl.c and pfctl_restore.c: the state of one facade call (its
 * control log, the platform and the locked state directory, each opened on first use) and
 * the restore shared by apply (rollback), release and the restores.
 */
#ifndef SC_PFCTL_CALL_H
#define SC_PFCTL_CALL_H

#include "journal.h"
#include "pfctl.h"
#include "platform.h"
#include "sc_kv.h"

typedef struct sc__pfctl_call {
    const sc_pfctl_config *cfg;
    sc_kv log;        /* the control log: one timestamped line per step */
    sc_kv notes;      /* lines of it for the node's log too (apply hands them over) */
    sc_platform plat; /* valid when plat_rc == 0 */
    int plat_rc;      /* 1 until sc__pfctl_call_platform(), then its result */
    sc_statedir dir;  /* open and locked after sc__pfctl_call_lock() */
} sc__pfctl_call;

void sc__pfctl_call_init(sc__pfctl_call *r, const sc_pfctl_config *cfg);
/* Unlocks, closes, and hands the control log to *log (NULL: frees it). */
void sc__pfctl_call_end(sc__pfctl_call *r, char **log);

/* Appends "<UTC time with ms> <formatted line>\n" to the control log. */
void sc__pfctl_call_logf(sc__pfctl_call *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, also kept as a note for the node's log (what an admin must hear of). */
void sc__pfctl_call_notef(sc__pfctl_call *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Opens the platform once and logs the CPU identification. Returns 0 or -errno. */
int sc__pfctl_call_platform(sc__pfctl_call *r, char *why, size_t whylen);

/* Opens the state directory and takes its lock. Returns 0 or -errno. */
int sc__pfctl_call_lock(sc__pfctl_call *r, char *why, size_t whylen);

/*
 * Writes the journal's originals back (masked, read back), governors too, continuing past
 * failures so that as much as possible is restored. A journal that read back whole
 * (damaged NULL) is removed when everything read back as journaled, else kept for another
 * try. A damaged one (damaged: why it could not be read) is never kept where it would keep
 * the node from taking platform jobs: what could be read of it is restored, the file is set
 * aside under a dated name (sc_journal_set_aside) and one line says so. Returns 0 or the
 * first failure.
 */
int sc__pfctl_call_restore(sc__pfctl_call *r, const sc_journal *j, const char *damaged);

#endif
