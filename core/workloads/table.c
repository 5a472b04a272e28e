/*
 * table.c: the one table of workloads (sc_workload.h). A new workload adds its enum value,
 * its folder and one row here.
 */
#include "exec/exec_figures.h"
#include "sc_workload.h"

#include <stdio.h>
#include <string.h>

extern const sc_workload_ops sc__workload_stream;
extern const sc_workload_ops sc__workload_ipsearch;
extern const sc_workload_ops sc__workload_mpi_pingpong;
extern const sc_workload_ops sc__workload_exec;

static const sc_workload_ops *const sc__workloads[SC_WORKLOAD_COUNT] = {
    [SC_WORKLOAD_STREAM] = &sc__workload_stream,
    [SC_WORKLOAD_IPSEARCH] = &sc__workload_ipsearch,
    [SC_WORKLOAD_MPI_PINGPONG] = &sc__workload_mpi_pingpong,
    [SC_WORKLOAD_EXEC] = &sc__workload_exec,
};

const sc_workload_ops *sc_workload_ops_of(sc_workload w)
{
    return (unsigned)w < SC_WORKLOAD_COUNT ? sc__workloads[w] : NULL;
}

const sc_workload_ops *sc_workload_lookup(const char *name)
{
    for (unsigned w = 0; name && w < SC_WORKLOAD_COUNT; w++)
        if (sc__workloads[w] && strcmp(sc__workloads[w]->name, name) == 0)
            return sc__workloads[w];
    return NULL;
}

static bool sc__lists(const sc_workload_ops *ops, sc_card_field f)
{
    for (size_t i = 0; ops && i < ops->n_keys; i++)
        if (ops->keys[i] == f)
            return true;
    return false;
}

bool sc_workload_own_key(sc_card_field f)
{
    for (unsigned w = 0; w < SC_WORKLOAD_COUNT; w++)
        if (sc__lists(sc__workloads[w], f))
            return true;
    return false;
}

bool sc_workload_reads(sc_workload w, sc_card_field f)
{
    return !sc_workload_own_key(f) || sc__lists(sc_workload_ops_of(w), f);
}

void sc_workload_readers(sc_card_field f, const char *sep, char *buf, size_t len)
{
    size_t used = 0;

    if (len)
        *buf = '\0';
    for (unsigned w = 0; w < SC_WORKLOAD_COUNT; w++)
        if (sc__lists(sc__workloads[w], f) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
                                     sc__workloads[w]->name);
}

bool sc_workload_mpi(const sc_card *card)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;

    return ops && ops->mpi && ops->mpi(card);
}

bool sc_workload_foreign(const sc_card *card)
{
    const sc_workload_ops *ops = card ? sc_workload_ops_of(card->workload) : NULL;

    return ops && ops->foreign;
}

sc_markers sc_workload_markers(const sc_card *card)
{
    return sc_workload_foreign(card) ? sc_exec_markers(card) : SC_MARKERS_LIBRARY;
}

bool sc_workload_observer_window(const sc_card *card)
{
    return sc_workload_mpi(card) && sc_workload_markers(card) == SC_MARKERS_PATTERNS;
}

const char *sc_workload_capture(const sc_card *card)
{
    if (!sc_workload_foreign(card))
        return "phase markers: the snapshots at main_loop_begin, the window to main_loop_end";
    switch (sc_workload_markers(card)) {
    case SC_MARKERS_LIBRARY:
        return "marker library: the program's sc_marker_begin and sc_marker_end "
               "(streamcard/marker.h) bound the main loop; snapshots at its begin";
    case SC_MARKERS_PATTERNS:
        return "output markers: the program's lines matching begin_pattern and end_pattern bound "
               "the main loop; snapshots at the first of them";
    case SC_MARKERS_NONE:
        break;
    }
    return "whole process: the program prints no phase markers, so its start and end "
           "bound the main loop; snapshots at its first output or 50 ms (less precise)";
}

const sc_workload_ops *sc_workload_next(const sc_workload_ops *prev)
{
    for (unsigned w = prev ? (unsigned)prev->id + 1 : 0; w < SC_WORKLOAD_COUNT; w++)
        if (sc__workloads[w])
            return sc__workloads[w];
    return NULL;
}

const char *sc_workload_name(sc_workload w)
{
    const sc_workload_ops *ops = sc_workload_ops_of(w);

    return ops ? ops->name : "none";
}

void sc_workload_names(const char *sep, char *buf, size_t len)
{
    size_t used = 0;

    if (len)
        *buf = '\0';
    for (unsigned w = 0; w < SC_WORKLOAD_COUNT; w++)
        if (sc__workloads[w] && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
                                     sc__workloads[w]->name);
}
