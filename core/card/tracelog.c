/* tracelog.c: one pass over a workload's output (see sc_tracelog.h). */
#include "sc_tracelog.h"
#include "sc_kv.h"
#include "sc_num.h"
#include "sc_trace_protocol.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void sc__copy_line(char *dst, size_t dstlen, const char *line, size_t n)
{
    if (n >= dstlen)
        n = dstlen - 1;
    memcpy(dst, line, n);
    dst[n] = '\0';
}

/* The rest of line after prefix, or NULL when line does not start with it. */
static const char *sc__after(const char *line, const char *prefix)
{
    size_t n = strlen(prefix);

    return strncmp(line, prefix, n) == 0 ? line + n : NULL;
}

/*
 * True when the line holds the word nan/inf/infinity (any case, with optional sign).
 * The NOLINTs: clang-analyzer loses track of the bytes sc__copy_line() memcpy'd into the
 * caller's buffer and calls every byte below n "undefined".
 */
static bool sc__has_nonfinite(const char *line, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript) */
        if (i > 0 && (isalnum((unsigned char)line[i - 1]) || line[i - 1] == '_'))
            continue;
        size_t len = 0;
        if (n - i >= 8 && strncasecmp(line + i, "infinity", 8) == 0)
            len = 8;
        else if (n - i >= 3 &&
                 (strncasecmp(line + i, "nan", 3) == 0 || strncasecmp(line + i, "inf", 3) == 0))
            len = 3;
        bool after = len && i + len < n; /* a character follows the word */
        /* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript) */
        bool joined = after && (isalnum((unsigned char)line[i + len]) || line[i + len] == '_');
        if (len && !joined)
            return true;
    }
    return false;
}

/* Appends a copy of the size bytes at item to the array of *n items. 0 or -ENOMEM. */
static int sc__append(void **array, size_t *n, const void *item, size_t size)
{
    char *grown = realloc(*array, (*n + 1) * size);

    if (!grown)
        return -ENOMEM;
    memcpy(grown + *n * size, item, size);
    *array = grown;
    (*n)++;
    return 0;
}

static int sc__add_binding(sc_tracelog *t, long thread, long cpu)
{
    sc_binding b = {thread, cpu};

    return sc__append((void **)&t->bindings, &t->n_bindings, &b, sizeof(b));
}

static int sc__add_pool(sc_tracelog *t, const char *line)
{
    sc_pool_binding pb;
    char pin[16];
    int used = 0;

    if (sscanf(line, SC_TRACE_POOL_THREAD("%ld", "%ld", "%ld", "%15s") "%n", &pb.pool, &pb.thread,
               &pb.cpu, pin, &used) != 4 ||
        line[used] != '\0' ||
        (strcmp(pin, SC_TRACE_PIN_OK) != 0 && strcmp(pin, SC_TRACE_PIN_FAILED) != 0))
        return 1; /* malformed */
    pb.pinned = strcmp(pin, SC_TRACE_PIN_OK) == 0;
    return sc__append((void **)&t->pool_bindings, &t->n_pool_bindings, &pb, sizeof(pb));
}

static int sc__add_rank(sc_tracelog *t, const char *line)
{
    sc_rank_binding rb;
    int used = 0;

    memset(&rb, 0, sizeof(rb));
    if (sscanf(line, SC_TRACE_RANK_BINDING("%ld", "%127s", "%ld", "%ld", "%127s") "%n", &rb.rank,
               rb.host, &rb.cpu, &rb.pid, rb.allowed, &used) != 5 ||
        line[used] != '\0')
        return 1; /* malformed */
    return sc__append((void **)&t->rank_bindings, &t->n_rank_bindings, &rb, sizeof(rb));
}

static int sc__add_rank_thread(sc_tracelog *t, const char *line)
{
    sc_rank_thread rt;
    int used = 0;

    memset(&rt, 0, sizeof(rt));
    if (sscanf(line, SC_TRACE_RANK_THREAD("%ld", "%127s", "%ld", "%ld", "%ld") "%n", &rt.rank,
               rt.host, &rt.pid, &rt.tid, &rt.cpu, &used) != 5 ||
        line[used] != '\0')
        return 1; /* malformed */
    return sc__append((void **)&t->rank_threads, &t->n_rank_threads, &rt, sizeof(rt));
}

