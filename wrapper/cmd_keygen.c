/*
 * cmd_keygen.c: `streamcard keygen --out DIR`: a node's Ed25519 key pair for the plugin's
 * signed statements (sc_attest.h): DIR/node.key (0600) and DIR/node.pub; DIR is made 0755
 * when missing. Run as root on the node; the public key goes to every verifier's keys
 * directory (/etc/streamcard/keys).
 */
#include "cli.h"
#include "sc_attest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int sc_cmd_keygen(int argc, char **argv)
{
    char fpr[SC_ATTEST_FPR_LEN + 1], why[1024] = "";

    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: streamcard keygen --out DIR\n\n"
               "Makes a node's signing key: DIR/node.key (0600, never replaced) and DIR/node.pub.\n"
               "The plugin's key= names the private key; verify --keys DIR trusts the *.pub.\n");
        return SC_EXIT_OK;
    }
    if (argc != 3 || strcmp(argv[1], "--out") != 0) {
        fprintf(stderr, "streamcard: keygen: usage: streamcard keygen --out DIR\n");
        return SC_EXIT_USAGE;
    }
    if (mkdir(argv[2], 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "streamcard: keygen: %s: %s (valid: a directory that can be made)\n",
                argv[2], strerror(errno));
        return SC_EXIT_ERROR;
    }
    if (sc_attest_keygen(argv[2], fpr, why, sizeof(why)) < 0) {
        fprintf(stderr, "%s\n", *why ? why : "streamcard: keygen: failed");
        return SC_EXIT_ERROR;
    }
    printf("streamcard: keygen: %s/node.key (private, 0600) and %s/node.pub: key %s\n", argv[2],
           argv[2], fpr);
    return SC_EXIT_OK;
}
