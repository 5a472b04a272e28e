/*
 * sc_attest.h: node keys and signed statements (doc/contracts/attestation.md).
 *
 * A node key is an Ed25519 key pair made with OpenSSL: node.key (PEM, PKCS#8, mode 0600,
 * root's) and node.pub (PEM, SubjectPublicKeyInfo). A key is named everywhere by its
 * fingerprint: the SHA-256 of its 32 raw public bytes, as 64 hex digits. The plugin signs
 * with the private key (as root); verify trusts every *.pub of a directory (several at
 * once: key rotation).
 *
 * A signed statement is an in-toto Statement v1 (JSON) in a DSSE envelope:
 *   {"payloadType": "application/vnd.in-toto+json", "payload": <base64 of the statement>,
 *    "signatures": [{"keyid": <fingerprint>, "sig": <base64 Ed25519 signature>}]}
 * signed over DSSE's pre-authentication encoding
 *   "DSSEv1" SP len(type) SP type SP len(body) SP body   (lengths in ASCII decimal).
 * Everything read here may be an attacker's: envelopes, key files and statements are read
 * bounded in size and in fields.
 *
 * Errors: 0 or -errno; a why buffer (may be NULL) says what failed in one line.
 */
#ifndef SC_ATTEST_H
#define SC_ATTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_ATTEST_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define SC_ATTEST_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
/* Our predicate: what root did to and read back from a node's platform for a job. */
#define SC_ATTEST_PREDICATE_TYPE "https://streamcard.dev/attestation/platform/v1"
#define SC_ATTEST_FPR_LEN 64               /* hex digits of a fingerprint */
#define SC_ATTEST_MAX_ENVELOPE (64 * 1024) /* an envelope, and a statement, read at most */
#define SC_ATTEST_MAX_KEYFILE (16 * 1024)  /* a PEM key file read at most */
#define SC_ATTEST_MAX_KEYS 64              /* trusted keys of one directory */
#define SC_ATTEST_MAX_SIGNATURES 8         /* signatures of one envelope looked at */
#define SC_ATTEST_DEFAULT_KEYS "/etc/streamcard/keys"
#define SC_ATTEST_DEFAULT_KEY "/etc/streamcard/node.key"

typedef struct sc_attest_key sc_attest_key; /* one Ed25519 key, private or public */

/* A set of trusted public keys. */
typedef struct sc_attest_keyring {
    sc_attest_key *keys[SC_ATTEST_MAX_KEYS];
    size_t n;
} sc_attest_keyring;

/*
 * Makes a key pair: dir/node.key (0600, created exclusively: an existing key is never
 * overwritten) and dir/node.pub (0644). fpr receives the fingerprint. dir must exist.
 */
int sc_attest_keygen(const char *dir, char fpr[SC_ATTEST_FPR_LEN + 1], char *why, size_t whylen);

/* Loads a private key (a regular file, not a symlink, at most SC_ATTEST_MAX_KEYFILE). */
int sc_attest_key_load_private(const char *path, sc_attest_key **out, char *why, size_t whylen);
/* Loads a public key likewise. */
int sc_attest_key_load_public(const char *path, sc_attest_key **out, char *why, size_t whylen);
void sc_attest_key_free(sc_attest_key *k);
const char *sc_attest_key_fingerprint(const sc_attest_key *k);

/*
 * Loads every *.pub of dir (not following symlinks; at most SC_ATTEST_MAX_KEYS). A file
 * that is not a key is skipped and named in why. Returns 0 (ring->n may be 0), -ENOENT
 * when dir does not exist, other -errno.
 */
int sc_attest_keyring_load(sc_attest_keyring *ring, const char *dir, char *why, size_t whylen);
void sc_attest_keyring_free(sc_attest_keyring *ring);

/* Signs payload (a statement) into a DSSE envelope (malloc'd JSON text). */
int sc_attest_sign(const sc_attest_key *k, const char *payload, size_t len, char **envelope);

/*
 * Opens an envelope: its payload type must be in-toto's and one of its signatures must
 * verify with a key of ring. Returns 0 with *payload (malloc'd, NUL-terminated) and fpr
 * (the key that signed); -EKEYREJECTED when a signature names a trusted key but does not
 * verify (the statement was changed); -ENOKEY when no signature is by a trusted key (fpr:
 * the first key named, or ""); -EBADMSG for an envelope that does not parse, -EFBIG
 * above SC_ATTEST_MAX_ENVELOPE.
 */
