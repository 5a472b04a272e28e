/*
 * suppressed_leak.c: a program whose only leaks are ones that defaults.c suppresses (they
 * are allocated under a function whose name holds "GetThreadStackTopAndBottom", as the
 * sanitizer runtime's own are). Under the sanitizer build it exits 0; quiet.sh checks that
 * LeakSanitizer finds the leaks and that nothing of its report reaches stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SC__LEAKS = 64 };

void *volatile sc_test_sink;

/* Allocates blocks and drops every pointer to them. */
__attribute__((noinline)) static void GetThreadStackTopAndBottom_lookalike(void)
{
    for (int i = 0; i < SC__LEAKS; i++) {
        sc_test_sink = malloc(48);
        if (sc_test_sink)
            memset(sc_test_sink, i, 48);
    }
    sc_test_sink = NULL;
}

/* Overwrites the stack the allocation loop used, so no stale copy keeps a block alive. */
__attribute__((noinline)) static void sc__clear_stack(void)
{
    volatile char buf[4096];
    memset((char *)buf, 0, sizeof(buf));
}

int main(void)
{
    GetThreadStackTopAndBottom_lookalike();
    sc__clear_stack();
    puts("leaked");
    return 0;
}
