/*
 * card_check_main.c: streamcard-card-check, the card check of the compute node. It runs
 * under its own account (streamcard-check), started by the plugin in slurmstepd under
 * rlimits and a seccomp prefilter (card_child.h), never as root nor as the job's user.
 * First thing, it makes itself not dumpable again and enters its own seccomp filter
 * (card_sandbox.h): from there on it can read stdin, write stdout and manage memory, and any
 * other system call kills it. It reads the card's bytes on stdin (at most
 * SC_CARD_MAX_BYTES), checks that they are the bytes whose SHA-256 it was given, parses and
 * checks them with the core exactly as sbatch did, and writes the card's record
 * (core/card/sc_card_record.h) on stdout.
 *
 *   streamcard-card-check NAME SHA256 <card >record
 *
 * Exit status 0 when a record was written (for a refused card too: the record says why); 2
 * for a usage error or bytes that do not match SHA256; 3 when out of memory or unable to
 * read or write; 4 when it cannot enter its sandbox (it then reads nothing).
 */
#include "card_sandbox.h"
#include "sc_card.h"
#include "sc_card_record.h"
#include "sc_diag.h"
#include "sc_file.h"
#include "sc_hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char sha[SC_HASH_HEX_LEN + 1], *text = NULL, *record = NULL;
    size_t len = 0;
    sc_diag d;
    int status = 3;

    if (sc_card_sandbox_enter() < 0)
        return 4;
    if (argc != 3 || strlen(argv[2]) != SC_HASH_HEX_LEN) {
        fprintf(stderr, "usage: streamcard-card-check NAME SHA256 <card >record (started by "
                        "the streamcard SPANK plugin)\n");
        return 2;
    }
    sc_diag_init(&d);
    sc_card *card = sc_card_new();
    int rc = card ? sc_file_read_fd(0, SC_CARD_MAX_BYTES + 1, &text, &len) : -ENOMEM;
    if (rc == -EFBIG) {
        /* Larger than a card may hold: a refusal like any other. */
        sc_diag_addf(&d,
                     "%s: more than %d bytes is more than a card may hold (valid: at most "
                     "%d bytes)",
                     argv[1], SC_CARD_MAX_BYTES, SC_CARD_MAX_BYTES);
        rc = -EBADMSG;
    } else if (rc == 0 && (sc_hash_buf(text, len, sha) < 0 || strcmp(sha, argv[2]) != 0)) {
        status = 2;
        goto out;
    } else if (rc == 0) {
        rc = sc_card_parse(card, text, len, argv[1], &d);
        if (rc == 0 || rc == -EINVAL) {
            int crc = sc_card_check(card, &d);
            rc = rc ? rc : crc;
        }
    }
    if (rc == -ENOMEM || rc == -EIO)
        goto out;
    record = sc_card_record_format(rc == 0 ? card : NULL, rc, &d, argv[2], (unsigned)getuid());
    if (record && sc_file_write_all(1, record, strlen(record)) == 0)
        status = 0;
out:
    free(record);
    free(text);
    sc_card_free(card);
    sc_diag_free(&d);
    return status;
}
