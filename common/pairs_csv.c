/*
 * pairs_csv.c: a link matrix's raw figures as one file per size (sc_pairs_csv.h).
 */
#include "sc_pairs_csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SC__HEADER "# streamcard link matrix: bytes=%llu nodes=%zu\n"

size_t sc_pairs_csv_cap(size_t n)
{
    return 256 + (n > 1 ? n * (n - 1) / 2 : 0) * SC_PAIRS_CSV_LINE_MAX;
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

int sc_pairs_csv_write(FILE *f, size_t n, unsigned long long bytes, const double *t_usec,
                       const double *MBps)
{
    int bad = fprintf(f, SC__HEADER SC_PAIRS_CSV_COLUMNS "\n", bytes, n) < 0;

    for (size_t a = 0; a < n && !bad; a++)
        for (size_t b = a + 1; b < n && !bad; b++) {
            double t = t_usec[a * n + b], m = MBps[a * n + b];

            if (isfinite(t) && isfinite(m))
                bad = fprintf(f, "%zu,%zu,%.9g,%.9g\n", a, b, t, m) < 0;
        }
    return bad ? -EIO : 0;
}

/* One line's four fields at p (up to end, the line's newline excluded). 0 or -EINVAL. */
static int sc__line(const char *p, const char *end, size_t *a, size_t *b, double *t, double *m)
{
    char line[SC_PAIRS_CSV_LINE_MAX + 1], *q;
    size_t len = (size_t)(end - p);

    if (len == 0 || len > SC_PAIRS_CSV_LINE_MAX)
        return -EINVAL;
    memcpy(line, p, len);
    line[len] = '\0';
    for (size_t i = 0; i < len; i++) /* digits, signs, points, exponents and commas only */
        if (!strchr("0123456789+-.eE,", line[i]))
            return -EINVAL;
    errno = 0;
    if (line[0] < '0' || line[0] > '9')
        return -EINVAL;
    *a = strtoul(line, &q, 10);
    if (*q != ',' || q[1] < '0' || q[1] > '9')
        return -EINVAL;
    *b = strtoul(q + 1, &q, 10);
    if (*q != ',')
        return -EINVAL;
    *t = strtod(q + 1, &q);
    if (*q != ',')
        return -EINVAL;
    *m = strtod(q + 1, &q);
    if (*q != '\0' || errno || !isfinite(*t) || !isfinite(*m) || !(*t > 0) || !(*m > 0))
        return -EINVAL;
    return 0;
}

int sc_pairs_csv_parse(const char *text, size_t len, size_t n, unsigned long long bytes,
                       double *t_usec, double *MBps, size_t *pairs, char *why, size_t whylen)
{
    char head[128];
    const char *p = text, *end = text + len;
    size_t line = 2, last_a = 0, last_b = 0;

    *pairs = 0;
    for (size_t c = 0; c < n * n; c++)
        t_usec[c] = MBps[c] = NAN;
    if (len > sc_pairs_csv_cap(n)) {
        snprintf(why, whylen, "larger than %zu bytes, the most %zu nodes' pairs take",
                 sc_pairs_csv_cap(n), n);
        return -EINVAL;
    }
    int w = snprintf(head, sizeof(head), SC__HEADER SC_PAIRS_CSV_COLUMNS "\n", bytes, n);
    if (w < 0 || (size_t)w > len || memcmp(text, head, (size_t)w) != 0) {
        snprintf(why, whylen,
                 "does not begin \"# streamcard link matrix: bytes=%llu nodes=%zu\" "
                 "and the columns " SC_PAIRS_CSV_COLUMNS,
                 bytes, n);
        return -EINVAL;
    }
    for (p += w; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t a, b;
        double t, m;

        if (!nl || sc__line(p, nl, &a, &b, &t, &m) < 0 || !(a < b && b < n) ||
            (*pairs && (a < last_a || (a == last_a && b <= last_b)))) {
            snprintf(why, whylen,
                     "line %zu is not \"a,b,t_usec,MBps\" (valid: node indices a < b < %zu, "
                     "ascending, each pair once; positive numbers; a newline at the end)",
                     line + 1, n);
            return -EINVAL;
        }
        t_usec[a * n + b] = t_usec[b * n + a] = t;
        MBps[a * n + b] = MBps[b * n + a] = m;
        last_a = a;
        last_b = b;
        (*pairs)++;
        p = nl + 1;
    }
    return 0;
}
