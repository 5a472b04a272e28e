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

/*
 * The list is bounded, whatever the input: a card or a bundle made to produce thousands of
 * problems costs at most SC_DIAG_MAX_LINES lines of SC_DIAG_MAX_LINE bytes; further lines are
 * only counted (more), and shown as one "... and N more problems" line.
 */
#define SC_DIAG_MAX_LINES 20
#define SC_DIAG_MAX_LINE 512

typedef struct sc_diag {
    char **lines;
    size_t count;
    size_t cap;
    size_t more; /* lines not kept: past SC_DIAG_MAX_LINES (at least this many) */
} sc_diag;

void sc_diag_init(sc_diag *d);
/* Frees every line; the list may be reused after sc_diag_init(). NULL is accepted. */
void sc_diag_free(sc_diag *d);
/* Appends one formatted line, escaped with sc_text_escape() unless it is printable as it is
   (sc_text_is_printable: control characters, ESC, invalid UTF-8 escaped; a line escaped
   already is not escaped twice), cut to SC_DIAG_MAX_LINE bytes; only counted when the list
   is full. So every line of the list is one safe line. Returns 0 or -ENOMEM. */
int sc_diag_addf(sc_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends the lines of more that d does not hold yet, in order: a problem several checks
   find (every run of a sweep) is said once. Returns 0 or -ENOMEM. */
int sc_diag_merge(sc_diag *d, const sc_diag *more);
/* Appends every line of more, in order, and counts the ones it did not keep: d then says
   what the two lists said one after the other. Returns 0 or -ENOMEM. */
int sc_diag_append(sc_diag *d, const sc_diag *more);
/* Writes each line (escaped when it was added), prefixed with prefix (may be ""), to stream,
   then "<prefix>... and N more problems" when lines were dropped. */
void sc_diag_print(const sc_diag *d, const char *prefix, void *stream);

#endif
