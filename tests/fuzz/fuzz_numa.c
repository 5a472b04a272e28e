/*
 * fuzz_numa.c: a process's numa_maps as the observer captures it at main_loop_begin:
 * sc_numa_maps_anon_bytes() (the memory_node gate) for nodes 0 and 1. The per-node
 * anonymous bytes of the gate must add up, whichever node is asked for.
 */
#include "support.h"

#include "sc_gates.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = sc_fuzz_text(data, size);
    unsigned long long on0, off0, on1, off1;

    int rc0 = sc_numa_maps_anon_bytes(text, 0, &on0, &off0);
    int rc1 = sc_numa_maps_anon_bytes(text, 1, &on1, &off1);
    sc_fuzz_require(rc0 == rc1, "sc_numa_maps_anon_bytes: the result depends on the node");
    sc_fuzz_require(on0 + off0 == on1 + off1,
                    "sc_numa_maps_anon_bytes: node 0 and node 1 see different totals");
    free(text);
    return 0;
}
