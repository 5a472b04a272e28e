/*
 * linkmatrix_load.c: a link matrix read back from results.json (sc_linkmatrix.h). The
 * file is the user's: sizes and counts are bounded before anything is allocated, and every
 * cell is checked.
 */
#include "sc_linkmatrix.h"
#include "sc_bundle.h"
#include "sc_file.h"
#include "sc_num.h"
#include "sc_pairs_csv.h"
#include "sc_results_protocol.h"
#include "sc_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One n x n grid of numbers or nulls into cells. Returns 0 or -EINVAL. */
static int sc__grid(json_object *grid, size_t n, double *cells, const char *what, char *why,
                    size_t whylen)
{
    if (!json_object_is_type(grid, json_type_array) || json_object_array_length(grid) != n) {
        snprintf(why, whylen, "%s: not %zu rows", what, n);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *row = json_object_array_get_idx(grid, i);

        if (!json_object_is_type(row, json_type_array) || json_object_array_length(row) != n) {
            snprintf(why, whylen, "%s: row %zu is not %zu cells", what, i, n);
            return -EINVAL;
        }
        for (size_t j = 0; j < n; j++) {
            json_object *cell = json_object_array_get_idx(row, j);
            double v = NAN;

            if (cell && (sc_num_json(cell, &v) < 0 || !(v > 0))) {
                snprintf(why, whylen, "%s: cell %zu,%zu is not a positive number", what, i, j);
                return -EINVAL;
            }
            cells[i * n + j] = v;
        }
    }
    return 0;
}

static int sc__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median of the finite values of the pairs a < b of passes n x n grids (one after the
   other), as the workload takes it (mpi/matrix.c: sorted, the mean of the middle two when
   even); NAN when none. */
