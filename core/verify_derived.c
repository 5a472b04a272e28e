/* verify_derived.c: derived figures recomputed from raw ones (sc_verify_derived.h). */
#include "sc_verify_derived.h"

#include <math.h>
#include <string.h>
#include <strings.h>

/* kernels/stream.c's arrays hold double; its header line says so ("8 bytes per array
   element"). */
#define SC__STREAM_ELEMENT_BYTES 8.0

/* STREAM's bytes per element index for each function (stream.c's table: copy and scale
   read one array and write one, add and triad read two and write one). */
static const struct {
    const char *name;
    double arrays;
} sc__stream_bytes[] = {{"copy", 2}, {"scale", 2}, {"add", 3}, {"triad", 3}};

/*
 * True when shown (printed with unit shown_unit) can be num / den, where den was printed
 * as den_shown with unit den_unit: the quotient over den's whole rounding interval,
 * widened by half of shown's last digit and a relative 1e-9.
 */
static bool sc__quotient_shows(double shown, double shown_unit, double num, double den_shown,
                               double den_unit)
{
    double lo_den = den_shown - den_unit / 2, hi_den = den_shown + den_unit / 2;
    double slack = shown_unit / 2 + fabs(shown) * 1e-9;

    if (!(hi_den > 0) || !isfinite(shown))
        return false;
    if (shown + slack < num / hi_den)
        return false;
    return lo_den <= 0 || shown - slack <= num / lo_den;
}

static double sc__stream_arrays(const char *name)
{
    for (size_t i = 0; i < sizeof(sc__stream_bytes) / sizeof(sc__stream_bytes[0]); i++)
        if (!strcasecmp(name, sc__stream_bytes[i].name))
            return sc__stream_bytes[i].arrays;
    return 0;
}

static void sc__stream(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    for (size_t i = 0; i < t->n_rows; i++) {
        const sc_table_row *row = &t->rows[i];
        double arrays = sc__stream_arrays(row->name);
        if (arrays == 0) {
            sc_diag_addf(problems, "stream.log: a %s row, which is not a STREAM function",
                         row->name);
            continue;
        }
        /* MB/s = 1e-6 x bytes / fastest time; the table prints 1 decimal and 6 for times. */
        double mb = 1e-6 * arrays * SC__STREAM_ELEMENT_BYTES * (double)card->array_size;
        if (!sc__quotient_shows(row->best_rate_MBps, 0.1, mb, row->min_s, 1e-6))
            sc_diag_addf(problems,
                         "stream.log: %s %.1f MB/s, but %g MB over its min time %.6f s is "
                         "%.1f MB/s",
                         row->name, row->best_rate_MBps, mb, row->min_s,
                         row->min_s > 0 ? mb / row->min_s : 0.0);
    }
}

static void sc__ipsearch(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    const sc_figure *qps = sc_tracelog_figure(t, "qps");
    const sc_figure *wall = sc_tracelog_figure(t, "wall_seconds");

    if (!qps)
        return; /* no figures: the validation and min_rate checks say what is missing */
    if (!wall) {
        sc_diag_addf(problems, "stream.log: qps=%.1f, but no wall_seconds it is derived from",
                     qps->value);
        return;
    }
    double nq = (double)card->nq;
    if (!sc__quotient_shows(qps->value, qps->unit, nq, wall->value, wall->unit))
        sc_diag_addf(problems, "stream.log: qps=%.1f, but nq %.0f over wall_seconds %.6f is %.1f",
                     qps->value, nq, wall->value, wall->value > 0 ? nq / wall->value : 0.0);
}

static void sc__pingpong(const sc_tracelog *t, sc_diag *problems)
{
    for (size_t i = 0; i < t->n_imb_rows; i++) {
        const sc_imb_row *r = &t->imb_rows[i];
        /* Mbytes/sec = bytes / t[usec] for both kernels (mpi/bench.h). */
        if (!sc__quotient_shows(r->MBps, r->MBps_unit, (double)r->bytes, r->t_usec, r->t_usec_unit))
            sc_diag_addf(problems,
                         "stream.log: %llu bytes at %.2f Mbytes/sec, but over t[usec] %.2f "
                         "that is %.2f",
                         r->bytes, r->MBps, r->t_usec, r->t_usec > 0 ? r->bytes / r->t_usec : 0.0);
    }
}

void sc_verify_derived(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    switch (card->workload) {
    case SC_WORKLOAD_STREAM:
        sc__stream(t, card, problems);
        break;
    case SC_WORKLOAD_IPSEARCH:
        sc__ipsearch(t, card, problems);
        break;
    case SC_WORKLOAD_MPI_PINGPONG:
        sc__pingpong(t, problems);
        break;
    default:
        break;
    }
}
