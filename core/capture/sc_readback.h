/*
 * sc_readback.h: the platform as the `streamcard` command reads it as root outside a job
 * (doc/contracts/platform.md, "Read by the CLI as root"): the prefetch registers of the
 * card's CPUs before and after the workload, through the platform layer's reads
 * (sc_platform.h), never written. The texts are the plugin's formats, marked as the CLI's:
 *
 *   prefetch/state/msr_readback_before.txt, _after.txt
 *       "# read by the CLI as root before the workload, not attested", then one line per CPU
 *       "cpu=<n> reg=0x<r> value=0x<v> state=on|off|mixed" (or "# unavailable: <why>")
 *   prefetch/state/state.env, written with the first read (every run's gate reads it)
 *       SOURCE=cli-root, the card's expectations (REQUESTED_*), what was read before the
 *       workload (OBSERVED_STATE, OBSERVED_GOVERNOR: platform/before.txt's governors), and
 *       *_VALID=1 when that was read (or the card asks nothing).
 *
 * A card's prefetch or governor other than unchanged is then an expectation the
 * platform_state gate holds the readback to: nothing is set. The read after the workload is
 * held to the one before by the gate's check of the platform's stability
 * (sc_platform_stability(), sc_platform_gate.h).
 */
#ifndef SC_READBACK_H
#define SC_READBACK_H

#include "sc_card.h"
#include "sc_kv.h"
#include "sc_platform.h"

#include <hwloc.h>
#include <stddef.h>

/* state.env's SOURCE of a readback by the command as root. */
#define SC_READBACK_SOURCE "cli-root"
/* What the bundle says of a platform the command set itself (`streamcard run --platform
   apply`, doc/contracts/platform.md, "Set by the CLI as root"): state.env then holds
   APPLIED=1, and the gate's note and verify say this. */
#define SC_READBACK_APPLIED_NOTE "applied by the CLI as root, not attested"

/*
 * The prefetch registers of cpus as one msr_readback text into out, headed by the comment
 * that says who read them and when ("before", "after"). 0, or -errno with the reason in why
 * and a "# unavailable: <why>" line in out (an unsupported CPU class, no msr device, a CPU
 * not online). -ENOMEM when out failed.
 */
int sc_readback_msr(const sc_platform *p, hwloc_const_bitmap_t cpus, const char *when, sc_kv *out,
                    char *why, size_t whylen);

/*
 * Whether the prefetch registers of cpus can be read here (as the platform_state check of a
 * card needs): 0, or -errno with a one-line reason in why.
 */
int sc_readback_check(const char *sysroot, hwloc_const_bitmap_t cpus, char *why, size_t whylen);

/* The state of a msr_readback text over its CPUs: "on", "off", "mixed", or "unknown" when it
   holds no CPU line. */
void sc_readback_state(const char *msr_text, char *out, size_t len);

/* The governor of cpus in a platform/<name>.txt text (cpu<N>.governor): one name, "mixed",
   or "unknown" (a CPU without one, "unavailable"). */
void sc_readback_governor(const char *platform_txt, hwloc_const_bitmap_t cpus, char *out,
                          size_t len);

/*
 * state.env of the CLI's readback for card, from msr_readback_before.txt and
 * platform/before.txt (either may be NULL: "unknown"). applied: the command set the card's
 * prefetch and governor itself before that read (APPLIED=1, and its comment says so); else
 * they are only expected. 0 or -ENOMEM.
 */
int sc_readback_state_env(const sc_card *card, const char *msr_before, const char *plat_before,
                          bool applied, sc_kv *out);

#endif
