/*
 * pairs_csv.c: a link matrix's raw figures as one file per size (sc_pairs_csv.h).
 */
#include "sc_pairs_csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SC__HEADER "# streamcard link matrix: bytes=%llu nodes=%zu passes=%zu\n"

size_t sc_pairs_csv_cap(size_t n, size_t passes)
{
    return 256 + (n > 1 ? n * (n - 1) / 2 : 0) * passes * SC_PAIRS_CSV_LINE_MAX;
}

double sc_pairs_csv_round(double x)
{
    char text[40];

    snprintf(text, sizeof(text), "%.9g", x);
    return strtod(text, NULL);
}

int sc_pairs_csv_name(unsigned long long bytes, char *buf, size_t len)
{
    int w = snprintf(buf, len, "matrix/%lluB.csv", bytes);

    return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int sc_pairs_csv_write(FILE *f, size_t n, size_t passes, size_t stride, unsigned long long bytes,
                       const double *t_usec, const double *MBps)
{
    int bad = fprintf(f, SC__HEADER SC_PAIRS_CSV_COLUMNS "\n", bytes, n, passes) < 0;

    for (size_t k = 0; k < passes && !bad; k++)
        for (size_t a = 0; a < n && !bad; a++)
            for (size_t b = a + 1; b < n && !bad; b++) {
                double t = t_usec[k * stride + a * n + b], m = MBps[k * stride + a * n + b];

                if (isfinite(t) && isfinite(m))
                    bad = fprintf(f, "%zu,%zu,%zu,%.9g,%.9g\n", k, a, b, t, m) < 0;
            }
    return bad ? -EIO : 0;
}

/* A whole number of digits at *p (at most 9 of them, no sign), the pointer moved past it and
   past the comma that must follow. -EINVAL: none, too long or no comma. */
static int sc__index(const char **p, size_t *out)
{
    size_t v = 0, k = 0;

    while (**p >= '0' && **p <= '9' && k < 10) {
        v = v * 10 + (size_t)(**p - '0');
        (*p)++;
        k++;
    }
    if (k == 0 || k > 9 || **p != ',')
        return -EINVAL;
    (*p)++;
    *out = v;
    return 0;
}

/* One line's five fields at p (up to end, the newline excluded). 0 or -EINVAL. */
static int sc__line(const char *p, const char *end, size_t *k, size_t *a, size_t *b, double *t,
                    double *m)
{
    char line[SC_PAIRS_CSV_LINE_MAX + 1], *q;
    const char *at = line;
    size_t len = (size_t)(end - p);

    if (len == 0 || len > SC_PAIRS_CSV_LINE_MAX)
        return -EINVAL;
    memcpy(line, p, len);
    line[len] = '\0';
    for (size_t i = 0; i < len; i++) /* digits, signs, points, exponents and commas only */
        if (!strchr("0123456789+-.eE,", line[i]))
            return -EINVAL;
    if (sc__index(&at, k) < 0 || sc__index(&at, a) < 0 || sc__index(&at, b) < 0)
        return -EINVAL;
    errno = 0;
    *t = strtod(at, &q);
    if (q == at || *q != ',')
        return -EINVAL;
    at = q + 1;
    *m = strtod(at, &q);
    if (q == at || *q != '\0' || errno || !isfinite(*t) || !isfinite(*m) || !(*t > 0) || !(*m > 0))
        return -EINVAL;
    return 0;
}

int sc_pairs_csv_parse(const char *text, size_t len, size_t n, size_t passes,
                       unsigned long long bytes, double *t_usec, double *MBps, size_t *lines,
                       char *why, size_t whylen)
{
    char head[160];
    const char *p = text, *end = text + len;
    size_t line = 2, last = 0, nn = n * n;

    *lines = 0;
    for (size_t c = 0; c < passes * nn; c++)
        t_usec[c] = MBps[c] = NAN;
    if (len > sc_pairs_csv_cap(n, passes)) {
        snprintf(why, whylen, "larger than %zu bytes, the most %zu nodes' pairs in %zu passes take",
                 sc_pairs_csv_cap(n, passes), n, passes);
        return -EINVAL;
    }
    int w = snprintf(head, sizeof(head), SC__HEADER SC_PAIRS_CSV_COLUMNS "\n", bytes, n, passes);
    if (w < 0 || (size_t)w > len || memcmp(text, head, (size_t)w) != 0) {
        snprintf(why, whylen,
                 "does not begin \"# streamcard link matrix: bytes=%llu nodes=%zu passes=%zu\" "
                 "and the columns " SC_PAIRS_CSV_COLUMNS,
                 bytes, n, passes);
        return -EINVAL;
    }
    for (p += w; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t k, a, b;
        double t, m;

        if (!nl || sc__line(p, nl, &k, &a, &b, &t, &m) < 0 || !(a < b && b < n && k < passes) ||
            (*lines && (k * n + a) * n + b <= last)) {
            snprintf(why, whylen,
                     "line %zu is not \"pass,a,b,t_usec,MBps\" (valid: pass < %zu, node "
                     "indices a < b < %zu, ascending, each pair once a pass; positive "
                     "numbers; a newline at the end)",
                     line + 1, passes, n);
            return -EINVAL;
        }
        last = (k * n + a) * n + b;
        t_usec[k * nn + a * n + b] = t_usec[k * nn + b * n + a] = t;
        MBps[k * nn + a * n + b] = MBps[k * nn + b * n + a] = m;
        (*lines)++;
        p = nl + 1;
    }
    return 0;
}
