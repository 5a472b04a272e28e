/*
 * sc_num.h: the one rule for a figure read from a bundle or a study record, wherever it is
 * read (results.json, build.json, a run's figures, study.json, a link matrix, the log's
 * tables, run.conf): a finite number (doc/contracts/results.md, "Figures"). NaN, Infinity
 * and -Infinity (json-c reads them, and 1e999 overflows to them), and the words nan, inf
 * and infinity in text, are not figures. A figure the workload could not measure is null in
 * its JSON, never an infinity.
 */
#ifndef SC_NUM_H
#define SC_NUM_H

#include <json-c/json.h>

#include <stdbool.h>
#include <stddef.h>

/* v as a figure: 0 and *out set for a finite number (an integer or a double); -ENOENT for
   NULL (absent or JSON null); -EINVAL for anything but a number; -ERANGE for a number that
   is not finite. */
int sc_num_json(json_object *v, double *out);

/* The figure at key of the object o, as sc_num_json() (-ENOENT when o is not an object or
   has no such key). */
int sc_num_get(json_object *o, const char *key, double *out);

/* The figure spelled by text[0..len), all of it: a decimal number as strtod reads it (sign,
   digits, point, exponent; no hexadecimal, no inf or nan, no space). 0 and *out set;
   -EINVAL when it is not one number; -ERANGE when it is not finite (1e999). */
int sc_num_text(const char *text, size_t len, double *out);

/* The same over a NUL-terminated text. */
int sc_num_str(const char *text, double *out);

/*
 * Whether every number of the JSON document doc is finite. When one is not, where says
 * which, as a path ("runs[3].metrics.rates.copy", keys escaped, cut to fit) with its value
 * ("Infinity", "-Infinity", "NaN"). The walk visits at most SC_NUM_MAX_NODES values and
 * nests at most SC_NUM_MAX_DEPTH deep; a document beyond either is refused too.
 */
#define SC_NUM_MAX_NODES 4000000
#define SC_NUM_MAX_DEPTH 64
bool sc_num_all_finite(json_object *doc, char *where, size_t len);

#endif
