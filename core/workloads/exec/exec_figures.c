/*
 * exec_figures.c: a program's figures by pattern (exec_figures.h). The log and the card may
 * both be hostile: a pattern is bounded before it is compiled (no back reference, small
 * intervals), every line is matched only up to SC_EXEC_MAX_LINE bytes, and a pattern stops at
 * its second match.
 */
#include "exec_figures.h"
#include "sc_trace_protocol.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sc_markers sc_exec_markers(const sc_card *card)
{
    if (card->markers)
        return !strcmp(card->markers, "library")    ? SC_MARKERS_LIBRARY
               : !strcmp(card->markers, "patterns") ? SC_MARKERS_PATTERNS
                                                    : SC_MARKERS_NONE;
    return card->begin_pattern ? SC_MARKERS_PATTERNS : SC_MARKERS_NONE;
}

int sc_exec_pattern_check(const char *pattern, int groups, char *why, size_t len)
{
    int intervals = 0, rc;
    bool in_bracket = false;
    regex_t re;

    if (strlen(pattern) > SC_CARD_MAX_PATTERN) {
        snprintf(why, len, "longer than %d bytes", SC_CARD_MAX_PATTERN);
        return -EINVAL;
    }
    for (const char *p = pattern; *p; p++) {
        if (in_bracket) {
            in_bracket = *p != ']';
        } else if (*p == '[') {
            in_bracket = true;
            p += p[1] == '^';
            p += p[1] == ']'; /* a leading ] is a member */
        } else if (*p == '\\' && isdigit((unsigned char)p[1])) {
            snprintf(why, len, "a back reference (\\%c) is not allowed", p[1]);
            return -EINVAL;
        } else if (*p == '\\' && p[1]) {
            p++;
        } else if (*p == '{') {
            for (const char *q = p + 1; isdigit((unsigned char)*q) || *q == ',';) {
                char *end;
                if (*q == ',') {
                    q++;
                } else if (strtol(q, &end, 10) > 100) {
                    snprintf(why, len, "an interval above {100}");
                    return -EINVAL;
                } else {
                    q = end;
                }
            }
            if (++intervals > 2) {
                snprintf(why, len, "more than two intervals ({m,n})");
                return -EINVAL;
            }
        }
    }
    if ((rc = regcomp(&re, pattern, REG_EXTENDED)) != 0) {
        regerror(rc, &re, why, len);
        return -EINVAL;
    }
    size_t n = re.re_nsub;
    regfree(&re);
    if (groups >= 0 && n != (size_t)groups) {
        snprintf(why, len, "%zu capture groups, not %d", n, groups);
        return -EINVAL;
    }
    return 0;
}

/* Calls fn for each line of log (at most SC_EXEC_MAX_LINE bytes; longer ones are skipped)
   with its number, until fn returns false. */
static void sc__lines(const char *log, bool (*fn)(const char *line, long no, void *ctx), void *ctx)
{
    char line[SC_EXEC_MAX_LINE + 1];
    long no = 0;

    for (const char *p = log; p && *p;) {
        size_t n = strcspn(p, "\n");
        no++;
        if (n <= SC_EXEC_MAX_LINE) {
            memcpy(line, p, n);
            line[n] = '\0';
            if (n && line[n - 1] == '\r')
                line[n - 1] = '\0';
            if (!fn(line, no, ctx))
                return;
        }
        p += n + (p[n] == '\n');
    }
}

typedef struct sc__match {
    regex_t re;
    long after;           /* lines up to this one are not matched */
    long first, second;   /* the lines of the first two matches */
    char capture[64 + 1]; /* the first match's capture group */
    bool capture_long;    /* longer than 64 bytes: no figure */
} sc__match;

