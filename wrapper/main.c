/* main.c: the `streamcard` command: options of the top level, then a subcommand. */
#include "cli.h"
#include "sc_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sc__usage(FILE *out)
{
    fprintf(out, "usage: streamcard COMMAND [ARGS]\n"
                 "\n"
                 "Reviewable benchmark runs: a card in, a sealed evidence bundle out.\n"
                 "\n"
                 "commands:\n"
                 "  run [CARD] [options]   run an experiment card and write its evidence bundle\n"
                 "  verify BUNDLE          re-check a bundle's hashes and recompute its gates\n"
                 "  resources CARD         what a card needs from Slurm (CPUs, whole node)\n"
                 "  compare A B            two bundles side by side; valid when one variable "
                 "differs\n"
                 "  classify BUNDLE --baseline B\n"
                 "                         good/bad/skip (exit 0/1/125) for git bisect run\n"
                 "  report BUNDLE... -o F  one self-contained HTML page with plots\n"
                 "  export --prometheus BUNDLE...\n"
                 "                         node_exporter textfile metrics\n"
                 "  export --in-toto BUNDLE\n"
                 "                         the bundle's signed statements (DSSE, one per line)\n"
                 "  health BUNDLE...       nodes to drain and suspect links from link matrices\n"
                 "  history add|show|check|report\n"
                 "                         every verified bundle in one store; trends, change "
                 "points\n"
                 "  keygen --out DIR       a node's signing key for the plugin (as root)\n"
                 "\n"
                 "`streamcard COMMAND --help` describes each command; streamcard(1) all of them, "
                 "streamcard-card(5) the card.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        sc__usage(stderr);
        return SC_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        sc__usage(stdout);
        return SC_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("streamcard %s\n", STREAMCARD_VERSION);
        return SC_EXIT_OK;
    }
    if (strcmp(argv[1], "run") == 0)
        return sc_cmd_run(argc - 1, argv + 1);
    if (strcmp(argv[1], "verify") == 0)
        return sc_cmd_verify(argc - 1, argv + 1);
    if (strcmp(argv[1], "resources") == 0)
        return sc_cmd_resources(argc - 1, argv + 1);
    if (strcmp(argv[1], "compare") == 0)
        return sc_cmd_compare(argc - 1, argv + 1);
    if (strcmp(argv[1], "classify") == 0)
        return sc_cmd_classify(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return sc_cmd_report(argc - 1, argv + 1);
    if (strcmp(argv[1], "export") == 0)
        return sc_cmd_export(argc - 1, argv + 1);
    if (strcmp(argv[1], "keygen") == 0)
        return sc_cmd_keygen(argc - 1, argv + 1);
    if (strcmp(argv[1], "health") == 0)
        return sc_cmd_health(argc - 1, argv + 1);
    if (strcmp(argv[1], "history") == 0)
        return sc_cmd_history(argc - 1, argv + 1);
    static const char *const commands[] = {"run",    "verify", "resources", "compare", "classify",
                                           "report", "export", "health",    "history", "keygen"};
    const char *near = NULL;
    size_t best = 3; /* close misspellings only, as for options and card keys */
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        size_t d = sc_text_distance(argv[1], commands[i]);
        if (d < best) {
            best = d;
            near = commands[i];
        }
    }
    char *shown = sc_text_escape_dup(argv[1], 200); /* the user's text, escaped */
    if (near)
        fprintf(stderr, "streamcard: %s: unknown command (did you mean %s?)\n", shown ? shown : "?",
                near);
    else
        fprintf(stderr,
                "streamcard: %s: unknown command (valid: run, verify, resources, compare, "
                "classify, report, export, health, history, keygen; see streamcard --help)\n",
                shown ? shown : "?");
    free(shown);
    return SC_EXIT_USAGE;
}
