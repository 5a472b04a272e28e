/*
 * options.h: what every subcommand says about a long option it does not know, as the
 * card says about a key (doc/contracts/analysis.md): one line, naming the closest option
 * the command has ("--ouput: unknown option (did you mean --output?)"), and one error per
 * mistake: when that option takes a value, the word after the mistyped one is its value,
 * not a card or a bundle to complain about a second time.
 */
#ifndef SC_WRAPPER_OPTIONS_H
#define SC_WRAPPER_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

/* The long option of table (ended by a {NULL} entry) closest to arg ("--ouput",
   "--ouput=runs"), within 2 edits; NULL when none is or arg is not a long option. */
const struct option *sc_option_suggest(const struct option *table, const char *arg);

/*
 * After getopt_long() returned '?' for argv[*next - 1] (next: &optind): writes the line
 * "ARG: unknown option (did you mean --NAME?)" (ARG escaped; without the suggestion when
 * there is none) into buf, and when the suggested option takes a value that arg does not
 * carry ("--ouput runs"), moves *next past that value. Returns the suggestion or NULL.
 */
const struct option *sc_option_unknown(const struct option *table, int argc, char **argv, int *next,
                                       char *buf, size_t len);

/* After getopt_long() returned ':' or '?' (c): the line for it, "ARG: needs a value" or
   sc_option_unknown()'s (which may move *next past the value of the option meant). */
void sc_option_error(const struct option *table, int c, int argc, char **argv, int *next, char *buf,
                     size_t len);

#endif