static int sc__add_rank_numa(sc_tracelog *t, const char *line)
{
    sc_rank_numa rn;
    int used = 0;

    memset(&rn, 0, sizeof(rn));
    if (sscanf(line, SC_TRACE_RANK_NUMA("%ld", "%127s", "%ld", "%llu") "%n", &rn.rank, rn.host,
               &rn.node, &rn.bytes, &used) != 4 ||
        line[used] != '\0')
        return 1; /* malformed */
    return sc__append((void **)&t->rank_numa, &t->n_rank_numa, &rn, sizeof(rn));
}

static int sc__add_text(char ***list, size_t *n, const char *text)
{
    char *copy = strdup(text);

    if (!copy || sc__append((void **)list, n, &copy, sizeof(copy)) < 0) {
        free(copy);
        return -ENOMEM;
    }
    return 0;
}

/* The place of a printed number's last digit: 0.01 for "12.34", 1 for "12". */
static double sc__unit_of(const char *number)
{
    const char *dot = strchr(number, '.');
    size_t decimals = dot ? strspn(dot + 1, "0123456789") : 0;
    double unit = 1;

    while (decimals--)
        unit /= 10;
    return unit;
}

/*
 * The first n words of line (separated by spaces or tabs) as figures (sc_num.h: finite
 * numbers only) into v, and each one's last printed digit's place into unit (may be NULL),
 * with nothing after them. True when the line is exactly that.
 */
static bool sc__numbers(const char *line, double *v, double *unit, size_t n)
{
    const char *p = line;

    for (size_t i = 0; i < n; i++) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        char word[64];
        if (len == 0 || len >= sizeof(word) || sc_num_text(p, len, &v[i]) < 0)
            return false;
        if (unit) {
            memcpy(word, p, len);
            word[len] = '\0';
            unit[i] = sc__unit_of(word);
        }
        p += len;
    }
    return p[strspn(p, " \t")] == '\0';
}

/* A count as the table prints it: decimal digits only, within 2^53 (exact as a double). */
static bool sc__count(double v, unsigned long long *out)
{
    if (v < 0 || v > 9007199254740992.0 || v != floor(v))
        return false;
    *out = (unsigned long long)v;
    return true;
}

/* IMB's table: a "#bytes ..." header, then rows "bytes repetitions t[usec] Mbytes/sec". */
static int sc__imb_row(sc_tracelog *t, const char *line)
{
    unsigned long long bytes, reps;
    double v[4], unit[4];

    line += strspn(line, " \t");
    if (strncmp(line, "#bytes", 6) == 0 || strncmp(line, "# bytes", 7) == 0) {
        t->in_imb_table = true;
        return 0;
    }
    if (!t->in_imb_table)
        return 0;
    if (sc__numbers(line, v, unit, 4) && unit[0] == 1 && unit[1] == 1 && sc__count(v[0], &bytes) &&
        sc__count(v[1], &reps)) {
        if (t->n_imb_rows >= t->limits.imb_rows) {
            snprintf(t->over_text, sizeof(t->over_text),
                     "more IMB table rows than the card's %zu message sizes", t->limits.imb_rows);
            return 1;
        }
        double usec = v[2], mbps = v[3];
        sc_imb_row row = {bytes, reps, usec, mbps, unit[2], unit[3]};
        if (sc__append((void **)&t->imb_rows, &t->n_imb_rows, &row, sizeof(row)) < 0)
            return -ENOMEM;
        if (mbps > t->imb_peak_MBps)
            t->imb_peak_MBps = mbps;
    } else if (!sc__after(line, SC_TRACE_TAG)) {
        t->in_imb_table = false;
    }
    return 0;
}

