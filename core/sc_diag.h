/*
 * sc_diag.h: a list of one-line problems.
 *
 * Validation reports every problem it finds at once (a user fixing a card should not
 * have to resubmit once per mistake), so checks append lines here instead of returning
 * at the first error. Each line is complete and greppable:
 *   "card.yaml:5: threads: 17 is more than the 16 CPUs in cpu_list 0-15 (valid: 1-16)"
 */
#ifndef SC_DIAG_H
#define SC_DIAG_H

#include <stddef.h>

typedef struct sc_diag {
    char **lines;
    size_t count;
    size_t cap;
} sc_diag;

void sc_diag_init(sc_diag *d);
/* Frees every line; the list may be reused after sc_diag_init(). NULL is accepted. */
void sc_diag_free(sc_diag *d);
/* The longest line kept, in bytes (a longer one is cut, ending with "..."). */
#define SC_DIAG_MAX_LINE 4096

/* Appends one formatted line, passed through sc_text_escape() (control characters, ESC,
   invalid UTF-8 escaped; cut at SC_DIAG_MAX_LINE). Returns 0 or -ENOMEM. */
int sc_diag_addf(sc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends the lines of more that d does not hold yet, in order: a problem several checks
   find (every run of a sweep) is said once. Returns 0 or -ENOMEM. */
int sc_diag_merge(sc_diag *d, const sc_diag *more);
/* Moves the first max lines of from to the end of d (as they are) and empties from.
   Returns how many lines of from were dropped beyond max; -ENOMEM (nothing moved). */
long sc_diag_take(sc_diag *d, sc_diag *from, size_t max);
/* Writes each line, prefixed with prefix (may be ""), to stream. */
void sc_diag_print(const sc_diag *d, const char *prefix, void *stream);

#endif
