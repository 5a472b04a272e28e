/*
 * restat.c: the forger's tool of the analysis tests: rewrites a bundle's results.json
 * "stats" from its runs as they are now (sc_runs_stats(), what verify recomputes), after a
 * test edited the runs' figures. Then the test re-seals the bundle (tests/lib.sh, reseal).
 * usage: restat BUNDLE
 */
#include "sc_card.h"
#include "sc_diag.h"
#include "sc_runs.h"

#include <json-c/json.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char card_path[4096], results_path[4096];
    sc_card *card = sc_card_new();
    json_object *root = NULL, *runs = NULL, *stats = NULL;
    sc_diag diag;
    int status = 1;

    sc_diag_init(&diag);
    if (argc != 2 || !card) {
        fprintf(stderr, "usage: restat BUNDLE\n");
        goto out;
    }
    snprintf(card_path, sizeof(card_path), "%s/card.yaml", argv[1]);
    snprintf(results_path, sizeof(results_path), "%s/results.json", argv[1]);
    if (sc_card_load_file(card, card_path, &diag) < 0 || sc_card_check(card, &diag) < 0) {
        fprintf(stderr, "restat: %s: not a valid card\n", card_path);
        goto out;
    }
    root = json_object_from_file(results_path);
    if (!root || !json_object_object_get_ex(root, "runs", &runs) ||
        !(stats = sc_runs_stats(card, runs))) {
        fprintf(stderr, "restat: %s: no runs\n", results_path);
        goto out;
    }
    json_object_object_add(root, "stats", stats);
    if (json_object_to_file_ext(results_path, root, JSON_C_TO_STRING_PRETTY) == 0)
        status = 0;
    else
        fprintf(stderr, "restat: %s: cannot write\n", results_path);
out:
    json_object_put(root);
    sc_diag_free(&diag);
    sc_card_free(card);
    return status;
}
