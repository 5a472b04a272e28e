/*
 * cmd_resources.c: `streamcard resources CARD`: what a card needs from Slurm, for submit-time
 * helpers such as contrib/slurm/cli_filter.lua (which asks for the CPUs, and for the whole
 * node when the card changes platform settings). The card is read and checked with the
 * same code as `streamcard run --dry-run` minus the machine rules (this runs on the
 * login node). Prints key=value lines; exits 2 with the card's messages when it is bad.
 */
#include "cli.h"
#include "options.h"
#include "sc_card.h"
#include "sc_cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_cmd_resources(int argc, char **argv)
{
    sc_diag diag;
    sc_card *card;
    int status = SC_EXIT_OK;

    static const struct option table[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

    if (argc == 2 && argv[1][0] == '-' && argv[1][1] == '-' && strcmp(argv[1], "--help") != 0) {
        char line[512];
        int next = 2;
        sc_option_unknown(table, argc, argv, &next, line, sizeof(line));
        fprintf(stderr, "streamcard: resources: %s (valid: streamcard resources CARD)\n", line);
        return SC_EXIT_USAGE;
    }
    if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(argc == 2 ? stdout : stderr,
                "usage: streamcard resources CARD\n\n"
                "Prints what CARD needs from Slurm as key=value lines: cpus (how many CPUs\n"
                "its cpu_list names), cpu_list, threads, exclusive (yes when it changes\n"
                "prefetch or the governor, which affect the whole node), nodes; the tasks\n"
                "that hold those CPUs: tasks (in all; an MPI card's ranks, 0: one per node\n"
                "of the allocation), task_nodes (0: the allocation's), tasks_per_node,\n"
                "cpus_per_task, and sbatch (the same as sbatch's options).\n");
        return argc == 2 ? SC_EXIT_OK : SC_EXIT_USAGE;
    }
    sc_diag_init(&diag);
    card = sc_card_new();
    if (!card)
        return SC_EXIT_ERROR;
    int rc = sc_card_load_file(card, argv[1], &diag);
    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(card, &diag);
        rc = rc < 0 ? rc : crc;
    }
    if (rc < 0) {
        sc_diag_print(&diag, "streamcard: ", stderr);
        status = SC_EXIT_USAGE;
    } else {
        bool platform =
            card->prefetch != SC_PREFETCH_UNCHANGED || strcmp(card->governor, "unchanged") != 0;
        /* A sweep of prefetch or the governor changes them in all but an "unchanged" run. */
        for (size_t i = 0; i < card->n_sweep; i++)
            if ((card->sweep_field == SC_CF_PREFETCH || card->sweep_field == SC_CF_GOVERNOR) &&
                strcmp(card->sweep_values[i], "unchanged") != 0)
                platform = true;
        printf("cpus=%d\n", hwloc_bitmap_weight(card->cpus));
        printf("cpu_list=%s\n", card->cpu_list);
        printf("threads=%ld\n", card->threads);
        printf("exclusive=%s\n", platform ? "yes" : "no");
        printf("nodes=%s\n", card->nodes ? card->nodes : "");
        sc_card_tasks t;
        char ask[96];
        sc_card_tasks_of(card, &t);
        sc_card_tasks_format(&t, ask, sizeof(ask));
        printf("tasks=%ld\ntask_nodes=%ld\ntasks_per_node=%ld\ncpus_per_task=%ld\nsbatch=%s\n",
               t.ntasks, t.nodes, t.per_node, t.cpus_per_task, ask);
    }
    sc_diag_free(&diag);
    sc_card_free(card);
    return status;
}
