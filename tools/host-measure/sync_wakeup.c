// sync_wakeup: where a reader woken through a pipe (WF_SYNC) or a semaphore (no sync)
// runs, on a 2-CPU host (docs/validation.md, "Sync wakeups (a pipe) on the 6.18 host").
//
//   sync_wakeup pipe|sem two-writers|burners SECONDS
//
// two-writers: writers pinned to CPU 0 and CPU 1 each spin 1 ms of wall time and write a
// message, for ever. burners: one such writer on CPU 0, three busy loops on CPU 1, and the
// reader pinned to CPU 1 for its first 0.2 s. The reader takes a message, spins 50 us and
// waits again. After a 0.5 s start it counts, for SECONDS, the CPU each message ran on
// (sched_getcpu()) and its migrations (se.nr_migrations). Build: gcc -O2 -pthread.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int use_pipe;
static int fds[2];
static sem_t sem;
static volatile int stop, counting, unpin;
static long long on_cpu[2];
static pid_t reader_tid;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin(long long ns) {
    const long long end = now_ns() + ns;
    while (now_ns() < end && !stop)
        ;
}

// cpu < 0: both CPUs.
static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < 0) {
        CPU_SET(0, &set);
        CPU_SET(1, &set);
    } else {
        CPU_SET(cpu, &set);
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        perror("sched_setaffinity");
        exit(1);
    }
}

static long long migrations(void) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/sched", (int)reader_tid);
    FILE* f = fopen(path, "r");
    long long n = -1;
    if (f == NULL)
        return n;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "se.nr_migrations", 16) == 0)
            n = atoll(strchr(line, ':') + 1);
    fclose(f);
    return n;
}

static void give(void) {
    const char c = 'x';
    if (use_pipe) {
        if (write(fds[1], &c, 1) != 1)
            abort();
    } else {
        sem_post(&sem);
    }
}

static void take(void) {
    char c;
    if (use_pipe) {
        if (read(fds[0], &c, 1) != 1)
            abort();
    } else {
        while (sem_wait(&sem) != 0)
            ;
    }
}

static void* writer(void* cpu) {
    pin((int)(long)cpu);
    while (!stop) {
        spin(1000000);
        give();
    }
    return NULL;
}

static void* burner(void* unused) {
    (void)unused;
    pin(1);
    while (!stop)
        ;
    return NULL;
}

static void* reader(void* first_cpu) {
    reader_tid = (pid_t)syscall(SYS_gettid);
    pin((int)(long)first_cpu);
    int unpinned = (int)(long)first_cpu < 0;
    for (;;) {
        take();
        if (stop)
            return NULL;
        if (unpin && !unpinned) {
            pin(-1);
            unpinned = 1;
        }
        if (counting)
            on_cpu[sched_getcpu() & 1]++;
        spin(50000);
    }
}

int main(int argc, char** argv) {
    if (argc != 4 || (strcmp(argv[1], "pipe") != 0 && strcmp(argv[1], "sem") != 0) ||
        (strcmp(argv[2], "two-writers") != 0 && strcmp(argv[2], "burners") != 0)) {
        fprintf(stderr, "usage: %s pipe|sem two-writers|burners SECONDS\n", argv[0]);
        return 2;
    }
    use_pipe = strcmp(argv[1], "pipe") == 0;
    const int burners = strcmp(argv[2], "burners") == 0;
    const double seconds = atof(argv[3]);
    if (pipe(fds) != 0 || sem_init(&sem, 0, 0) != 0) {
        perror("pipe / sem_init");
        return 1;
    }
    pthread_t threads[5];
    int n = 0;
    pthread_create(&threads[n++], NULL, reader, (void*)(long)(burners ? 1 : -1));
    if (burners)
        for (int i = 0; i < 3; ++i)
            pthread_create(&threads[n++], NULL, burner, NULL);
    pthread_create(&threads[n++], NULL, writer, (void*)0L);
    if (!burners)
        pthread_create(&threads[n++], NULL, writer, (void*)1L);
    usleep(200000);
    unpin = 1;
    usleep(300000);
    const long long m0 = migrations();
    counting = 1;
    usleep((useconds_t)(seconds * 1e6));
    counting = 0;
    const long long m1 = migrations();
    stop = 1;
    for (int i = 1; i < n; ++i)
        pthread_join(threads[i], NULL);
    give(); // the reader may be waiting
    pthread_join(threads[0], NULL);
    printf("{\"mode\": \"%s\", \"case\": \"%s\", \"seconds\": %g, \"on_cpu0\": %lld, "
           "\"on_cpu1\": %lld, \"migrations\": %lld}\n",
           argv[1], argv[2], seconds, on_cpu[0], on_cpu[1], m1 - m0);
    return 0;
}
