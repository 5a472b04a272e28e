/*
 * cmd_keygen.c: `streamcard keygen --out DIR`: a node's Ed25519 key pair for the plugin's
 * signed statements (sc_attest.h): DIR/node.key (0600) and DIR/node.pub; DIR is made 0755
 * when missing. Run as root on the node; the public key goes to every verifier's keys
 * directory (/etc/streamcard/keys).
 */
#include "cli.h"
#include "options.h"
#include "sc_attest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int sc_cmd_keygen(int argc, char **argv)
{
    char fpr[SC_ATTEST_FPR_LEN + 1], why[1024] = "";

    static const struct option table[] = {{"out", required_argument, NULL, 'o'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *dir = NULL;
    char line[512];
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", table, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: streamcard keygen --out DIR\n\n"
                   "Makes a node's signing key: DIR/node.key (0600, never replaced) and "
                   "DIR/node.pub.\n"
                   "The plugin's key= names the private key; verify --keys DIR trusts the "
                   "*.pub.\n");
            return SC_EXIT_OK;
        }
        if (c == 'o') {
            dir = optarg;
            continue;
        }
        sc_option_error(table, c, argc, argv, &optind, line, sizeof(line));
        fprintf(stderr, "streamcard: keygen: %s (valid: streamcard keygen --out DIR)\n", line);
        return SC_EXIT_USAGE;
    }
    if (!dir || optind != argc) {
        fprintf(stderr, "streamcard: keygen: usage: streamcard keygen --out DIR\n");
        return SC_EXIT_USAGE;
    }
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "streamcard: keygen: %s: %s (valid: a directory that can be made)\n", dir,
                strerror(errno));
        return SC_EXIT_ERROR;
    }
    if (sc_attest_keygen(dir, fpr, why, sizeof(why)) < 0) {
        fprintf(stderr, "%s\n", *why ? why : "streamcard: keygen: failed");
        return SC_EXIT_ERROR;
    }
    printf("streamcard: keygen: %s/node.key (private, 0600) and %s/node.pub: key %s\n", dir, dir,
           fpr);
    return SC_EXIT_OK;
}
