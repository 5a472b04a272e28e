/*
 * sc_kv.h: "key=value" text, one pair per line: run.conf, state.env, capture_guard.env
 * and the platform/ snapshots. Values are single lines; writers replace control
 * characters so a value can never start a line of its own (a forged verdict).
 */
#ifndef SC_KV_H
#define SC_KV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_kv {
    char *text; /* NUL-terminated, grows as pairs are added */
    size_t len, cap;
    int failed; /* an allocation failed; the text is incomplete */
} sc_kv;

void sc_kv_init(sc_kv *kv);
void sc_kv_free(sc_kv *kv);
/* Appends "key=<formatted value>\n". Control characters in the value become '?'. */
void sc_kv_addf(sc_kv *kv, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends text verbatim (a comment line or a block written by another sc_kv). */
void sc_kv_append(sc_kv *kv, const char *text);

/*
 * Finds the LAST line "key=..." in text and copies its value into buf. Returns true when
 * found. The last one wins, as in a shell sourcing the file.
 */
bool sc_kv_get(const char *text, const char *key, char *buf, size_t buflen);
/* As sc_kv_get(), parsing the value as a long; false when absent or not a number. */
bool sc_kv_get_long(const char *text, const char *key, long *out);

#endif
