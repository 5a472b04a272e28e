/*
 * sc_text.h: small text helpers shared by the card, the machine facts and the plugin.
 */
#ifndef SC_TEXT_H
#define SC_TEXT_H

#include <stdbool.h>

/*
 * True when word is one of the words of list, separated by any of the characters of
 * seps ("a|b|c" with "|", "performance powersave" with " "). Exact, whole-word match.
 */
bool sc_word_in(const char *list, const char *seps, const char *word);

#endif
