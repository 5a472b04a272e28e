/*
 * sc_pairs_csv.h: a link matrix's raw figures, one file per message size
 * (doc/contracts/analysis.md, "Link matrix", "Storage"). libc only: streamcard-pingpong's rank 0
 * writes it, verify and health read it back.
 *
 * The file, matrix/<bytes>B.csv in the bundle:
 *   # streamcard link matrix: bytes=<bytes> nodes=<n> passes=<p>
 *   pass,a,b,t_usec,MBps
 *   <pass>,<a>,<b>,<t_usec>,<MBps>   one line per measured pair and pass, ascending by
 *                                    (pass, a, b), a < b < n, pass < p
 * a and b are indices into results.json's matrix.nodes; a pass is one whole schedule of
 * rounds (the passes one after the other); the figures are printed with 9 significant
 * digits ("%.9g", far beyond what a measurement holds) and the summaries of results.json
 * are computed from the figures as printed, so that verify gets them again exactly. A pair
 * not measured in a pass has no line. A file of n nodes and p passes is at most
 * sc_pairs_csv_cap(n, p) bytes: the header and SC_PAIRS_CSV_LINE_MAX per pair and pass.
 */
#ifndef SC_PAIRS_CSV_H
#define SC_PAIRS_CSV_H

#include <stdio.h>

#define SC_PAIRS_CSV_LINE_MAX 64 /* "99,4095,4094,-1.23456789e+300,..." fits */
#define SC_PAIRS_CSV_COLUMNS "pass,a,b,t_usec,MBps"

/* The largest file of n nodes' pairs in p passes. */
size_t sc_pairs_csv_cap(size_t n, size_t passes);

/* A figure as the file holds it: x printed with 9 significant digits and read back. */
double sc_pairs_csv_round(double x);

/* The file's name in the bundle for a size: "matrix/<bytes>B.csv". */
int sc_pairs_csv_name(unsigned long long bytes, char *buf, size_t len);

/* Writes the file of one size: for each pass k < passes, the pairs a < b of the n x n grids
   t_usec + k * stride and MBps + k * stride whose figures are both finite. Returns 0 or
   -EIO. */
int sc_pairs_csv_write(FILE *f, size_t n, size_t passes, size_t stride, unsigned long long bytes,
                       const double *t_usec, const double *MBps);

/*
 * Reads text (len bytes, any content: the bundle is the user's) as the file of n nodes,
 * passes and bytes: into passes n x n grids each of t_usec and MBps (pass k at k * n * n;
 * filled with NAN first, both halves set) and *lines. Everything is checked: the header's
 * bytes, nodes and passes, the columns line, every line "k,a,b,t,m" with k < passes and
 * a < b < n, in ascending order (so no pair twice in a pass), t and m positive finite
 * numbers, at most sc_pairs_csv_cap(n, passes) bytes. Returns 0, or -EINVAL with a reason.
 */
int sc_pairs_csv_parse(const char *text, size_t len, size_t n, size_t passes,
                       unsigned long long bytes, double *t_usec, double *MBps, size_t *lines,
                       char *why, size_t whylen);

#endif
