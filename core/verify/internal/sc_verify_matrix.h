/*
 * sc_verify_matrix.h: internal to verify: a link matrix tied to its evidence
 * (doc/contracts/analysis.md, "Link matrix"). results.json's "matrix" names its nodes; they must be
 * the hosts the ranks ran on as stream.log's TRACE_RANK_BINDING lines say, one per rank, in rank
 * order: a matrix of invented nodes resealed into a real run's bundle is refused, not judged.
 */
#ifndef SC_VERIFY_MATRIX_H
#define SC_VERIFY_MATRIX_H

#include "sc_bundle.h"
#include "sc_diag.h"
#include "sc_tracelog.h"

#include <json-c/json.h>

/* Checks root's "matrix" (none: nothing to check) against t's rank bindings, and reads it
   back whole from bundle b (sc_linkmatrix_load(): every size's file within its node count's
   cap, every line, the summaries recomputed); problems start with "results.json: matrix". */
void sc_verify_matrix(const sc_bundle *b, json_object *root, const sc_tracelog *t,
                      sc_diag *problems);

#endif
