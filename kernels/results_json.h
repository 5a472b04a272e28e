/*
 * results_json.h: the workloads' --json results, written one way: built as json-c objects
 * and written by sct_json_write (streamcard-stream, streamcard-ipsearch and
 * streamcard-pingpong alike). `streamcard run` reads the file back with json-c.
 */
#ifndef SC_KERNELS_RESULTS_JSON_H
#define SC_KERNELS_RESULTS_JSON_H

#include <json-c/json.h>
#include <stdio.h>

/* Significant digits: every digit of a double, or the nine a timing carries. */
#define SCT_JSON_EXACT 17
#define SCT_JSON_TIMING 9

/*
 * A JSON number written as "%.<digits>g" (sct_json_double) or "%.<decimals>f"
 * (sct_json_fixed) writes v, or NULL, which json_object_object_add() takes as JSON null,
 * when v is not finite (JSON has no Inf or NaN) or memory ran out.
 */
json_object *sct_json_double(double v, int digits);
json_object *sct_json_fixed(double v, int decimals);

/* Writes root, pretty-printed and with a newline, to f and flushes it. Returns 0, -ENOMEM
   for a NULL root, or -EIO. root stays the caller's. */
int sct_json_write(FILE *f, json_object *root);

#endif
