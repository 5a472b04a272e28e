/*
 * policy.h: the admin's policy for the plugin, from its plugstack.conf arguments
 * (space-separated key=value), e.g.
 *   required /usr/lib/slurm/spank_streamcard.so allow=prefetch,governor require_exclusive=yes
 * Keys: allow= (what users may change: prefetch, governor; default nothing),
 * require_exclusive=yes|no (platform changes only on a node the job has to itself;
 * default yes), state_dir=PATH (root-owned restore journals; default /run/streamcard),
 * sysroot=PATH (where /sys, /proc/cpuinfo and /dev/cpu are looked up; tests only),
 * key=PATH (the node's private signing key, %n the node's short name; without key= the
 * default /etc/streamcard/node.key when it exists, else the node does not sign: keys are
 * opt-in, doc/contracts/attestation.md), check_user=NAME (the account the card check runs as;
 * default streamcard-check), attest_keep=COUNT and attest_days=DAYS (the signed statements
 * kept in <state_dir>/attest/: the newest COUNT, none older than DAYS; defaults 512 and 30).
 */
#ifndef SC_POLICY_H
#define SC_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define SC_POLICY_STATE_DIR "/run/streamcard"
/* The node's signing key (sc_attest.h); "%n" stands for the node's short name. */
#define SC_POLICY_KEY "/etc/streamcard/node.key"
#define SC_POLICY_CHECK_USER "streamcard-check" /* the card check's account */
#define SC_POLICY_ATTEST_KEEP 512               /* statements kept in <state_dir>/attest/ */
#define SC_POLICY_ATTEST_DAYS 30                /* and none older than this */
#define SC_POLICY_ATTEST_KEEP_MAX 65536

typedef struct sc_policy {
    bool allow_prefetch, allow_governor;
    bool require_exclusive;
    char state_dir[512];
    char sysroot[512];
    char key[512];
    bool key_given; /* key= was given: a key that is missing or unusable is an error */
    char check_user[33];
    long attest_keep, attest_days;
} sc_policy;

/* Parses the arguments; unknown keys and bad values are errors with a reason in why. */
int sc_policy_parse(sc_policy *p, int argc, char *const argv[], char *why, size_t whylen);

/* The policy file of a node without Slurm, under the sysroot, for `streamcard run --platform
   apply` as root (doc/contracts/platform.md, "Set by the CLI as root"). */
#define SC_POLICY_FILE "etc/streamcard/policy"
#define SC_POLICY_FILE_ARGS 32 /* at most this many key=value words in it */

/*
 * The same arguments as a text (the policy file): words separated by blanks or newlines, a
 * '#' comments out the rest of its line. More than SC_POLICY_FILE_ARGS words, or a control
 * character, is an error; otherwise sc_policy_parse()'s rules and defaults.
 */
int sc_policy_parse_text(sc_policy *p, const char *text, char *why, size_t whylen);

/* The key's path with "%n" replaced by node (the node's short name). 0 or -ENAMETOOLONG. */
int sc_policy_key_path(const sc_policy *p, const char *node, char *out, size_t len);

/*
 * Whether the node signs (doc/contracts/attestation.md, "Keys"): key= was given, or there is
 * something at the default key's path. Without either no key is configured: the node does
 * not sign, and slurmd says so once at its start (sc_policy_key_state()), not every job.
 */
bool sc_policy_key_wanted(const sc_policy *p);

/*
 * The node's key as slurmd's start sees it, for one line of its log: 0 something is at the
 * key's path (it is read and checked when a job signs); 1 no key configured (why: an info
 * line naming streamcard keygen); -ENOENT key= names a file that is not there (why: an
 * error line, sc_policy_key_missing()). It only looks.
 */
int sc_policy_key_state(const sc_policy *p, const char *node, char *why, size_t whylen);

/* The line for a configured key file that is not there, naming the command that makes it:
   streamcard keygen --out <its directory>. */
void sc_policy_key_missing(const char *path, char *why, size_t whylen);

#endif
