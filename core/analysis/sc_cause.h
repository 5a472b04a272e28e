/*
 * sc_cause.h: why a run failed, in one line (doc/contracts/run.md, "Runs": `streamcard: cause:`
 * and the series table's cell): the failed gates first, the first one with its note, then
 * the first error of the workload's own log, labelled as such. A gate's note says what the
 * evidence shows; the log's line only helps where the workload's words can explain the
 * gate (sc_gate_log_explains()): a run that failed only its interference gate is not
 * "caused" by a counter the kernel could not open.
 */
#ifndef SC_CAUSE_H
#define SC_CAUSE_H

#include "sc_gate_table.h"

#include <stddef.h>

/*
 * The cause of a run that failed gates, into buf (always a string, "" when no gate
 * failed): "gate G failed: NOTE[; also failed: H, I][; workload log line N: LINE]". The
 * gates most telling first: the workload's end by a signal of its own (a crash) or from
 * outside (a scancel, a --timeout, a signal to streamcard: "gate exit_code failed: killed
 * by signal 15 (Terminated), from outside the workload"; the log is not quoted then: what
 * the workload said as it was stopped is no cause), then those whose note shows evidence
 * before those "not supported
 * by evidence", outcome gates before environment gates (a crash's exit_code before the
 * phases it could not reach), each group in the gate table's order. The log's line is left
 * out when the first note quotes it already. log
 * (the run's stream.log, NUL-terminated) may be NULL. The text is printable as it is (the
 * notes are, the log's line is escaped; sc_text.h). Returns the length of buf's text.
 */
size_t sc_cause_of_run(const sc_gates *gates, const char *log, char *buf, size_t len);

#endif
