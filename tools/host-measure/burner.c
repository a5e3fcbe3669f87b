/* burner: a CPU burner for host measurements (tools/host-measure).
 *
 *   burner DEADLINE_NS [RUN_US SLEEP_US]
 *
 * Blocks until one byte (or EOF) arrives on stdin, so that the driver can place
 * it in its cgroup, pin it and set its policy first; on EOF it exits without
 * burning.  Then it spins until CLOCK_MONOTONIC reaches DEADLINE_NS.  With
 * RUN_US and SLEEP_US it is periodic: it burns RUN_US of its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), then sleeps SLEEP_US, until the deadline.
 * At exit it prints one JSON line on stdout: its getrusage utime+stime,
 * /proc/self/sched (se.sum_exec_runtime, se.nr_migrations, switches) and
 * /proc/self/schedstat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* value of "key : value" from /proc/self/sched, as text */
static int sched_field(const char *key, char *out, size_t n)
{
    FILE *f = fopen("/proc/self/sched", "r");
    char line[512];
    size_t kl = strlen(key);
    int found = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && (line[kl] == ' ' || line[kl] == ':')) {
            char *p = strchr(line, ':');
            if (!p)
                continue;
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            p[strcspn(p, "\n")] = 0;
            snprintf(out, n, "%s", p);
            found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

/* "1234.567890" (ms) -> ns, exactly */
static int64_t ms_text_to_ns(const char *s)
{
    int64_t ip = 0, frac = 0;
    int digits = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9')
        ip = ip * 10 + (*p++ - '0');
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && digits < 6) {
            frac = frac * 10 + (*p++ - '0');
            digits++;
        }
    }
    while (digits++ < 6)
        frac *= 10;
    return ip * 1000000LL + frac;
}

int main(int argc, char **argv)
{
    int64_t deadline, run_ns = 0, sleep_ns = 0, start, end, cycles = 0;
    char c, buf[128];
    struct rusage ru;
    ssize_t r;
    volatile uint64_t sink = 0;

    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: %s DEADLINE_NS [RUN_US SLEEP_US]\n", argv[0]);
        return 2;
    }
    deadline = strtoll(argv[1], NULL, 10);
    if (argc == 4) {
        run_ns = strtoll(argv[2], NULL, 10) * 1000;
        sleep_ns = strtoll(argv[3], NULL, 10) * 1000;
    }
    do
        r = read(0, &c, 1);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        return 3;

    start = now_ns(CLOCK_MONOTONIC);
    if (run_ns == 0) {
        while (now_ns(CLOCK_MONOTONIC) < deadline)
            for (int i = 0; i < 1000; i++)
                sink += i;
    } else {
        for (;;) {
            int64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t;
            int done = 0;
            while (now_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < run_ns) {
                for (int i = 0; i < 20000; i++)
                    sink += i;
                if (now_ns(CLOCK_MONOTONIC) >= deadline) {
                    done = 1;
                    break;
                }
            }
            if (done)
                break;
            cycles++;
            t = now_ns(CLOCK_MONOTONIC);
            if (t + sleep_ns >= deadline) {
                struct timespec ts = {deadline / 1000000000LL, deadline % 1000000000LL};
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                break;
            } else {
                struct timespec ts = {sleep_ns / 1000000000LL, sleep_ns % 1000000000LL};
                clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
            }
        }
    }
    end = now_ns(CLOCK_MONOTONIC);

    getrusage(RUSAGE_SELF, &ru);
    int64_t ut = (int64_t)ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL;
    int64_t st = (int64_t)ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
    int64_t sum_exec = -1, migr = -1, vcs = -1, ivcs = -1;
    if (sched_field("se.sum_exec_runtime", buf, sizeof buf))
        sum_exec = ms_text_to_ns(buf);
    if (sched_field("se.nr_migrations", buf, sizeof buf))
        migr = strtoll(buf, NULL, 10);
    if (sched_field("nr_voluntary_switches", buf, sizeof buf))
        vcs = strtoll(buf, NULL, 10);
    if (sched_field("nr_involuntary_switches", buf, sizeof buf))
        ivcs = strtoll(buf, NULL, 10);
    unsigned long long ss_run = 0, ss_wait = 0, ss_slices = 0;
    FILE *f = fopen("/proc/self/schedstat", "r");
    if (f) {
        if (fscanf(f, "%llu %llu %llu", &ss_run, &ss_wait, &ss_slices) != 3)
            ss_run = ss_wait = ss_slices = 0;
        fclose(f);
    }
    printf("{\"pid\": %d, \"cpu_at_exit\": %d, \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64
           ", \"run_ns\": %" PRId64 ", \"utime_ns\": %" PRId64 ", \"stime_ns\": %" PRId64
           ", \"rusage_ns\": %" PRId64 ", \"sum_exec_runtime_ns\": %" PRId64
           ", \"nr_migrations\": %" PRId64 ", \"nr_voluntary_switches\": %" PRId64
           ", \"nr_involuntary_switches\": %" PRId64 ", \"schedstat_run_ns\": %llu"
           ", \"schedstat_wait_ns\": %llu, \"schedstat_timeslices\": %llu"
           ", \"periodic_cycles\": %" PRId64 "}\n",
           getpid(), sched_getcpu(), start, end, end - start, ut, st, ut + st, sum_exec, migr,
           vcs, ivcs, ss_run, ss_wait, ss_slices, run_ns ? cycles : (int64_t)-1);
    fflush(stdout);
    (void)sink;
    return 0;
}
