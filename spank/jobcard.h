/*
 * jobcard.h: the card that travels with the job. At submission (sbatch, salloc or srun,
 * as the user) the card file is read and checked, and its bytes, SHA-256 and file name go
 * into the job's environment as SLURM_STREAMCARD_CARD_* (SLURM_ variables reach the job
 * even with --export=NONE). On the node slurmstepd (root) takes the card from there, never
 * from a path the user names, checks its size before decoding it and its SHA-256 after, and
 * has it parsed and checked by the card check under its own account (card_child.h); root
 * reads only the check's record (core/card/sc_card_record.h), and holds it to the card's bytes. A user
 * can set these variables by hand (plain sbatch, no --stream-card, no cli_filter): the node side
 * stands alone.
 */
#ifndef SC_SPANK_JOBCARD_H
#define SC_SPANK_JOBCARD_H

#include "sc_card.h"
#include "sc_card_record.h"
#include "sc_diag.h"
#include "sc_hash.h"

#include <slurm/spank.h>

#define SC_JOBCARD_ENV_B64 "SLURM_STREAMCARD_CARD_B64"
#define SC_JOBCARD_ENV_SHA "SLURM_STREAMCARD_CARD_SHA256"
#define SC_JOBCARD_ENV_NAME "SLURM_STREAMCARD_CARD_NAME"
/* The base64 text of a card of SC_CARD_MAX_BYTES: a longer variable is refused undecoded. */
#define SC_JOBCARD_MAX_B64 (4 * ((SC_CARD_MAX_BYTES + 2) / 3))
#define SC_JOBCARD_NAME_MAX 100 /* bytes of the card's name kept for messages */

/* The card as the job received it. */
typedef struct sc_jobcard {
    sc_card *card; /* the card's record read back: the fields root acts on, checked */
    char *text;    /* its bytes, as submitted */
    char sha[SC_HASH_HEX_LEN + 1];
} sc_jobcard;

/*
 * sbatch/salloc/srun, as the user: reads the card file at path, checks it with the rules
 * of `streamcard run --dry-run` minus the machine (a card of one run: a sweep is submitted
 * one job per value, `streamcard run CARD --submit`), and puts its bytes, SHA-256 and name
 * in this process's environment for the job. An srun inside a job that already carries a
 * card does nothing. Returns 0, or -1 with every problem logged (the submission fails).
 */
int sc_jobcard_send(const char *path);

/*
 * slurmstepd, as root: the card from the job's environment (at most SC_JOBCARD_MAX_B64
 * bytes of base64), checked against its SHA-256, then parsed and checked by the card check
 * as check_user (the policy's; a node without that account refuses every card). Returns 1 when the
 * job has none (not a --stream-card job), 0 with jc filled, or -1 when it is unusable: each problem
 * logged (at most SC_CARD_RECORD_PROBLEMS and a count of the rest) and kept in problems, so that
 * the task can say it again in the job's output (slurmstepd's messages reach only slurmd's log).
 */
int sc_jobcard_receive(spank_t sp, sc_jobcard *jc, const char *check_user, sc_diag *problems);

void sc_jobcard_free(sc_jobcard *jc);

/* Logs each problem of d as "streamcard: <problem>" and, when keep is not NULL, keeps it. */
void sc_jobcard_report(const sc_diag *d, sc_diag *keep);

#endif
