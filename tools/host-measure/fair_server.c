// fair_server: when the fair server serves a fair task that sleeps between short runs
// behind a SCHED_FIFO burner, both pinned to CPU 1 (docs/validation.md, "The fair server's
// restart on the 6.18 host"; the model's side is examples/scenarios/fair-server-restart.toml).
//
//   fair_server SLEEP_MS SECONDS
//
// A thread spins 1 ms of its own CPU time (CLOCK_THREAD_CPUTIME_ID), sleeps SLEEP_MS
// (clock_nanosleep, relative) and loops; a SCHED_FIFO 50 thread sleeps 10 ms, then spins
// until the end. After SECONDS it prints the bursts the fair thread finished and, for each
// wakeup, how long after its sleep's end the thread ran again. Run as root. Build: gcc -O2
// -pthread.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int stop;

static long long clock_ns(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void pin_cpu1(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(1, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        exit(1);
    }
}

static void* fifo_main(void* arg) {
    (void)arg;
    pin_cpu1();
    struct sched_param sp = {.sched_priority = 50};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
        fprintf(stderr, "SCHED_FIFO refused (run as root)\n");
        exit(1);
    }
    struct timespec ten_ms = {0, 10000000};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ten_ms, NULL);
    while (!stop)
        ;
    return NULL;
}

enum { max_bursts = 100000 };
static long long waits[max_bursts];

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fair_server SLEEP_MS SECONDS\n");
        return 2;
    }
    const long long sleep_ns = atoll(argv[1]) * 1000000LL;
    const long long end = clock_ns(CLOCK_MONOTONIC) + atoll(argv[2]) * 1000000000LL;
    pin_cpu1();
    pthread_t fifo;
    pthread_create(&fifo, NULL, fifo_main, NULL);
    int bursts = 0, woken = 0;
    while (clock_ns(CLOCK_MONOTONIC) < end) {
        const long long cpu_end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + 1000000LL;
        while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < cpu_end)
            ;
        if (clock_ns(CLOCK_MONOTONIC) >= end)
            break;
        ++bursts;
        const long long due = clock_ns(CLOCK_MONOTONIC) + sleep_ns;
        struct timespec s = {sleep_ns / 1000000000LL, sleep_ns % 1000000000LL};
        clock_nanosleep(CLOCK_MONOTONIC, 0, &s, NULL);
        if (woken < max_bursts)
            waits[woken++] = clock_ns(CLOCK_MONOTONIC) - due;
    }
    stop = 1;
    pthread_join(fifo, NULL);
    printf("bursts %d\nwaits_us", bursts);
    for (int i = 0; i < woken; ++i)
        printf(" %lld", waits[i] / 1000);
    printf("\n");
    return 0;
}
