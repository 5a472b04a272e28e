/*
 * record_ranklibs.h: build.json's "libraries" of an MPI program we did not write: the shared
 * objects its ranks mapped (sc_ranklibs.h), not the launcher's the observer's snapshot shows.
 */
#ifndef SC_RECORD_RANKLIBS_H
#define SC_RECORD_RANKLIBS_H

#include "record.h"

#include <json-c/json.h>

/* Adds "libraries" to root: the paths the first run's log lists, each once with its SHA-256
   (through the user's hash cache), or a string saying why there are none. */
void sc_record_rank_libraries(const sc_execution *x, json_object *root);

#endif