static double sc__pairs_median(const double *grid, size_t n, size_t passes, double *scratch)
{
    size_t k = 0;

    for (size_t p = 0; p < passes; p++)
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                if (isfinite(grid[p * n * n + a * n + b]))
                    scratch[k++] = grid[p * n * n + a * n + b];
    if (k == 0)
        return NAN;
    qsort(scratch, k, sizeof(*scratch), sc__cmp_double);
    return k % 2 ? scratch[k / 2] : (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
}

/* The summaries of size s (its entry one: pairs, t_usec and MBps, the medians) are what its
   file's pairs give, exactly. Returns 0, -EINVAL (why) or -ENOMEM. */
static int sc__size_summary(json_object *one, size_t s, sc_linkmatrix_data *d, size_t pairs,
                            char *why, size_t whylen)
{
    size_t n = d->n, grids = n * n * d->passes;
    double *scratch = malloc((grids / 2 + 1) * sizeof(*scratch)), claimed[2];
    json_object *p = NULL, *t = NULL, *bw = NULL;
    int rc = 0;

    if (!scratch)
        return -ENOMEM;
    double truth[2] = {sc__pairs_median(d->pass_t_usec + s * grids, n, d->passes, scratch),
                       sc__pairs_median(d->pass_MBps + s * grids, n, d->passes, scratch)};
    json_object_object_get_ex(one, "t_usec", &t);
    json_object_object_get_ex(one, SC_RESULT_MBPS, &bw);
    if (!json_object_object_get_ex(one, "pairs", &p) || !json_object_is_type(p, json_type_int) ||
        json_object_get_int64(p) != (int64_t)pairs || sc_num_json(t, &claimed[0]) < 0 ||
        sc_num_json(bw, &claimed[1]) < 0 || claimed[0] != truth[0] || claimed[1] != truth[1]) {
        snprintf(why, whylen,
                 "sizes: entry %zu: pairs, t_usec and MBps are not what its file gives (%zu "
                 "pairs, medians %.9g us and %.9g MB/s)",
                 s, pairs, truth[0], truth[1]);
        rc = -EINVAL;
    }
    free(scratch);
    return rc;
}

static int sc__cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted copies of the names, neighbours compared: O(n log n). */
int sc_linkmatrix_unique(const sc_linkmatrix_data *d, char *why, size_t whylen)
{
    const char **sorted = malloc(d->n * sizeof(*sorted));
    int rc = 0;

    if (!sorted)
        return -ENOMEM;
    memcpy(sorted, d->nodes, d->n * sizeof(*sorted));
    qsort(sorted, d->n, sizeof(*sorted), sc__cmp_name);
    for (size_t i = 1; i < d->n && rc == 0; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            snprintf(why, whylen,
                     "nodes: \"%s\" is named twice (valid: one rank per node, "
                     "each node once)",
                     sorted[i]);
            rc = -EINVAL;
        }
    free(sorted);
    return rc;
}

static int sc__nodes(json_object *nodes, sc_linkmatrix_data *d, char *why, size_t whylen)
{
    if (!json_object_is_type(nodes, json_type_array) || json_object_array_length(nodes) < 2 ||
        json_object_array_length(nodes) > SC_LINKMATRIX_MAX_NODES) {
        snprintf(why, whylen, "nodes: not a list of 2-%d names", SC_LINKMATRIX_MAX_NODES);
        return -EINVAL;
    }
    d->n = json_object_array_length(nodes);
    if (!(d->nodes = calloc(d->n, sizeof(*d->nodes))))
        return -ENOMEM;
    for (size_t i = 0; i < d->n; i++) {
        json_object *name = json_object_array_get_idx(nodes, i);

        if (!json_object_is_type(name, json_type_string)) {
            snprintf(why, whylen, "nodes: entry %zu is not a name", i);
            return -EINVAL;
        }
        if (!(d->nodes[i] = sc_text_escape_dup(json_object_get_string(name), 255)))
            return -ENOMEM;
    }
    return 0;
}

/*
 * One size's grids from the file its entry names (sc_pairs_csv.h): exactly the name
 * sc_pairs_csv_name() gives for its bytes, read through the bundle's reader within the cap
 * of n nodes (checked before a byte is read), every line checked; the entry's pairs and
 * medians must be what the file gives. Returns 0, -EINVAL (why) or -ENOMEM.
 */
static int sc__size_file(const sc_bundle *b, json_object *one, size_t s, sc_linkmatrix_data *d,
                         char *why, size_t whylen)
{
    size_t n = d->n, grids = n * n * d->passes, size = 0, pairs = 0, cap;
    json_object *file = NULL;
    char want[64], *text = NULL, err[96];
    int fd, rc;

    sc_pairs_csv_name(d->bytes[s], want, sizeof(want));
    if (!json_object_object_get_ex(one, "file", &file) ||
        !json_object_is_type(file, json_type_string) ||
        strcmp(json_object_get_string(file), want) != 0) {
        snprintf(why, whylen, "sizes: entry %zu does not name its file %s", s, want);
        return -EINVAL;
    }
    if (!b) {
        snprintf(why, whylen, "%s: no bundle to read it from", want);
        return -EINVAL;
    }
    cap = sc_pairs_csv_cap(n, d->passes);
    fd = sc_bundle_open_read(b, want, &size);
    if (fd >= 0 && size > cap) {
        close(fd);
        fd = -EFBIG;
    }
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", want,
                 fd == -EFBIG ? "larger than its node count allows"
                              : sc_bundle_read_error(want, fd, err, sizeof(err)));
        return fd == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    rc = sc_file_read_fd(fd, cap, &text, &size);
    close(fd);
    if (rc < 0) {
        snprintf(why, whylen, "%s: %s", want, strerror(-rc));
        return rc == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    char reason[192];
    rc = sc_pairs_csv_parse(text, size, n, d->passes, d->bytes[s], d->pass_t_usec + s * grids,
                            d->pass_MBps + s * grids, &pairs, reason, sizeof(reason));
    free(text);
    if (rc < 0)
        snprintf(why, whylen, "%s: %s", want, reason);
    else
        rc = sc__size_summary(one, s, d, pairs, why, whylen);
    return rc;
}

/* Each pair's figure over the passes into out (sizes x n x n): the median of the passes
   that measured it (the mean of the middle two when even), NaN when none did. */
static void sc__combine(const sc_linkmatrix_data *d, const double *pass, double *out)
{
    size_t n = d->n, np = d->passes;
    double v[SC_LINKMATRIX_MAX_PASSES];

    for (size_t s = 0; s < d->n_sizes; s++)
        for (size_t c = 0; c < n * n; c++) {
            size_t k = 0;
            for (size_t p = 0; p < np; p++) {
                double x = pass[(s * np + p) * n * n + c];
                if (isfinite(x))
                    v[k++] = x;
            }
            qsort(v, k, sizeof(*v), sc__cmp_double);
            out[s * n * n + c] = k == 0 ? NAN : k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        }
}

static int sc__sizes(const sc_bundle *b, json_object *sizes, sc_linkmatrix_data *d, char *why,
                     size_t whylen)
{
    size_t n = d->n, cells;

    if (!json_object_is_type(sizes, json_type_array) || json_object_array_length(sizes) == 0 ||
        json_object_array_length(sizes) > SC_LINKMATRIX_MAX_SIZES) {
        snprintf(why, whylen, "sizes: not a list of 1-%d sizes", SC_LINKMATRIX_MAX_SIZES);
        return -EINVAL;
    }
    d->n_sizes = json_object_array_length(sizes);
    cells = d->n_sizes * n * n;
    if (cells * (d->passes + 1) > SC_LINKMATRIX_MAX_CELLS) { /* before allocating what the
                                                                file only claims */
        snprintf(why, whylen, "%zu sizes of %zu x %zu cells in %zu passes is more than %d cells",
                 d->n_sizes, n, n, d->passes, SC_LINKMATRIX_MAX_CELLS);
        return -EINVAL;
    }
    d->t_usec = malloc(cells * sizeof(double));
    d->MBps = malloc(cells * sizeof(double));
    d->pass_t_usec = malloc(cells * d->passes * sizeof(double));
    d->pass_MBps = malloc(cells * d->passes * sizeof(double));
    if (!d->t_usec || !d->MBps || !d->pass_t_usec || !d->pass_MBps)
        return -ENOMEM;
    for (size_t s = 0; s < d->n_sizes; s++) {
        json_object *one = json_object_array_get_idx(sizes, s), *bytes = NULL, *t = NULL,
                    *bw = NULL;
        int rc;

        if (!json_object_object_get_ex(one, "bytes", &bytes) ||
            !json_object_is_type(bytes, json_type_int) || json_object_get_int64(bytes) < 0 ||
            (s > 0 && (unsigned long long)json_object_get_int64(bytes) <= d->bytes[s - 1]) ||
            !json_object_object_get_ex(one, "t_usec", &t) ||
            !json_object_object_get_ex(one, SC_RESULT_MBPS, &bw)) {
            snprintf(why, whylen, "sizes: entry %zu lacks bytes (ascending), t_usec or MBps", s);
            return -EINVAL;
        }
        d->bytes[s] = (unsigned long long)json_object_get_int64(bytes);
        if (!json_object_is_type(t, json_type_array)) { /* the raw figures in their file */
            rc = sc__size_file(b, one, s, d, why, whylen);
            if (rc < 0)
                return rc;
            continue;
        }
        if (d->passes != 1) {
            snprintf(why, whylen, "sizes: entry %zu: grids of one pass, but passes %zu", s,
                     d->passes);
            return -EINVAL;
        }
        rc = sc__grid(t, n, d->pass_t_usec + s * n * n, "t_usec", why, whylen);
        if (rc == 0)
            rc = sc__grid(bw, n, d->pass_MBps + s * n * n, "MBps", why, whylen);
        if (rc < 0)
            return rc;
    }
    sc__combine(d, d->pass_t_usec, d->t_usec);
    sc__combine(d, d->pass_MBps, d->MBps);
    return 0;
}

int sc_linkmatrix_load(const sc_bundle *b, json_object *results, sc_linkmatrix_data *out, char *why,
                       size_t whylen)
{
    json_object *m = NULL, *nodes = NULL, *sizes = NULL, *rounds = NULL, *total = NULL;
    json_object *passes = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    snprintf(why, whylen, "unreadable");
    if (!results || !json_object_object_get_ex(results, SC_RESULT_MATRIX, &m))
        return -ENOENT;
    if (!json_object_object_get_ex(m, "nodes", &nodes) ||
        !json_object_object_get_ex(m, SC_RESULT_SIZES, &sizes)) {
        snprintf(why, whylen, "matrix: no nodes or sizes");
        return -EINVAL;
    }
    rc = sc__nodes(nodes, out, why, whylen);
    out->passes = 1; /* bundles before passes: one */
    if (rc == 0 && json_object_object_get_ex(m, SC_RESULT_PASSES, &passes) &&
        (!json_object_is_type(passes, json_type_int) || json_object_get_int64(passes) < 1 ||
         json_object_get_int64(passes) > SC_LINKMATRIX_MAX_PASSES)) {
        snprintf(why, whylen, "passes: not a whole number from 1 to %d", SC_LINKMATRIX_MAX_PASSES);
        rc = -EINVAL;
    } else if (passes) {
        out->passes = (size_t)json_object_get_int64(passes);
    }
    if (rc == 0)
        rc = sc__sizes(b, sizes, out, why, whylen);
    if (rc == 0 && json_object_object_get_ex(m, "rounds", &rounds) &&
        json_object_is_type(rounds, json_type_int) && json_object_get_int64(rounds) > 0)
        out->rounds = (size_t)json_object_get_int64(rounds);
    double seconds;
    if (rc == 0 && json_object_object_get_ex(m, "total_seconds", &total) &&
        sc_num_json(total, &seconds) == 0)
        out->total_seconds = seconds;
    if (rc < 0)
        sc_linkmatrix_data_free(out);
    return rc;
}

void sc_linkmatrix_data_free(sc_linkmatrix_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; d->nodes && i < d->n; i++)
        free(d->nodes[i]);
    free(d->nodes);
    free(d->t_usec);
    free(d->MBps);
    free(d->pass_t_usec);
    free(d->pass_MBps);
    memset(d, 0, sizeof(*d));
}
