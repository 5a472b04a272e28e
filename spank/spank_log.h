/*
 * spank_log.h: every message the SPANK plugins (spank_streamcard.so,
 * spank_streamcard_epilog.so) send to Slurm's log or the job's output goes through here.
 * A message is formatted and cut to SC_SPANK_LOG_MAX bytes; unless it is printable as it is
 * (sc_text_is_printable: well-formed UTF-8 without control characters, line separators or
 * bidirectional overrides) it is escaped whole with sc_text_escape() (core/base/sc_text.h). So a
 * card name, key or value, a job variable or anything else a user chose cannot start a line
 * of its own in slurmd's log (a forged "restore: job N" record) or send a terminal control
 * sequence (doc/contracts/errors.md, "Errors and messages").
 */
#ifndef SC_SPANK_LOG_H
#define SC_SPANK_LOG_H

/* The longest message logged, escapes included; a longer one ends with "...". */
#define SC_SPANK_LOG_MAX 1024

/* slurm_error() and slurm_info() of one escaped, bounded line. */
void sc_spank_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sc_spank_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Logs every non-empty line of text (may be NULL) with sc_spank_info, each as
   "<prefix><line>"; the platform layer's logs say step by step what was restored. */
void sc_spank_log_lines(const char *prefix, const char *text);

#endif
