/*
 * attest_store.h: what root keeps of its signed statements on the node, in
 * <state_dir>/attest/ (doc/contracts/attestation.md): a directory of root's, 0755, that users
 * may read a statement from by name.
 *
 *   job_<id>_<node>.apply                    the apply note: the run (restart count and
 *                                            start time, from Slurm) and the SHA-256 of the
 *                                            apply statement that started the job's change
 *                                            on the node; written in the task as root, read
 *                                            and removed by the restore
 *   job_<id>_<node>_<run>.restore.dsse.json  the restore statement of that run
 *
 * Kept bounded: after each restore the directory keeps the newest attest_keep files and
 * none older than attest_days (the policy's); one call looks at SC_ATTEST_STORE_SCAN
 * entries at most.
 */
#ifndef SC_SPANK_ATTEST_STORE_H
#define SC_SPANK_ATTEST_STORE_H

#include "journal.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SC_ATTEST_STORE_SCAN 4096    /* entries one prune looks at */
#define SC_ATTEST_STORE_TMP_AGE 3600 /* seconds after which a left temporary file goes */
#define SC_ATTEST_RUN_MAX 48         /* "<restart count>-<start time>" */

/* <state_dir>/attest/, made when missing (0755; the state directory becomes 0711). Refused
   unless it is root's (the caller's) and writable by nobody else. The descriptor or -errno. */
int sc_attest_store_open(const sc_statedir *d);

/* The names of a node's files for a job (see above). */
void sc_attest_store_restore_name(char *buf, size_t len, uint32_t job_id, const char *node,
                                  const char *run);

/* Writes the apply note (replacing one a crashed run left). 0 or -errno. */
int sc_attest_store_note(int dirfd, uint32_t job_id, const char *node, const char *run,
                         const char *sha256);

/* Reads the apply note and removes it: run and sha256 ("unknown" when there is none or it
   is not well formed). */
void sc_attest_store_take_note(int dirfd, uint32_t job_id, const char *node, char *run,
                               size_t runlen, char sha256[65]);

/*
 * Removes, among the first SC_ATTEST_STORE_SCAN entries of dirfd, the statement files
 * (job_*.restore.dsse.json, job_*.apply) older than max_age seconds at now and all but the
 * newest keep of the others, and temporary files (.job_*.tmp) older than
 * SC_ATTEST_STORE_TMP_AGE. A link of such a name is removed, never followed; other names
 * and other kinds of files are left alone. Returns how many were removed, or -errno.
 */
int sc_attest_store_prune(int dirfd, size_t keep, long max_age, time_t now);

#endif
