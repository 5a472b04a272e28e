/*
 * exec_affinity.c: a program streamcard did not write that escapes its card's CPUs, for the
 * exec tests (tests/wrapper/exec_lies.sh): before it prints "loop begins" it starts a thread
 * that moves itself to CPU CPU (pthread_setaffinity_np: the thread alone, not the process)
 * and names itself "escaper", then both linger through the loop, so the snapshot at the
 * begin line sees the thread off the card's CPUs.
 * usage: sc_test_exec_affinity CPU [MS]   (MS: the loop's length, default 300)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

typedef struct escape {
    int cpu;
    long ms;
    int rc; /* pthread_setaffinity_np()'s */
    pthread_mutex_t lock;
    pthread_cond_t moved;
    int done;
} escape;

static void *escaper(void *arg)
{
    escape *e = arg;
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(e->cpu, &set);
    pthread_setname_np(pthread_self(), "escaper");
    pthread_mutex_lock(&e->lock);
    e->rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    e->done = 1;
    pthread_cond_signal(&e->moved);
    pthread_mutex_unlock(&e->lock);
    sleep_ms(e->ms + 100); /* alive through the loop and the snapshot */
    return NULL;
}

int main(int argc, char **argv)
{
    escape e = {.cpu = argc > 1 ? atoi(argv[1]) : 1,
                .ms = argc > 2 ? strtol(argv[2], NULL, 10) : 300,
                .lock = PTHREAD_MUTEX_INITIALIZER,
                .moved = PTHREAD_COND_INITIALIZER};
    pthread_t t;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pthread_create(&t, NULL, escaper, &e) != 0) {
        fprintf(stderr, "sc_test_exec_affinity: cannot start a thread\n");
        return 2;
    }
    pthread_mutex_lock(&e.lock);
    while (!e.done)
        pthread_cond_wait(&e.moved, &e.lock);
    pthread_mutex_unlock(&e.lock);
    printf("escaper on cpu %d: %s\n", e.cpu, e.rc == 0 ? "moved" : "refused");
    printf("loop begins\n");
    sleep_ms(e.ms);
    printf("loop ends\n");
    pthread_join(t, NULL);
    return e.rc == 0 ? 0 : 3;
}
