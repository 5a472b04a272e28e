/*
 * spank_log.h: what both SPANK plugins (spank_streamcard.so, spank_streamcard_epilog.so)
 * share to put the platform layer's multi-line logs into Slurm's log.
 */
#ifndef SC_SPANK_LOG_H
#define SC_SPANK_LOG_H

/* Logs every non-empty line of text (may be NULL) with slurm_info, each as
   "<prefix><line>"; the platform layer's logs say step by step what was restored. */
void sc_spank_log_lines(const char *prefix, const char *text);

#endif