static bool sc__match_line(const char *line, long no, void *ctx)
{
    sc__match *m = ctx;
    regmatch_t pm[2];

    if (no <= m->after || regexec(&m->re, line, 2, pm, 0) != 0)
        return true;
    if (m->first) {
        m->second = no;
        return false; /* twice is enough to refuse it */
    }
    m->first = no;
    if (pm[1].rm_so >= 0) {
        size_t n = (size_t)(pm[1].rm_eo - pm[1].rm_so);
        m->capture_long = n >= sizeof(m->capture);
        snprintf(m->capture, sizeof(m->capture), "%.*s", (int)n, line + pm[1].rm_so);
    }
    return true;
}

/* Where pattern matches log: the first two lines and the first capture. -1 when it does not
   compile (the card check refuses it first). */
static int sc__match_log(const char *log, const char *pattern, long after, sc__match *m)
{
    memset(m, 0, sizeof(*m));
    m->after = after;
    if (regcomp(&m->re, pattern, REG_EXTENDED) != 0)
        return -1;
    sc__lines(log, sc__match_line, m);
    regfree(&m->re);
    return 0;
}

long sc_exec_match_after(const char *log, const char *pattern, long after)
{
    sc__match m;

    return sc__match_log(log, pattern, after, &m) < 0 ? -1 : m.first;
}

/* The figure a match captured: 0 and *v, or -EINVAL with why. */
static int sc__figure(const sc_card_metric *metric, const sc__match *m, double *v, char *why,
                      size_t len)
{
    char *end = NULL;

    if (m->first == 0) {
        snprintf(why, len, "metric %s: its pattern matches no line of the log (valid: exactly one)",
                 metric->name);
        return -EINVAL;
    }
    if (m->second) {
        snprintf(why, len,
                 "metric %s: its pattern matches more than one line of the log (lines %ld and %ld; "
                 "valid: exactly one)",
                 metric->name, m->first, m->second);
        return -EINVAL;
    }
    errno = 0;
    *v = m->capture_long ? NAN : strtod(m->capture, &end);
    if (m->capture_long || end == m->capture || *end || errno || !isfinite(*v)) {
        snprintf(why, len, "metric %s: log line %ld: \"%.64s\" is not a finite number",
                 metric->name, m->first, m->capture);
        return -EINVAL;
    }
    return 0;
}

/* The marker library's figures, read line by line (sc__lines). */
typedef struct sc__markers {
    const sc_card *card;
    json_object *metrics;
    json_object *seen; /* name: the line it was read from */
    int rc;            /* the first problem's: -EINVAL or -ENOMEM */
    char why[512];
} sc__markers;

static bool sc__marker_fail(sc__markers *m, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool sc__marker_fail(sc__markers *m, int rc, const char *fmt, ...)
{
    va_list ap;

    m->rc = rc;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof(m->why), fmt, ap);
    va_end(ap);
    return false;
}

/* The card's metric called name; NULL when it declares none. */
static const sc_card_metric *sc__card_declares(const sc_card *card, const char *name)
{
    for (size_t i = 0; i < card->n_metrics; i++)
        if (card->metrics[i].name && !strcmp(card->metrics[i].name, name))
            return &card->metrics[i];
    return NULL;
}