int sc_attest_open(const sc_attest_keyring *ring, const char *envelope, size_t len, char **payload,
                   char fpr[SC_ATTEST_FPR_LEN + 1], char *why, size_t whylen);

/* The payload of an envelope without checking any signature (export, messages). */
int sc_attest_payload(const char *envelope, size_t len, char **payload);

/* -------- a bundle's statements (attest_files.c) -------- */

#define SC_ATTEST_MAX_FILES 64 /* statements of one bundle read */

/* One attest/apply_<node>.dsse.json of a bundle. */
typedef struct sc_attest_file {
    char name[256]; /* its name in attest/ */
    char *text;     /* NULL when it could not be read */
    size_t len;
    int rc; /* 0, or why it could not be read (-EFBIG: above SC_ATTEST_MAX_ENVELOPE) */
} sc_attest_file;

/*
 * Reads every attest/apply_* of the bundle directory bundle_fd, sorted by name: regular
 * files only, never following a symlink, each at most SC_ATTEST_MAX_ENVELOPE, at most
 * SC_ATTEST_MAX_FILES (*more: there were others). No attest/ is no statement (0, *n 0).
 */
int sc_attest_bundle_files(int bundle_fd, sc_attest_file **out, size_t *n, bool *more);
void sc_attest_files_free(sc_attest_file *v, size_t n);

/* -------- the statement (attest_statement.c) -------- */

#define SC_ATTEST_MAX_SUBJECTS 16
#define SC_ATTEST_MAX_FIELD 256 /* longest text of a statement's field */
#define SC_ATTEST_MAX_STATE 16  /* state.env pairs */

typedef struct sc_attest_subject {
    char name[SC_ATTEST_MAX_FIELD]; /* a bundle path: "card.yaml", "prefetch/state/state.env" */
    char sha256[SC_ATTEST_FPR_LEN + 1];
} sc_attest_subject;

typedef struct sc_attest_pair {
    char key[64];
    char value[SC_ATTEST_MAX_FIELD];
} sc_attest_pair;

/* What root did and saw, as signed. Every text is bounded; names are printable ASCII. */
typedef struct sc_attest_claims {
    char phase[16]; /* "apply" (the task's start) or "restore" (the step's end) */
    char role[16];  /* "main" (the step that runs streamcard run) or "node" */
    uint32_t job_id;
    char step[32]; /* "batch", "extern" or the step's number */
    uint32_t uid;
    char user[64];
    char node[64];                           /* the node's short name */
    char time[32];                           /* ISO 8601 UTC, when it was signed */
    char card_sha256[SC_ATTEST_FPR_LEN + 1]; /* of the card bytes root received */
    char job_cpus[SC_ATTEST_MAX_FIELD];      /* the job's cpuset on the node */
    char job_mems[SC_ATTEST_MAX_FIELD];
    char kernel_tainted[32], microcode[32];
    char plugin_version[32], plugin_build[SC_ATTEST_FPR_LEN + 1]; /* version, SHA-256 of the .so */
    int result;                                /* the platform call's return (0 or -errno) */
    sc_attest_pair state[SC_ATTEST_MAX_STATE]; /* the platform layer's state.env, or after a
                                                  restore its readback */
    size_t n_state;
    sc_attest_subject subjects[SC_ATTEST_MAX_SUBJECTS]; /* the card and root's evidence texts */
    size_t n_subjects;
} sc_attest_claims;

/* Adds a subject: name and the SHA-256 of text. -E2BIG when full. */
int sc_attest_claims_subject(sc_attest_claims *c, const char *name, const char *text);
/* Adds state pairs from a key=value text (the platform layer's state.env). */
int sc_attest_claims_state(sc_attest_claims *c, const char *kv_text);
/* The value of a state key, or NULL. */
const char *sc_attest_claims_get(const sc_attest_claims *c, const char *key);

/* The in-toto statement of c (malloc'd JSON text). */
int sc_attest_statement_make(const sc_attest_claims *c, char **json);
/* Parses a statement: known fields only, each bounded; anything else refuses it. */
int sc_attest_statement_parse(const char *json, size_t len, sc_attest_claims *c, char *why,
                              size_t whylen);

#endif
