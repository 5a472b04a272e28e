/*
 * record_matrix.c: a link matrix's raw figures into the bundle (doc/contracts/analysis.md, "Link
 * matrix"). streamcard-pingpong's rank 0 writes one file per size next to its JSON
 * (sc_pairs_csv.h; "run-1.json.matrix-8B.csv"); each goes into the bundle as the file its
 * JSON names ("matrix/8B.csv"), read within the cap of its node count. The workload's JSON
 * is the user's too: only names sc_pairs_csv_name() gives for a size are used.
 */
#include "record.h"
#include "sc_file.h"
#include "sc_linkmatrix.h"
#include "sc_pairs_csv.h"
#include "sc_results_protocol.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The temporary file of a size next to json; NULL when out of memory. */
static char *sc__tmp_path(const char *json, unsigned long long bytes)
{
    char name[64], *path = NULL;

    if (sc_pairs_csv_name(bytes, name, sizeof(name)) < 0)
        return NULL;
    *strchr(name, '/') = '-';
    return asprintf(&path, "%s.%s", json, name) < 0 ? NULL : path;
}

/* The sizes of the workload's matrix (in its JSON k), each as bytes, its nodes and passes;
   returns how many sizes. */
static size_t sc__sizes(json_object *k, unsigned long long *bytes, size_t *nodes, size_t *passes)
{
    json_object *m = NULL, *sizes = NULL, *names = NULL, *p = NULL;
    size_t n = 0;

    if (k && json_object_object_get_ex(k, SC_RESULT_MATRIX, &m) &&
        json_object_object_get_ex(m, SC_RESULT_SIZES, &sizes) &&
        json_object_object_get_ex(m, SC_RESULT_NODES, &names) &&
        json_object_is_type(sizes, json_type_array) && json_object_is_type(names, json_type_array))
        for (size_t s = 0; s < json_object_array_length(sizes) && n < SC_LINKMATRIX_MAX_SIZES;
             s++) {
            json_object *b = NULL;
            if (json_object_object_get_ex(json_object_array_get_idx(sizes, s), SC_RESULT_BYTES,
                                          &b) &&
                json_object_is_type(b, json_type_int) && json_object_get_int64(b) >= 0)
                bytes[n++] = (unsigned long long)json_object_get_int64(b);
        }
    *nodes = names ? json_object_array_length(names) : 0;
    *passes = m && json_object_object_get_ex(m, SC_RESULT_PASSES, &p) &&
                      json_object_get_int64(p) >= 1 &&
                      json_object_get_int64(p) <= SC_LINKMATRIX_MAX_PASSES
                  ? (size_t)json_object_get_int64(p)
                  : 1;
    return n;
}

void sc_record_matrix(sc_execution *x, const char *json, json_object *kernel, bool keep)
{
    unsigned long long bytes[SC_LINKMATRIX_MAX_SIZES];
    size_t nodes, passes, n = sc__sizes(kernel, bytes, &nodes, &passes);

    for (size_t s = 0; json && s < n; s++) {
        char *tmp = sc__tmp_path(json, bytes[s]), *text = NULL, rel[64];
        if (!tmp)
            continue;
        if (keep && nodes <= SC_LINKMATRIX_MAX_NODES &&
            sc_pairs_csv_name(bytes[s], rel, sizeof(rel)) == 0 &&
            sc_file_read_at(AT_FDCWD, tmp, O_NOFOLLOW, sc_pairs_csv_cap(nodes, passes), &text,
                            NULL) == 0)
            sc_record_put(x, rel, text);
        unlink(tmp); /* kept or not, the workload's private copy goes */
        free(text);
        free(tmp);
    }
}