/* "qps=1234.5 wall_seconds=0.000128 ...": two or more name=number words and nothing else. */
static void sc__figures(sc_tracelog *t, const char *line)
{
    sc_figure found[16];
    size_t n = 0;

    for (const char *p = line + strspn(line, " "); *p; p += strspn(p, " ")) {
        size_t len = strcspn(p, " "), name_len = strcspn(p, "=");
        char word[128];
        if (n == sizeof(found) / sizeof(found[0]) || name_len == 0 || name_len >= len ||
            name_len >= sizeof(found[0].name) || len >= sizeof(word))
            return;
        snprintf(word, sizeof(word), "%.*s", (int)len, p);
        for (size_t i = 0; i < name_len; i++)
            if (!islower((unsigned char)word[i]) && !isdigit((unsigned char)word[i]) &&
                word[i] != '_')
                return;
        if (sc_num_str(word + name_len + 1, &found[n].value) < 0)
            return;
        snprintf(found[n].name, sizeof(found[n].name), "%.*s", (int)name_len, word);
        found[n++].unit = sc__unit_of(word + name_len + 1);
        p += len;
    }
    for (size_t i = 0; n >= 2 && i < n; i++) {
        sc_figure *slot = (sc_figure *)sc_tracelog_figure(t, found[i].name);
        if (!slot && t->n_figures < sizeof(t->figures) / sizeof(t->figures[0]))
            slot = &t->figures[t->n_figures++];
        if (slot)
            *slot = found[i];
    }
}

/* "Copy:   12345.6   0.001   0.001   0.002": a result table row. 1 when it is one beyond the
   limits. */
static int sc__table_row(sc_tracelog *t, const char *line)
{
    sc_table_row row;
    int name_len = 0;
    double v[4];

    if (sscanf(line, "%31[A-Za-z]:%n", row.name, &name_len) != 1 || name_len == 0)
        return 0;
    if (!sc__numbers(line + name_len, v, NULL, 4))
        return 0;
    if (t->n_rows >= t->limits.table_rows) {
        snprintf(t->over_text, sizeof(t->over_text),
                 "more STREAM table rows than the %zu function%s the card's kernel runs",
                 t->limits.table_rows, t->limits.table_rows == 1 ? "" : "s");
        return 1;
    }
    if (t->n_rows >= sizeof(t->rows) / sizeof(t->rows[0]))
        return 0;
    row.best_rate_MBps = v[0];
    row.avg_s = v[1];
    row.min_s = v[2];
    row.max_s = v[3];
    t->rows[t->n_rows++] = row;
    return 0;
}

int sc_tracelog_bytes_span(const char *line, char *out, size_t len)
{
    static const char *const spans[] = {SC_TRACE_SPAN_MAIN_LOOP, SC_TRACE_SPAN_MPI,
                                        SC_TRACE_SPAN_BEGIN_TO_FINALIZE};
    int r, used = 0;
    char netns[32];
    unsigned long long sent;
    size_t dropped;

    if (len)
        out[0] = '\0';
    if (sscanf(line,
               SC_TRACE_AFTER_TAG(SC_TRACE_PAYLOAD_BYTES("%d", "%31s", "%llu", "%zu") "%n",
                                  SC_TRACE_TAG_PAYLOAD_BYTES),
               &r, netns, &sent, &dropped, &used) != 4)
        return -EINVAL;
    const char *rest = line + used, *span = sc__after(rest, SC_TRACE_BYTES_SPAN(""));
    if (!*rest)
        return 0; /* a line from before the field */
    for (size_t i = 0; span && i < sizeof(spans) / sizeof(spans[0]); i++)
        if (!strcmp(span, spans[i])) {
            snprintf(out, len, "%s", span);
            return 0;
        }
    return -EBADMSG;
}

/* The per-rank MPI lines: their tags and run.conf keys, in the order of sc_mpi_line. */
static const struct {
    const char *tag, *conf_key;
} sc__mpi_lines[SC_MPI_LINES] = {
    [SC_MPI_TRANSPORT_RANK] = {SC_TRACE_TAG_TRANSPORT_RANK, "transport_rank"},
    [SC_MPI_REFUSED] = {SC_TRACE_TAG_TRANSPORT_REFUSED, "transport_refused"},
    [SC_MPI_PAYLOAD] = {SC_TRACE_TAG_PAYLOAD_BYTES, "transport_payload"},
    [SC_MPI_IFACE] = {SC_TRACE_TAG_IFACE_BYTES, "transport_iface"},
    [SC_MPI_LIBRARY] = {SC_TRACE_TAG_MPI_LIBRARY, "mpi_library"},
    [SC_MPI_PARAM] = {SC_TRACE_TAG_MPI_PARAM, "mpi_param"},
    [SC_MPI_FABRIC] = {SC_TRACE_TAG_FABRIC_BYTES, "transport_fabric"},
};

