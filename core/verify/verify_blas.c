/* verify_blas.c: a card's blas: path was the library the runs mapped (sc_verify_blas.h). */
#include "sc_verify_blas.h"
#include "sc_file.h"
#include "sc_runs.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

void sc_verify_blas_preload(const sc_bundle *b, const sc_card *card, const char *build, size_t n,
                            sc_diag *problems)
{
    json_object *root, *pre = NULL, *given = NULL, *file = NULL;
    char rel[64];

    if (!card->blas || card->blas[0] != '/' || !build || !(root = json_tokener_parse(build)))
        return;
    if (!json_object_object_get_ex(root, "blas_preload", &pre) ||
        !json_object_object_get_ex(pre, "card", &given) ||
        !json_object_object_get_ex(pre, "path", &file) ||
        strcmp(json_object_get_string(given), card->blas) != 0 ||
        json_object_get_string(file)[0] != '/') {
        sc_diag_addf(problems,
                     "build.json: no blas_preload of the card's blas: %s (the card's "
                     "path and the file it resolved to)",
                     card->blas);
        json_object_put(root);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char *maps = sc_bundle_read_opt(
            b, sc_runs_path(card, i, "numa_maps_at_ready.txt", rel, sizeof(rel)));
        /* none, or empty: a program that ended before its snapshot maps nothing (the capture
           is less precise, as the exec module says), which contradicts nothing */
        if (!maps || !strstr(maps, " file=")) {
            free(maps);
            continue;
        }
        if (!sc_file_maps_shows(maps, json_object_get_string(file)))
            sc_diag_addf(problems,
                         "%s: does not map blas_preload %s: the run did not load the card's blas:",
                         rel, json_object_get_string(file));
        free(maps);
    }
    json_object_put(root);
}
