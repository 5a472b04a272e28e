/*
 * export_intoto.c: `streamcard export --in-toto [-o FILE] BUNDLE`: the bundle's signed
 * statements (attest/apply_*.dsse.json, doc/contracts/attestation.md) for provenance tools, one
 * DSSE envelope per line (the JSON Lines form in-toto's tools read). Nothing is judged here:
 * `streamcard verify` checks the signatures against trusted keys.
 */
#include "cli.h"
#include "options.h"
#include "outfile.h"
#include "sc_attest.h"
#include "sc_bundle.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes every envelope that parses as one line; the count in *written. */
static int sc__write(FILE *out, const sc_attest_file *v, size_t n, size_t *written)
{
    *written = 0;
    for (size_t i = 0; i < n; i++) {
        char *payload = NULL;
        if (v[i].rc < 0 || sc_attest_payload(v[i].text, v[i].len, &payload) < 0) {
            fprintf(stderr, "streamcard: export: attest/%s: not a DSSE envelope (left out)\n",
                    v[i].name);
            continue;
        }
        free(payload);
        json_object *env = json_tokener_parse(v[i].text);
        const char *line = env ? json_object_to_json_string_ext(
                                     env, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                               : NULL;
        if (line && fprintf(out, "%s\n", line) < 0) {
            json_object_put(env);
            return -EIO;
        }
        *written += line != NULL;
        json_object_put(env);
    }
    return 0;
}

int sc_export_intoto(int argc, char **argv)
{
    const char *output = NULL, *path = NULL;
    sc_attest_file *v = NULL;
    size_t n = 0, written = 0;
    bool more = false;
    sc_bundle b;

    static const struct option table[] = {{"in-toto", no_argument, NULL, 't'},
                                          {"output", required_argument, NULL, 'o'},
                                          {NULL, 0, NULL, 0}};
    char line[512];
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", table, NULL)) != -1) {
        if (c == 't')
            continue;
        if (c == 'o') {
            output = optarg;
            continue;
        }
        sc_option_error(table, c, argc, argv, &optind, line, sizeof(line));
        fprintf(stderr, "streamcard: export: %s (see streamcard export --help)\n", line);
        return SC_EXIT_USAGE;
    }
    if (optind == argc - 1)
        path = argv[optind];
    if (!path) {
        fprintf(stderr,
                "streamcard: export: usage: streamcard export --in-toto [-o FILE] BUNDLE\n");
        return SC_EXIT_USAGE;
    }
    int rc = sc_bundle_open(&b, path);
    if (rc < 0) {
        fprintf(stderr, "streamcard: export: %s: cannot open the bundle: %s\n", path,
                strerror(-rc));
        return SC_EXIT_USAGE;
    }
    rc = sc_attest_bundle_files(b.dirfd, &v, &n, &more);
    sc_bundle_close(&b);
    sc_outfile out = {0};
    char why[4096 + 256] = "";
    if (rc == 0 && (rc = sc_outfile_open(&out, output ? output : "-", why, sizeof(why))) == 0) {
        rc = sc__write(out.f, v, n, &written);
        if (rc < 0) {
            snprintf(why, sizeof(why), "%s: %s", output ? output : "stdout", strerror(-rc));
            sc_outfile_abort(&out);
        } else {
            rc = sc_outfile_commit(&out, why, sizeof(why));
        }
    } else if (rc < 0 && !*why) {
        snprintf(why, sizeof(why), "%s: %s", path, strerror(-rc));
    }
    sc_attest_files_free(v, n);
    if (rc < 0) {
        fprintf(stderr, "streamcard: export: %s\n", why);
        return SC_EXIT_ERROR;
    }
    if (written == 0) {
        fprintf(stderr,
                "streamcard: export: %s: the bundle holds no signed statement (a run "
                "outside the plugin, or a node without a key)\n",
                path);
        return SC_EXIT_FAILED;
    }
    return SC_EXIT_OK;
}