static bool sc__marker_line(const char *line, long no, void *ctx)
{
    sc__markers *m = ctx;
    char name[101], value[65], unit[33], *end = NULL;
    int used = -1;
    json_object *was;

    if (strncmp(line, SC_TRACE_TAG_FIGURE, strlen(SC_TRACE_TAG_FIGURE)) != 0)
        return true;
    if (sscanf(line, SC_TRACE_FIGURE("%100[^ ]", "%64[^ ]", "%32[^ ]") "%n", name, value, unit,
               &used) != 3 ||
        line[used] != '\0')
        return sc__marker_fail(m, -EINVAL,
                               "log line %ld: a figure line that is not \"" SC_TRACE_FIGURE(
                                   "<name>", "<number>", "<unit>") "\"",
                               no);
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end || errno || !isfinite(v))
        return sc__marker_fail(m, -EINVAL, "log line %ld: figure %s: \"%s\" is not a finite number",
                               no, name, value);
    if (json_object_object_get_ex(m->seen, name, &was))
        return sc__marker_fail(m, -EINVAL,
                               "figure %s: reported twice by sc_marker_figure (log lines %d and "
                               "%ld; valid: once per run)",
                               name, json_object_get_int(was), no);
    if (json_object_object_add(m->seen, name, json_object_new_int((int)no)) < 0)
        return sc__marker_fail(m, -ENOMEM, "out of memory");
    /* A card metric of the same name: from: marker takes it in the card's unit; one read
       first by its pattern must say the same. */
    double declared;
    const sc_card_metric *cm = sc__card_declares(m->card, name);
    if (cm && cm->from_marker && (!cm->unit || strcmp(cm->unit, unit) != 0))
        return sc__marker_fail(m, -EINVAL,
                               "figure %s: sc_marker_figure reported it in %s (log line %ld), but "
                               "the card declares it in %s",
                               name, unit, no, cm->unit ? cm->unit : "no unit");
    if (cm && !cm->from_marker) {
        if (json_object_object_get_ex(m->metrics, name, &was) &&
            ((declared = json_object_get_double(was)) != v && fabs(declared - v) > 1e-9 * fabs(v)))
            return sc__marker_fail(m, -EINVAL,
                                   "figure %s: sc_marker_figure reported %.9g (log line %ld), but "
                                   "the card's metric %s reads %.9g from the log",
                                   name, v, no, name, declared);
        return true;
    }
    json_object *num = json_object_new_double(v);
    if (!num || json_object_object_add(m->metrics, name, num) < 0)
        return sc__marker_fail(m, -ENOMEM, "out of memory");
    return true;
}

/* The marker library's figures into metrics; 0, -EINVAL with why, or -ENOMEM. */
static int sc__marker_figures(const sc_card *card, const char *log, json_object *metrics, char *why,
                              size_t len)
{
    sc__markers m = {.card = card, .metrics = metrics, .seen = json_object_new_object()};

    if (!m.seen)
        return -ENOMEM;
    sc__lines(log, sc__marker_line, &m);
    json_object_put(m.seen);
    for (size_t i = 0; m.rc == 0 && i < card->n_metrics; i++) {
        const sc_card_metric *cm = &card->metrics[i];
        if (cm->from_marker && cm->name && !json_object_object_get_ex(metrics, cm->name, NULL))
            sc__marker_fail(&m, -EINVAL,
                            "metric %s: from: marker, but the program reported no figure %s with "
                            "sc_marker_figure (valid: exactly one " SC_TRACE_TAG_FIGURE
                            "line named %s)",
                            cm->name, cm->name, cm->name);
    }
    if (m.rc)
        snprintf(why, len, "%s", m.why);
    return m.rc;
}

int sc_exec_figures(const sc_card *card, const char *log, json_object *metrics, char *why,
                    size_t len)
{
    int rc = 0;

    for (size_t i = 0; i < card->n_metrics; i++) {
        const sc_card_metric *metric = &card->metrics[i];
        sc__match m;
        double v;
        char mine[512];
        if (metric->from_marker || !metric->pattern)
            continue; /* from the marker library's lines, below */
        if (sc__match_log(log, metric->pattern, 0, &m) < 0) {
            snprintf(mine, sizeof(mine), "metric %s: its pattern does not compile", metric->name);
        } else if (sc__figure(metric, &m, &v, mine, sizeof(mine)) == 0) {
            json_object *num = json_object_new_double(v);
            if (!num || json_object_object_add(metrics, metric->name, num) < 0)
                return -ENOMEM;
            continue;
        }
        if (rc == 0)
            snprintf(why, len, "%s", mine);
        rc = -EINVAL;
    }
    char mine[512];
    int marker_rc = sc__marker_figures(card, log, metrics, mine, sizeof(mine));
    if (marker_rc == -ENOMEM)
        return -ENOMEM;
    if (marker_rc < 0 && rc == 0) {
        snprintf(why, len, "%s", mine);
        rc = marker_rc;
    }
    return rc;
}
