/*
 * record_apply.c: the bundle's record of `streamcard run --platform apply` (see record.h,
 * platform_apply.h): what the facade set and read back at the start, and its restore at the
 * end. The texts are the facade's, headed by who made them: root's own command, whose word
 * no node key vouches for.
 */
#include "record.h"
#include "platform_apply.h"
#include "sc_kv.h"
#include "sc_readback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC__CONTROL_LOG "prefetch/control.log"
#define SC__ORIGINAL "prefetch/state/msr_readback_original.txt"
#define SC__APPLIED "prefetch/state/msr_readback_applied.txt"
#define SC__APPLIED_ENV "prefetch/state/applied.env"

/* head, then text (the facade's; "" when it has none), as one bundle file. */
static void sc__put_headed(sc_execution *x, const char *rel, const char *head, const char *text)
{
    sc_kv kv;

    sc_kv_init(&kv);
    sc_kv_append(&kv, head);
    sc_kv_append(&kv, text ? text : "");
    if (!kv.failed)
        sc_record_put(x, rel, kv.text);
    sc_kv_free(&kv);
}

void sc_record_applied(sc_execution *x)
{
    const sc_apply *a = x->apply;
    char head[1024];

    if (!a || !a->applied)
        return;
    sc_record_put(x, SC__CONTROL_LOG, a->ev.control_log ? a->ev.control_log : "");
    sc__put_headed(x, SC__ORIGINAL,
                   "# " SC_READBACK_APPLIED_NOTE ": the originals, journaled before the change "
                   "and written back when the run ended\n",
                   a->ev.msr_readback_before);
    sc__put_headed(x, SC__APPLIED,
                   "# " SC_READBACK_APPLIED_NOTE ": read back right after the change\n",
                   a->ev.msr_readback_after);
    snprintf(head, sizeof(head),
             "# " SC_READBACK_APPLIED_NOTE ": streamcard run --platform apply, the plugin's "
             "facade as job %u, holder pid %ld, journal %s/job_%u.journal\n",
             SC_APPLY_JOB, (long)a->holder, a->state_dir, SC_APPLY_JOB);
    sc__put_headed(x, SC__APPLIED_ENV, head, a->ev.state_env);
}

/* Appends text to the bundle file rel (as written so far: the guardian knows no more). */
static void sc__append(sc_execution *x, const char *rel, const char *text)
{
    char *was = sc_bundle_read_opt(&x->b, rel);

    sc__put_headed(x, rel, was ? was : "", text);
    free(was);
}

int sc_record_restored(sc_execution *x)
{
    sc_apply *a = x->apply;
    char line[1024];

    if (!a || !a->applied)
        return 0;
    int rc = sc_apply_restore(a);
    sc__append(x, SC__CONTROL_LOG, a->restore_log);
    if (rc == 0)
        snprintf(line, sizeof(line), "RESTORED=1\n");
    else
        snprintf(line, sizeof(line),
                 "# the originals did not all read back (prefetch/control.log); the journal "
                 "%s/job_%u.journal is kept for streamcard-node state --clear\nRESTORED=0\n",
                 a->state_dir, SC_APPLY_JOB);
    sc__append(x, SC__APPLIED_ENV, line);
    if (rc == 0)
        fprintf(stderr,
                "streamcard: platform restored: the originals of cpus %s written back and read "
                "back (prefetch/control.log)\n",
                x->plan->card->cpu_list);
    else
        fprintf(stderr,
                "streamcard: ERROR: the platform could not be restored: %s (the journal "
                "%s/job_%u.journal is kept; valid: streamcard-node state --clear as root "
                "restores it)\n",
                strerror(-rc), a->state_dir, SC_APPLY_JOB);
    return rc;
}
