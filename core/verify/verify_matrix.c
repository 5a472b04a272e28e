/*
 * verify_matrix.c: a link matrix's nodes against the ranks' bindings (sc_verify_matrix.h).
 */
#include "sc_verify_matrix.h"
#include "sc_linkmatrix.h"
#include "sc_results_protocol.h"
#include "sc_text.h"

#include <errno.h>

#include <string.h>

/* The binding of rank r, or NULL. */
static const sc_rank_binding *sc__binding_of(const sc_tracelog *t, size_t r)
{
    for (size_t i = 0; i < t->n_rank_bindings; i++)
        if (t->rank_bindings[i].rank >= 0 && (size_t)t->rank_bindings[i].rank == r)
            return &t->rank_bindings[i];
    return NULL;
}

/* The matrix read back as health reads it: its files and summaries. */
static void sc__verify_load(const sc_bundle *b, json_object *root, sc_diag *problems)
{
    sc_linkmatrix_data d;
    char why[256];
    int rc = sc_linkmatrix_load(b, root, &d, why, sizeof(why));

    if (rc == -EINVAL)
        sc_diag_addf(problems, "results.json: matrix: %s", why);
    else if (rc < 0 && rc != -ENOENT)
        sc_diag_addf(problems, "results.json: matrix: %s", strerror(-rc));
    sc_linkmatrix_data_free(&d);
}

void sc_verify_matrix(const sc_bundle *b, json_object *root, const sc_tracelog *t,
                      sc_diag *problems)
{
    json_object *m = NULL, *nodes = NULL;
    size_t n;

    if (!root || !json_object_object_get_ex(root, SC_RESULT_MATRIX, &m))
        return;
    if (!json_object_object_get_ex(m, "nodes", &nodes) ||
        !json_object_is_type(nodes, json_type_array)) {
        sc_diag_addf(problems, "results.json: matrix: no list of nodes (valid: the ranks' hosts)");
        return;
    }
    sc__verify_load(b, root, problems);
    n = json_object_array_length(nodes);
    if (n != t->n_rank_bindings) {
        sc_diag_addf(problems,
                     "results.json: matrix has %zu nodes, but stream.log binds %zu ranks "
                     "(valid: one node per rank, the host of its TRACE_RANK_BINDING)",
                     n, t->n_rank_bindings);
        return;
    }
    for (size_t r = 0; r < n; r++) {
        json_object *name = json_object_array_get_idx(nodes, r);
        const char *s =
            json_object_is_type(name, json_type_string) ? json_object_get_string(name) : "";
        const sc_rank_binding *rb = sc__binding_of(t, r);
        char shown[96], host[96];

        if (rb && strcmp(s, rb->host) == 0)
            continue;
        sc_text_escape(shown, sizeof(shown), s, strlen(s));
        sc_text_escape(host, sizeof(host), rb ? rb->host : "", rb ? strlen(rb->host) : 0);
        if (rb)
            sc_diag_addf(problems,
                         "results.json: matrix node %zu is \"%s\", but rank %zu ran on \"%s\" "
                         "(TRACE_RANK_BINDING) (valid: the ranks' hosts, in rank order)",
                         r, shown, r, host);
        else
            sc_diag_addf(problems,
                         "results.json: matrix node %zu is \"%s\", but stream.log binds no rank "
                         "%zu (valid: the ranks' hosts, in rank order)",
                         r, shown, r);
        return; /* one line: the rest of a forged list says nothing more */
    }
}
