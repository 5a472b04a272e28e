/*
 * sc_text.h: small text helpers shared by the card, the machine facts, the plugin and the
 * commands, among them the one escape for text that comes from a user (doc/contracts/errors.md,
 * "Errors and messages").
 */
#ifndef SC_TEXT_H
#define SC_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True when word is one of the words of list, separated by any of the characters of
 * seps ("a|b|c" with "|", "performance powersave" with " "). Exact, whole-word match.
 */
bool sc_word_in(const char *list, const char *seps, const char *word);

/*
 * Copies in[0..in_len) to out as text that is safe to show in one line of a log, a terminal,
 * a report or an export: well-formed UTF-8 is kept; a backslash, newline, tab and CR become
 * \\ \n \t \r; other C0 controls, DEL and bytes that are not well-formed UTF-8 become
 * \xNN; C1 controls, the line/paragraph separators and the bidirectional overrides and
 * isolates become \uNNNN. The result never splits a character or an escape; when it does not
 * fit in out_cap - 1 bytes it is cut and ends with "...". out is always NUL-terminated
 * (out_cap >= 1). Returns the length written, without the NUL.
 */
size_t sc_text_escape(char *out, size_t out_cap, const char *in, size_t in_len);

/* The escaped form of the NUL-terminated s in a new string of at most max_len bytes
   (0: as long as needed); NULL when out of memory. The caller frees it. */
char *sc_text_escape_dup(const char *s, size_t max_len);

/* The length of the longest prefix of s[0..len) of at most max bytes that does not end
   inside a UTF-8 character (len itself when it fits). */
size_t sc_text_cut(const char *s, size_t len, size_t max);

/* True when s[0..len) is exactly what sc_text_escape would print for it (nothing to escape). */
bool sc_text_is_safe(const char *s, size_t len);

/*
 * True when s[0..len) can be shown as one line as it is: well-formed UTF-8 without the
 * characters sc_text_escape escapes, except the backslash (so the output of sc_text_escape
 * passes). A reader of text that claims to be escaped already checks it with this.
 */
bool sc_text_is_printable(const char *s, size_t len);

/*
 * Cuts the NUL-terminated s in place to at most max_len bytes (max_len >= 3), never inside a
 * UTF-8 sequence; a text that was cut ends with "...". Returns its new length.
 */
size_t sc_text_truncate(char *s, size_t max_len);

/* The Levenshtein distance of two short texts (for "did you mean": card keys, the commands'
   options); SIZE_MAX when either has 63 bytes or more. */
size_t sc_text_distance(const char *a, const char *b);

/*
 * Finds repeated texts in one pass over a hash table: first[i] is the index of the first
 * text equal to texts[i] when an earlier one is, else n; a NULL text is never a repeat (its
 * first[i] is n). Returns 0 or -ENOMEM.
 */
int sc_text_find_repeats(const char *const *texts, size_t n, size_t *first);

#endif
