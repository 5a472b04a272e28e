/*
 * cacheprobe.h: the caches a STREAM run's CPUs use, as its stream_array rule sees them
 * (sc_caches.h): hwloc's report, assessed, and where it cannot be believed the probe's
 * measure (`streamcard-stream --cache-probe`), run on the card's CPUs with its threads,
 * remembered per host, boot and binary in the user's answer cache (sc_answercache.h), and
 * per `streamcard run` in memory, so a sweep's runs and the bundle's caches.txt agree.
 */
#ifndef SC_CACHEPROBE_H
#define SC_CACHEPROBE_H

#include "plan.h"
#include "sc_caches.h"

#include <stdbool.h>

/* What one `streamcard run` learnt of the caches, per CPU set and thread count. */
typedef struct sc_cache_memo sc_cache_memo;

/*
 * The caches of card's CPUs for card's threads: from the memo, else assessed now and, when
 * the report is untrusted, measured (the probe runs only when may_probe; a remembered
 * measure is used either way; the probe says on stderr what it does and why). *out points
 * into the memo. 0; -ENODATA when neither hwloc nor a probe gives a size; -ENOMEM.
 */
int sc_cacheprobe_get(const sc_run_opts *opts, const sc_card *card, bool may_probe,
                      const sc_llc **out);

/*
 * array_size: auto: the card's array_size set to the rule's size (sc_caches_auto_array_size()),
 * said on stderr with its memory; left 0 (auto) on a dry run whose probe is not remembered.
 * Other cards are left alone. 0, or -EINVAL after a line in diag.
 */
int sc_cacheprobe_resolve(const sc_run_opts *opts, sc_card *card, sc_diag *diag);

void sc_cache_memo_free(sc_cache_memo *memo);

#endif
