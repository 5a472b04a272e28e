/*
 * exec_phases.c: a program streamcard did not write, for the exec tests (tests/wrapper/exec.sh):
 * it prints a set-up line, then "loop begins", works for a while, prints "loop ends" and
 * lingers before it exits, each line flushed at once, so that a card's begin_pattern and
 * end_pattern mark a main loop shorter than the process.
 * usage: sc_test_exec_phases [MS]   (MS: the loop's length, default 300)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;

    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("setting up\n");
    sleep_ms(100);
    printf("loop begins\n");
    sleep_ms(ms);
    printf("loop ends: rate=%d\n", 42);
    sleep_ms(100);
    return 0;
}
