/* cause.c: why a run failed, in one line (see sc_cause.h). */
#include "sc_cause.h"
#include "sc_text.h"
#include "sc_tracelog.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Appends to buf (used bytes in *used), never past len; sets *cut when it did not fit. */
static void sc__add(char *buf, size_t len, size_t *used, bool *cut, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void sc__add(char *buf, size_t len, size_t *used, bool *cut, const char *fmt, ...)
{
    va_list ap;

    if (*cut)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *cut = *used + (size_t)n >= len;
    *used = *cut ? len - 1 : *used + (size_t)n;
}

/* How telling a failed gate is, 0 most: the workload's end by a signal or from outside
   (exit_code); then a note that shows what the evidence says before one that lacks it
   ("not supported by evidence:"), an outcome before the environment (a crash before the
   phases it could not reach). */
static int sc__rank(const sc_gates *gates, sc_gate_id id, bool outside)
{
    const char *note = gates->g[id].note;

    if ((outside || gates->signalled) && id == SC_GATE_EXIT_CODE)
        return 0;
    bool evidence =
        gates->g[id].state == SC_GATE_FAIL && strncmp(note, "not supported by evidence", 25) != 0;
    return 1 + (evidence ? 0 : 2) + (sc_gate_class_of(id) == SC_GATE_OUTCOME ? 0 : 1);
}

size_t sc_cause_of_run(const sc_gates *gates, const char *log, char *buf, size_t len)
{
    bool outside = gates->ended_from_outside && sc_gates_failed(gates, SC_GATE_EXIT_CODE);
    bool explained = false, also = false, cut = false;
    const char *first = NULL;
    size_t used = 0;
    char line[400], shown[480];

    if (!len)
        return 0;
    *buf = '\0';
    for (int rank = 0; rank <= 4; rank++)
        for (int i = 0; i < SC_GATE_COUNT; i++) {
            sc_gate_id id = (sc_gate_id)i;
            if (!sc_gates_failed(gates, id) || sc__rank(gates, id, outside) != rank)
                continue;
            explained = explained || sc_gate_log_explains(id);
            if (!first) {
                first = gates->g[id].state == SC_GATE_FAIL ? gates->g[id].note : "not computed";
                sc__add(buf, len, &used, &cut, "gate %s failed: %s%s", sc_gate_name(id), first,
                        outside && id == SC_GATE_EXIT_CODE ? ", from outside the workload" : "");
            } else {
                sc__add(buf, len, &used, &cut, "%s%s",
                        also ? ", " : "; also failed: ", sc_gate_name(id));
                also = true;
            }
        }
    long at = !first || outside || !explained || !log
                  ? 0
                  : sc_tracelog_first_cause(log, line, sizeof(line));
    if (at > 0) {
        sc_text_escape(shown, sizeof(shown), line, strlen(line)); /* the workload's words */
        if (!strstr(first, shown)) /* the first note quotes it already */
            sc__add(buf, len, &used, &cut, "; workload log line %ld: %s", at, shown);
    }
    if (cut && used > 3) /* cut: never inside a character, and said with "..." */
        used = sc_text_truncate(buf, used - 1);
    return used;
}
