/*
 * sc_caches.h: the last-level caches a STREAM run's CPUs use (doc/contracts/gates.md, "The gates":
 * stream_array). STREAM's rule: each array at least 4 times the last-level caches in use,
 * else the rates measure a cache, not memory.
 *
 * Where the machine's topology can be believed (sysfs describes the caches, no hypervisor,
 * a size per core that a shipping part has), the sizes are hwloc's. Where it cannot (a VM
 * whose hypervisor reports the host's whole L3 to every 2-vCPU guest: 508 MiB per vCPU), a
 * measured probe decides: the read rate of growing working sets on the run's CPUs
 * (`streamcard-stream --cache-probe`, kernels/cacheprobe.c), whose last fall to the
 * memory's rate is the last cache's edge. Both go into the bundle as platform/caches.txt,
 * the probe with its points, so verify judges the rule from the bundle alone and
 * recomputes the edge from the points.
 */
#ifndef SC_CACHES_H
#define SC_CACHES_H

#include "sc_card.h"
#include "sc_fsroot.h"

#include <hwloc.h>
#include <stdbool.h>
#include <stdint.h>

/* STREAM's factor: an array holds at least this many times the last-level caches. */
#define SC_CACHES_ARRAY_FACTOR 4
/* More last-level cache per core than this is a report, not a part: the most of any part
   shipped is 48 MiB per core (EPYC 9184X: 768 MiB of L3 for 16 cores). */
#define SC_CACHES_MAX_BYTES_PER_CORE ((uint64_t)64 << 20)
/* A rate at most this many times the memory's plateau is the memory's (the probe's edge). */
#define SC_CACHES_EDGE_RATIO 1.5
/* A point this many times slower than a larger working set's was disturbed (the smallest
   sets are up to 2x slower than the next: the threads' start and join weigh there). */
#define SC_CACHES_DISTURBED_RATIO 2.5
/* The probe's points at most, and the fewest that can show an edge. */
#define SC_CACHES_MAX_POINTS 64
#define SC_CACHES_MIN_POINTS 6
/* What the probe reads at most, and at least (beyond any cache it could have missed). */
#define SC_CACHES_PROBE_MAX_BYTES ((uint64_t)4 << 30)
#define SC_CACHES_PROBE_MIN_BYTES ((uint64_t)256 << 20)
/* array_size: auto is the rule's size rounded up to whole MiB per array (2^17 elements). */
#define SC_CACHES_AUTO_GRANULE ((uint64_t)1 << 17)

/* One working set of the probe: its bytes and its best read rate (10^6 bytes/s). */
typedef struct sc_probe_point {
    uint64_t bytes;
    double mbps;
} sc_probe_point;

/* The distinct last-level caches that hold a CPU of a set, and whether to believe them. */
typedef struct sc_llc {
    unsigned level;     /* 3 for an L3; 0 when unknown */
    unsigned instances; /* how many distinct caches */
    uint64_t bytes;     /* their sum, as the topology reports it */
    unsigned cores;     /* the cores those caches serve (0: unknown) */
    bool untrusted;     /* the report is not believed: the probe decides */
    char why[200];      /* why not ("hypervisor; no sysfs cache folder for cpu 0"), or "" */
    /* The probe (n_points == 0: none was made or kept). */
    unsigned probe_threads;
    char probe_isa[16];
    char probe_cpus[256];
    sc_probe_point points[SC_CACHES_MAX_POINTS];
    unsigned n_points;
    uint64_t edge_bytes; /* the measured edge (sc_caches_edge()); 0 without a probe */
    double plateau_mbps; /* the memory's rate the edge was judged against */
} sc_llc;

/*
 * The last-level caches of cpus in topo (this machine's, loaded by the caller: loading one
 * starts hwloc's plugins, which costs milliseconds, so a caller loads it once): for each CPU
 * the data or unified cache farthest from it, each cache counted once, and the cores under
 * them. Returns 0, -ENODATA when hwloc shows no cache above those CPUs, -EINVAL for an empty
 * set or no topology, -ENOMEM.
 */
int sc_caches_llc(hwloc_topology_t topo, hwloc_const_bitmap_t cpus, sc_llc *out);

/*
 * Whether llc (from sc_caches_llc(), or zeroed when hwloc found none) can be believed for
 * cpus on the machine under root: sets llc->untrusted and llc->why when sysfs has no cache
 * folder for one of the CPUs, /proc/cpuinfo's flags name a hypervisor, or the caches give
 * a core more than SC_CACHES_MAX_BYTES_PER_CORE (or no size at all).
 */
void sc_caches_assess(const sc_fsroot *root, hwloc_const_bitmap_t cpus, sc_llc *llc);

/* The largest working set the probe should read for llc within avail_bytes of memory. */
uint64_t sc_caches_probe_bytes(const sc_llc *llc, uint64_t avail_bytes);

/*
 * Reads the probe's output (SC_PROBE_* lines of sc_trace_protocol.h) into llc's probe
 * fields and finds the edge. 0, or -EBADMSG when it holds no set-up line, a malformed or
 * unordered point, too many, or fewer than SC_CACHES_MIN_POINTS.
 */
int sc_caches_probe_parse(const char *text, sc_llc *llc);

/*
 * The last cache's edge from llc's points. A working set is never faster than a smaller one
 * can be, so the points are read through their envelope, the best rate of each size or any
 * larger (a pass slowed by another process says nothing of the caches); the plateau is the
 * envelope's median over the sizes of at least half the largest; the edge is the first size
 * whose envelope is at most SC_CACHES_EDGE_RATIO x the plateau. Sets edge_bytes and
 * plateau_mbps; 0, or -ENODATA without enough points or when no size is above the plateau
 * (the probe saw no cache: the rule keeps the reported size).
 */
int sc_caches_edge(sc_llc *llc);

/*
 * True when a point is slower than a larger working set by more than
 * SC_CACHES_DISTURBED_RATIO: something else ran. Such a probe is used for the run it was
 * made for but not remembered.
 */
bool sc_caches_probe_disturbed(const sc_llc *llc);

/* The bytes the rule holds an array against: the measured edge where the report is
   untrusted and a probe was made, else the reported size. */
uint64_t sc_caches_rule_bytes(const sc_llc *llc);

/* platform/caches.txt: key=value lines (doc/contracts/bundle.md), malloc'd. */
char *sc_caches_text(const sc_llc *llc);

/*
 * Reads what sc_caches_text() wrote, recomputing the edge from the points. 0; -ENODATA
 * when llc_bytes is absent or 0 and no probe was kept; -EBADMSG when the probe's points do
 * not parse or the recorded edge is not the one they give.
 */
int sc_caches_parse(const char *text, sc_llc *out);

/* The smallest array_size (8-byte elements) that holds the rule against llc. */
uint64_t sc_caches_min_array_size(const sc_llc *llc);

/* array_size: auto: the rule's size rounded up to SC_CACHES_AUTO_GRANULE elements. */
uint64_t sc_caches_auto_array_size(const sc_llc *llc);

/*
 * A bundle's card with array_size: auto gets the size its run used: the rule's, from its
 * platform/caches.txt (the card as given says auto; what ran is a number). Does nothing to
 * other cards. 0, or the error of sc_caches_parse() (the size is then left at 0).
 */
int sc_caches_resolve_card(sc_card *card, const char *caches_text);

#endif
