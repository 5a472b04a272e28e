/* options.c: an unknown long option, said once with the closest one (see options.h). */
#include "options.h"
#include "sc_text.h"

#include <stdio.h>
#include <string.h>

const struct option *sc_option_suggest(const struct option *table, const char *arg)
{
    const struct option *best = NULL;
    size_t best_d = 3; /* close misspellings only, as for card keys */
    char name[64];

    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return NULL;
    snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    for (const struct option *o = table; o && o->name; o++) {
        size_t d = sc_text_distance(name, o->name);
        if (d < best_d) {
            best_d = d;
            best = o;
        }
    }
    return best;
}

const struct option *sc_option_unknown(const struct option *table, int argc, char **argv, int *next,
                                       char *buf, size_t len)
{
    const char *arg = *next > 0 && *next <= argc ? argv[*next - 1] : "?";
    const struct option *near = sc_option_suggest(table, arg);
    char shown[256];

    sc_text_escape(shown, sizeof(shown), arg, strlen(arg)); /* the user's text */
    if (near)
        snprintf(buf, len, "%s: unknown option (did you mean --%s?)", shown, near->name);
    else
        snprintf(buf, len, "%s: unknown option", shown);
    /* "--ouput runs": runs is the value of the option meant, not a card or a bundle. */
    if (near && near->has_arg == required_argument && !strchr(arg, '=') && *next < argc &&
        argv[*next][0] != '-')
        (*next)++;
    return near;
}

void sc_option_error(const struct option *table, int c, int argc, char **argv, int *next, char *buf,
                     size_t len)
{
    char shown[256];

    if (c != ':') {
        sc_option_unknown(table, argc, argv, next, buf, len);
        return;
    }
    const char *arg = *next > 0 && *next <= argc ? argv[*next - 1] : "?";
    sc_text_escape(shown, sizeof(shown), arg, strlen(arg));
    snprintf(buf, len, "%s: needs a value", shown);
}