/* One line of the trace protocol (sc_trace_protocol.h): its tag says which. */
static int sc__trace_line(sc_tracelog *t, const char *buf, long lineno)
{
    const char *rest;
    long a, b;
    int used = 0;

    if (strcmp(buf, SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN) == 0) {
        if (!t->begin_line)
            t->begin_line = lineno;
    } else if (strcmp(buf, SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END) == 0) {
        if (!t->end_line)
            t->end_line = lineno;
    } else if (sc__after(buf, SC_TRACE_TAG_THREAD_BINDING)) {
        if (sscanf(buf, SC_TRACE_THREAD_BINDING("%ld", "%ld") "%n", &a, &b, &used) == 2 &&
            buf[used] == '\0')
            return sc__add_binding(t, a, b);
        if (!t->malformed_line)
            t->malformed_line = lineno;
    } else if (sc__after(buf, SC_TRACE_TAG_RANK_BINDING) ||
               sc__after(buf, SC_TRACE_TAG_POOL_THREAD) ||
               sc__after(buf, SC_TRACE_TAG_RANK_THREAD) || sc__after(buf, SC_TRACE_TAG_RANK_NUMA)) {
        int rc = sc__after(buf, SC_TRACE_TAG_RANK_BINDING)  ? sc__add_rank(t, buf)
                 : sc__after(buf, SC_TRACE_TAG_POOL_THREAD) ? sc__add_pool(t, buf)
                 : sc__after(buf, SC_TRACE_TAG_RANK_THREAD) ? sc__add_rank_thread(t, buf)
                                                            : sc__add_rank_numa(t, buf);
        if (rc < 0)
            return rc;
        if (rc > 0 && !t->malformed_line)
            t->malformed_line = lineno;
    } else if (sc__after(buf, SC_TRACE_TAG_READY_WAIT)) {
        double ms;
        const char *value = sc__after(buf, SC_TRACE_READY_WAIT(""));
        if (value && sc_num_str(value, &ms) == 0 && ms >= 0 && t->ready_wait_ms < 0)
            t->ready_wait_ms = ms;
        else if (t->ready_wait_ms < 0 && !t->malformed_line)
            t->malformed_line = lineno;
    } else if ((rest = sc__after(buf, SC_TRACE_TAG_TRANSPORT SC_TRACE_TRANSPORT_FIRST))) {
        const char *words = sc__after(buf, SC_TRACE_TAG_TRANSPORT);
        snprintf(t->transport, sizeof(t->transport), "%.*s", (int)strcspn(rest, " "), rest);
        sc__copy_line(t->transport_line, sizeof(t->transport_line), words, strlen(words));
    } else {
        for (int i = 0; i < SC_MPI_LINES; i++) {
            if (!(rest = sc__after(buf, sc__mpi_lines[i].tag)))
                continue;
            char span[32]; /* a payload line that ends in anything but a span is malformed */
            if (i == SC_MPI_PAYLOAD &&
                sc_tracelog_bytes_span(rest, span, sizeof(span)) == -EBADMSG && !t->malformed_line)
                t->malformed_line = lineno;
            return sc__add_text(&t->mpi[i].items, &t->mpi[i].n, rest);
        }
    }
    return 0;
}

