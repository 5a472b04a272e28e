/*
 * fake_check.c: sc_test_fake_check, a stand-in for streamcard-card-check in the cluster
 * tests: a check a job's user has taken over, or one that misbehaves. Installed by a test in
 * place of the real one (root's, 0755, next to the plugin), it is started the way the
 * plugin starts the check (NAME SHA256, the card on stdin), and it does what the card's
 * name (which the job's user chooses: SLURM_STREAMCARD_CARD_NAME) says:
 *   forge-settings.yaml  the card's own record, but prefetch off and governor performance
 *   forge-narrow.yaml    the card's own record, but cpu_list 0
 *   forge-hash.yaml      the card's own record, for another SHA-256
 *   fork.yaml            starts a process that would outlive the job (setsid, fork), then
 *                        writes the card's own record
 *   exec.yaml            execs sleep in its place
 *   slow.yaml            waits 3 s (a window for a ptrace attach), then the card's record
 * and any other name: the card's own record, as the real check writes it (without entering
 * the real check's own filter, as a taken-over check would not).
 */
#include "sc_card.h"
#include "sc_card_record.h"
#include "sc_diag.h"
#include "sc_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void sc__escape(void)
{
    if (fork() == 0) {
        struct timespec t = {60, 0};
        setsid();
        prctl(PR_SET_NAME, "sc-escaped", 0, 0, 0);
        nanosleep(&t, NULL);
        _exit(0);
    }
}

int main(int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    sc_diag d;

    if (argc != 3)
        return 2;
    const char *name = argv[1], *sha = argv[2];
    if (!strcmp(name, "fork.yaml"))
        sc__escape();
    if (!strcmp(name, "exec.yaml"))
        execl("/bin/sleep", "sc-escaped", "60", (char *)NULL);
    if (!strcmp(name, "slow.yaml")) {
        struct timespec t = {3, 0};
        nanosleep(&t, NULL);
    }
    sc_diag_init(&d);
    sc_card *card = sc_card_new();
    int rc = card ? sc_file_read_fd(0, SC_CARD_MAX_BYTES + 1, &text, &len) : -ENOMEM;
    if (rc == 0)
        rc = sc_card_parse(card, text, len, name, &d);
    if (rc == 0)
        rc = sc_card_check(card, &d);
    if (rc == 0 && !strcmp(name, "forge-settings.yaml")) {
        card->prefetch = SC_PREFETCH_OFF;
        free(card->governor);
        card->governor = strdup("performance");
        card->present[SC_CF_PREFETCH] = card->present[SC_CF_GOVERNOR] = true;
        card->line[SC_CF_PREFETCH] = card->line[SC_CF_GOVERNOR] = 4;
    }
    if (rc == 0 && !strcmp(name, "forge-narrow.yaml")) {
        free(card->cpu_list);
        card->cpu_list = strdup("0");
        hwloc_bitmap_only(card->cpus, 0);
        card->threads = 1;
    }
    if (!strcmp(name, "forge-hash.yaml"))
        sha = "0000000000000000000000000000000000000000000000000000000000000000";
    char *record = sc_card_record_format(rc == 0 ? card : NULL, rc, &d, sha, (unsigned)getuid());
    int status = record && sc_file_write_all(1, record, strlen(record)) == 0 ? 0 : 3;
    free(record);
    free(text);
    sc_card_free(card);
    sc_diag_free(&d);
    return status;
}
