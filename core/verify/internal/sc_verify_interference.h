/*
 * sc_verify_interference.h: internal to verify: its check of results.json's record of the
 * foreign work on the card's CPUs.
 *
 * compare, classify and report read each run's "interference" object of results.json to
 * call a side contaminated (sc_compare.h). The raw records (interference.txt, or the ranks'
 * lines of an MPI log) give it: a record that says other than they do, or is missing where
 * they hold CPUs, would let a forger turn a contaminated series into a clean one.
 */
#ifndef SC_VERIFY_INTERFERENCE_H
#define SC_VERIFY_INTERFERENCE_H

#include "sc_card.h"
#include "sc_diag.h"

#include <json-c/json.h>

/* Adds one problem when run's "interference" is not what interference_txt (and, for MPI,
   log) give. run: the run's object of results.json's "runs". */
void sc_verify_interference(const sc_card *card, const char *interference_txt, const char *log,
                            json_object *run, sc_diag *problems);

#endif
