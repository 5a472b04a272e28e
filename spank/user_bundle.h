/*
 * user_bundle.h: the bundle's files the plugin writes, as the job's user. They run in
 * slurm_spank_task_init, in the task after Slurm has dropped root for the job's user, in
 * the job's working directory: every path here is the user's, and so is every write.
 */
#ifndef SC_SPANK_USER_BUNDLE_H
#define SC_SPANK_USER_BUNDLE_H

#include "jobcard.h"
#include "pfctl.h"

#include <slurm/spank.h>

/* What the plugin learnt as root, for the bundle. */
typedef struct sc_user_bundle_in {
    const sc_jobcard *jc;
    const char *platform_before; /* the state before any change; NULL: not known */
    const sc_pfctl_evidence *ev; /* the change's evidence; NULL when nothing was changed */
    const char *sysroot;         /* the policy's; told to `streamcard run` unless "/" */
    const char *attest;          /* this node's signed statement (attest_sign.h); NULL: none */
} sc_user_bundle_in;

/*
 * In the step that runs `streamcard run`: creates the bundle in the working directory and
 * writes card.yaml, platform/before.txt, the platform change's evidence (prefetch/) and
 * this node's under its host name, then tells the task where they are (STREAMCARD_BUNDLE,
 * STREAMCARD_CARD, STREAMCARD_CARD_SHA256, STREAMCARD_SYSROOT). Returns 0 or -1 (logged).
 */
int sc_user_bundle_create(spank_t sp, const sc_user_bundle_in *in);

/*
 * In a step started inside the job (the card's ranks, on every node): this node's
 * evidence in the bundle the job's `streamcard run` made (STREAMCARD_BUNDLE), once per
 * node. Returns 0 or -1 (logged).
 */
int sc_user_bundle_add_node(spank_t sp, const sc_user_bundle_in *in);

#endif
