/*
 * sign_statement.c: sc_test_sign, the tests' stand-in for the plugin's signature (and for a
 * forger who holds a key): signs an apply statement about a bundle's files with a key made
 * by `streamcard keygen`, through the same core functions the plugin uses.
 *
 *   sc_test_sign KEY BUNDLE JOB UID NODE ROLE STATE_FILE [SUBJECT...]
 *
 * The statement names card.yaml and each SUBJECT (a bundle path) with their SHA-256 as
 * they are now, and carries STATE_FILE's key=value lines as its signed state. The
 * envelope goes to stdout. SC_TEST_PHASE=restore in the environment makes it a restore
 * statement.
 */
#include "sc_attest.h"
#include "sc_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sc__subject(sc_attest_claims *c, const char *bundle, const char *rel)
{
    char path[4096], *text = NULL;
    snprintf(path, sizeof(path), "%s/%s", bundle, rel);
    int rc = sc_file_read_at(AT_FDCWD, path, 0, 1 << 20, &text, NULL);
    if (rc == 0)
        rc = sc_attest_claims_subject(c, rel, text);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    sc_attest_claims c;
    sc_attest_key *k = NULL;
    char why[512] = "", *state = NULL, *json = NULL, *env = NULL;

    if (argc < 8) {
        fprintf(stderr,
                "usage: sc_test_sign KEY BUNDLE JOB UID NODE ROLE STATE_FILE [SUBJECT...]\n");
        return 2;
    }
    memset(&c, 0, sizeof(c));
    const char *phase = getenv("SC_TEST_PHASE");
    snprintf(c.phase, sizeof(c.phase), "%s", phase ? phase : "apply");
    snprintf(c.role, sizeof(c.role), "%s", argv[6]);
    c.job_id = (uint32_t)strtoul(argv[3], NULL, 10);
    snprintf(c.step, sizeof(c.step), "batch");
    c.uid = (uint32_t)strtoul(argv[4], NULL, 10);
    snprintf(c.user, sizeof(c.user), "test");
    snprintf(c.node, sizeof(c.node), "%s", argv[5]);
    snprintf(c.time, sizeof(c.time), "2026-12-01T00:00:00Z");
    snprintf(c.job_cpus, sizeof(c.job_cpus), "0-1");
    snprintf(c.job_mems, sizeof(c.job_mems), "0");
    snprintf(c.kernel_tainted, sizeof(c.kernel_tainted), "0");
    snprintf(c.microcode, sizeof(c.microcode), "unknown");
    snprintf(c.plugin_version, sizeof(c.plugin_version), "test");
    snprintf(c.plugin_build, sizeof(c.plugin_build), "test");
    int rc = sc__subject(&c, argv[2], "card.yaml");
    for (int i = 8; rc == 0 && i < argc; i++)
        rc = sc__subject(&c, argv[2], argv[i]);
    if (rc == 0 && c.n_subjects)
        memcpy(c.card_sha256, c.subjects[0].sha256, sizeof(c.card_sha256));
    if (rc == 0)
        rc = sc_file_read_at(AT_FDCWD, argv[7], 0, 1 << 16, &state, NULL);
    if (rc == 0)
        rc = sc_attest_claims_state(&c, state);
    if (rc == 0)
        rc = sc_attest_key_load_private(argv[1], &k, why, sizeof(why));
    if (rc == 0)
        rc = sc_attest_statement_make(&c, &json);
    if (rc == 0)
        rc = sc_attest_sign(k, json, strlen(json), &env);
    if (rc == 0)
        fputs(env, stdout);
    else
        fprintf(stderr, "sc_test_sign: %s (%d)\n", *why ? why : "failed", rc);
    sc_attest_key_free(k);
    free(state);
    free(json);
    free(env);
    return rc == 0 ? 0 : 1;
}