static int sc__line(sc_tracelog *t, const char *line, size_t n, long lineno)
{
    char buf[2048]; /* a rank's transport line lists every libfabric provider */
    long a;

    sc__copy_line(buf, sizeof(buf), line, n);
    if (sc__after(buf, SC_TRACE_TAG))
        return sc__trace_line(t, buf, lineno);
    if (sscanf(buf, SC_TRACE_THREADS_REQUESTED("%ld"), &a) == 1)
        t->threads_requested = a;
    else if (sscanf(buf, SC_TRACE_THREADS_COUNTED("%ld"), &a) == 1)
        t->threads_counted = a;
    else if (sscanf(buf, SC_TRACE_RANKS_REQUESTED("%ld"), &a) == 1)
        t->ranks_requested = a;
    else if (sscanf(buf, SC_TRACE_RANKS_COUNTED("%ld"), &a) == 1)
        t->ranks_counted = a;
    else if (sscanf(buf, SC_TRACE_CLOCK_GRANULARITY("%ld"), &a) == 1 && a > 0)
        t->clock_granularity_us = a;
    int rc = sc__imb_row(t, buf);
    if (rc != 0)
        return rc; /* out of memory, or a row beyond the limits */
    sc__figures(t, buf);
    if (sc__after(buf, SC_TRACE_VALIDATES) && !t->validates_line)
        t->validates_line = lineno;
    if (strstr(buf, SC_TRACE_FAILED_VALIDATION) && !t->failed_line) {
        t->failed_line = lineno;
        sc__copy_line(t->failed_text, sizeof(t->failed_text), buf, strlen(buf));
    }
    /* A NaN or Inf among the results fails validation; "env: NAME=VALUE" lines are the
       workload's record of its environment (GOMP_SPINCOUNT=INFINITY is a valid value), and
       interference records name other users' tasks (one may call itself "inf"). */
    if (!t->nonfinite_line && strncmp(buf, "env: ", 5) != 0 &&
        strncmp(buf, SC_TRACE_TAG_INTERFERENCE, strlen(SC_TRACE_TAG_INTERFERENCE)) != 0 &&
        sc__has_nonfinite(buf, strlen(buf))) {
        t->nonfinite_line = lineno;
        sc__copy_line(t->nonfinite_text, sizeof(t->nonfinite_text), buf, strlen(buf));
    }
    return sc__table_row(t, buf);
}

int sc_tracelog_parse(const char *log, sc_tracelog *out)
{
    static const sc_tracelog_limits none = {SIZE_MAX, SIZE_MAX, SIZE_MAX};

    return sc_tracelog_parse_bounded(log, &none, out);
}

int sc_tracelog_parse_bounded(const char *log, const sc_tracelog_limits *limits, sc_tracelog *out)
{
    long lineno = 0;

    memset(out, 0, sizeof(*out));
    out->threads_requested = out->threads_counted = -1;
    out->ranks_requested = out->ranks_counted = -1;
    out->ready_wait_ms = -1;
    out->clock_granularity_us = -1;
    out->limits = *limits;
    for (const char *line = log; line && *line;) {
        size_t n = strcspn(line, "\n");
        size_t trimmed = n;
        while (trimmed > 0 && (line[trimmed - 1] == '\r' || line[trimmed - 1] == ' '))
            trimmed--;
        int rc = (size_t)lineno < limits->lines ? sc__line(out, line, trimmed, lineno + 1) : 1;
        lineno++;
        if (rc < 0) {
            sc_tracelog_free(out);
            return rc;
        }
        if (rc > 0) { /* beyond the limits: nothing after it is read */
            out->over_line = lineno;
            if (!*out->over_text)
                snprintf(out->over_text, sizeof(out->over_text),
                         "more than %zu lines, more than a run of the card prints", limits->lines);
            break;
        }
        line += n;
        if (*line == '\n')
            line++;
    }
    return 0;
}

