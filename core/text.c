/* text.c: small text helpers (see sc_text.h). */
#include "sc_text.h"

#include <string.h>

bool sc_word_in(const char *list, const char *seps, const char *word)
{
    size_t n = strlen(word);

    if (!list)
        return false;
    for (const char *w = list + strspn(list, seps); *w;) {
        size_t len = strcspn(w, seps);
        if (len == n && strncmp(w, word, n) == 0)
            return true;
        w += len;
        w += strspn(w, seps);
    }
    return false;
}
