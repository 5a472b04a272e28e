/* verify_ranklibs.c: an MPI program's build.json libraries are its ranks' (sc_verify_ranklibs.h).
 */
#include "sc_verify_ranklibs.h"
#include "sc_ranklibs.h"
#include "sc_runs.h"
#include "sc_workload.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Whether the array libs holds an object whose path is path. */
static bool sc__lists(json_object *libs, const char *path)
{
    json_object *p;

    for (size_t i = 0; i < json_object_array_length(libs); i++)
        if (json_object_object_get_ex(json_object_array_get_idx(libs, i), "path", &p) &&
            !strcmp(json_object_get_string(p), path))
            return true;
    return false;
}

/* Each of build.json's libraries is one the log lists, and each the log lists is there. */
static void sc__compare(json_object *libs, const sc_strv *logged, sc_diag *problems)
{
    json_object *p;
    size_t n = json_object_array_length(libs);

    for (size_t i = 0; i < n; i++) {
        const char *path = json_object_object_get_ex(json_object_array_get_idx(libs, i), "path", &p)
                               ? json_object_get_string(p)
                               : "";
        bool seen = false;
        for (size_t k = 0; !seen && k < logged->n; k++)
            seen = !strcmp(logged->v[k], path);
        if (!seen)
            sc_diag_addf(problems,
                         "build.json: library %s, but no rank mapped it (stream.log's "
                         "TRACE_RANK_LIBRARY lines)",
                         path);
    }
    for (size_t k = 0; k < logged->n && n < SC_RANKLIBS_MAX; k++)
        if (!sc__lists(libs, logged->v[k]))
            sc_diag_addf(problems,
                         "build.json: no library %s, but stream.log shows the ranks mapped it",
                         logged->v[k]);
}

void sc_verify_rank_libraries(const sc_bundle *b, const sc_card *card, const char *build,
                              sc_diag *problems)
{
    json_object *root, *libs = NULL;
    sc_strv logged = {0};
    char rel[64];

    if (!sc_workload_mpi(card) || !sc_workload_foreign(card) || !build ||
        !(root = json_tokener_parse(build)))
        return;
    char *log = sc_bundle_read_opt(b, sc_runs_path(card, 0, "stream.log", rel, sizeof(rel)));
    sc_ranklibs_paths(log, &logged);
    json_object_object_get_ex(root, "libraries", &libs);
    /* none listed: a run that ended before MPI_Init, or a probe older than the lines; its
       build.json then says so or names what the launcher's snapshot showed */
    if (logged.n && json_object_is_type(libs, json_type_array))
        sc__compare(libs, &logged, problems);
    else if (logged.n)
        sc_diag_addf(problems,
                     "build.json: libraries: not a list, but stream.log shows the ranks mapped "
                     "%zu libraries",
                     logged.n);
    sc_strv_free(logged.v);
    free(log);
    json_object_put(root);
}