void sc_tracelog_stores(const char *log, size_t max_lines, char *buf, size_t len)
{
    size_t n = 0;

    if (len)
        *buf = '\0';
    for (const char *line = log; line && *line && n++ < max_lines;
         line += strcspn(line, "\n"), line += *line == '\n')
        if (strncmp(line, "Stores: ", 8) == 0) {
            snprintf(buf, len, "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
            return;
        }
}

void sc_tracelog_free(sc_tracelog *t)
{
    if (!t)
        return;
    free(t->bindings);
    t->bindings = NULL;
    t->n_bindings = 0;
    free(t->rank_bindings);
    free(t->rank_threads);
    free(t->rank_numa);
    t->rank_bindings = NULL;
    t->n_rank_bindings = 0;
    free(t->pool_bindings);
    t->pool_bindings = NULL;
    t->n_pool_bindings = 0;
    free(t->imb_rows);
    t->imb_rows = NULL;
    t->n_imb_rows = 0;
    for (int k = 0; k < SC_MPI_LINES; k++) {
        for (size_t i = 0; i < t->mpi[k].n; i++)
            free(t->mpi[k].items[i]);
        free(t->mpi[k].items);
        t->mpi[k].items = NULL;
        t->mpi[k].n = 0;
    }
}

/* Case-insensitive: line[0..n) holds word. */
static bool sc__has_word(const char *line, size_t n, const char *word)
{
    size_t w = strlen(word);

    for (size_t i = 0; i + w <= n; i++)
        if (strncasecmp(line + i, word, w) == 0)
            return true;
    return false;
}

/* "counters: unavailable: perf_event_open ...": a workload's report that a measurement it
   offers could not be made (sct_perf_print()), not an error of the run. */
static bool sc__unavailable_report(const char *line, size_t n)
{
    size_t w = 0;

    while (w < n && (islower((unsigned char)line[w]) || line[w] == '_'))
        w++;
    return w > 0 && n - w >= 15 && strncmp(line + w, ": unavailable: ", 15) == 0;
}

long sc_tracelog_first_cause(const char *log, char *buf, size_t len)
{
    static const char *const words[] = {
        "error",   "fail",      "unable",  "cannot", "can't",     "abort", "denied",
        "refused", "not found", "no such", "killed", "timed out", "fatal", "segmentation fault"};
    long lineno = 0;

    if (len)
        *buf = '\0';
    for (const char *line = log; line && *line;) {
        size_t n = strcspn(line, "\n");
        lineno++;
        bool skip = !strncmp(line, SC_TRACE_TAG, strlen(SC_TRACE_TAG)) ||
                    !strncmp(line, SC_TRACE_VALIDATES, strlen(SC_TRACE_VALIDATES)) ||
                    !strncmp(line, "env: ", 5) || sc__unavailable_report(line, n);
        for (size_t i = 0; !skip && i < sizeof(words) / sizeof(words[0]); i++)
            if (sc__has_word(line, n, words[i])) {
                while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
                    n--;
                sc__copy_line(buf, len, line, n);
                return lineno;
            }
        line += n + (line[n] == '\n');
    }
    return 0;
}

const sc_table_row *sc_tracelog_row(const sc_tracelog *t, const char *name)
{
    for (size_t i = 0; i < t->n_rows; i++)
        if (strcasecmp(t->rows[i].name, name) == 0)
            return &t->rows[i];
    return NULL;
}

const sc_figure *sc_tracelog_figure(const sc_tracelog *t, const char *name)
{
    for (size_t i = 0; i < t->n_figures; i++)
        if (strcmp(t->figures[i].name, name) == 0)
            return &t->figures[i];
    return NULL;
}

const sc_imb_row *sc_tracelog_imb_row(const sc_tracelog *t, unsigned long long bytes)
{
    for (size_t i = 0; i < t->n_imb_rows; i++)
        if (t->imb_rows[i].bytes == bytes)
            return &t->imb_rows[i];
    return NULL;
}

bool sc_tracelog_shows(double claimed, double value, double unit)
{
    /* Figures only (sc_num.h): for an infinite claim the bound below is infinite too. */
    if (!isfinite(claimed) || !isfinite(value) || !isfinite(unit))
        return false;
    return fabs(claimed - value) <= unit / 2 + 1e-9 * fabs(claimed);
}

void sc_tracelog_transport_conf(const sc_tracelog *t, sc_kv *kv)
{
    char key[64];

    sc_kv_addf(kv, "transport", "%s", t && *t->transport ? t->transport : "unknown");
    if (!t)
        return;
    for (const char *p = t->transport_line; *p;) {
        size_t n = strcspn(p, " "), k = strcspn(p, "=");
        if (k < n && strncmp(p, "transport=", 10) != 0) {
            snprintf(key, sizeof(key), "transport_%.*s", (int)k, p);
            sc_kv_addf(kv, key, "%.*s", (int)(n - k - 1), p + k + 1);
        }
        p += n + strspn(p + n, " ");
    }
    for (int k = 0; k < SC_MPI_LINES; k++)
        for (size_t i = 0; i < t->mpi[k].n; i++)
            sc_kv_addf(kv, sc__mpi_lines[k].conf_key, "%s", t->mpi[k].items[i]);
}

bool sc_tracelog_is_transport_conf(const char *line)
{
    if (!strncmp(line, "transport=", 10))
        return true;
    if (!strncmp(line, "transport_", 10) && strncmp(line, "transport_ok=", 13) != 0)
        return true;
    return !strncmp(line, "mpi_library=", 12) || !strncmp(line, "mpi_param=", 10);
}

bool sc_tracelog_quotient_shows(double shown, double shown_unit, double num, double den_shown,
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
