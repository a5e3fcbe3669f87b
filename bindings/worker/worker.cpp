// libsched-worker: one task of a scenario measured on the host (libsched.measure).
//
//   libsched-worker START_NS EXIT_NS WINDOW_START_NS WINDOW_END_NS READ_NS SLACK_NS BEHAVIOUR...
//     burner
//     periodic RUN_NS SLEEP_NS     burn RUN_NS of its own CPU time, sleep SLEEP_NS, repeat
//     timer RUN_NS PERIOD_NS       the same on an absolute timer: burst k is due at
//                                  START_NS + k * PERIOD_NS (missed points are skipped)
//     random SEED RUN SLEEP        run and sleep drawn from RUN and SLEEP, each
//                                  "constant:A", "uniform:LOW:HIGH" or "exponential:MEAN"
//
// READ_NS > 0 reads the thread's CPU clock every READ_NS of run time (the task's
// cpu_clock_reads); with 0 the worker never reads it while it runs. SLACK_NS is its timer
// slack (prctl(PR_SET_TIMERSLACK), where 0 means the default: 0 is set as 1 ns).
//
// The worker blocks until a line arrives on stdin, so that the driver can place it (cgroup,
// affinity, nice, policy) first; the line is the run's time zero, a CLOCK_MONOTONIC time
// in ns, and every time above is counted from it. On EOF it exits at once without output.
// It then sleeps until START_NS, works until EXIT_NS and at exit writes one JSON line on
// stdout: its getrusage times, /proc/self/sched's sum_exec_runtime, nr_migrations and
// switch counts, when it started and exited (from time zero), and (timer) the lateness of
// each wakeup due inside the window.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace {

using ns = std::int64_t;

ns now(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<ns>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void sleep_until(ns at) {
    const timespec ts{static_cast<time_t>(at / 1'000'000'000),
                      static_cast<long>(at % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

void spin(int iterations) {
    volatile std::uint64_t sink = 0;
    for (int i = 0; i < iterations; ++i)
        sink = sink + static_cast<std::uint64_t>(i);
}

// Iterations in one chunk of spinning, a few microseconds.
constexpr int chunk_spins = 20000;

// Burns CPU time measured without reading the thread's CPU clock: each read of that clock
// is a system call that runs the class's update_curr(), which from 6.6 ends the turn once
// the slice is used up (docs/model.md, cpu_clock_reads), so a worker that polled it would
// be another task than the scenario's. It spins in chunks timed by the monotonic clock
// (vDSO, no system call). A chunk counts its own length, unless it took over twice the
// median of the last chunks and the thread was switched out meanwhile: then it counts that
// median. getrusage(RUSAGE_THREAD) gives the switch counts without update_curr()
// (task_cputime_adjusted() runs task_sched_runtime() only under VIRT_CPU_ACCOUNTING_GEN).
// So an interrupt or a stalled vCPU counts as the kernel charges it, to the task, and the
// median follows the CPU's speed within a few dozen chunks. With read_every > 0 it also
// reads the CPU clock every that much of run time, as a task with cpu_clock_reads does.
class cpu_spinner {
public:
    explicit cpu_spinner(ns read_every) : read_every_(read_every) {}

    // Burns `length` of CPU time; false when the monotonic clock reached `stop` first.
    bool run(ns length, ns stop) {
        ns done = ahead_;
        switches_ = switches();
        for (ns begin = now(CLOCK_MONOTONIC); done < length;) {
            spin(chunk_spins);
            const ns end = now(CLOCK_MONOTONIC);
            done += account(end - begin);
            if (end >= stop)
                return false;
            begin = end;
        }
        ahead_ = done - length; // the last chunk's overshoot counts towards the next run
        return true;
    }

    // Burns until the monotonic clock reaches `stop`.
    void run_until(ns stop) {
        while (run(std::numeric_limits<ns>::max(), stop)) {
        }
    }

private:
    static constexpr std::size_t window = 63;

    static long switches() {
        rusage ru{};
        getrusage(RUSAGE_THREAD, &ru);
        return ru.ru_nvcsw + ru.ru_nivcsw;
    }

    // The CPU time a chunk that took `wall` counts, reading the CPU clock when due.
    ns account(ns wall) {
        recent_[next_++ % window] = wall;
        if (next_ <= window || next_ % 16 == 0) { // the median, refreshed every 16 chunks
            std::array<ns, window> sorted = recent_;
            const std::size_t n = std::min(next_, window);
            std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
            median_ = sorted[n / 2];
        }
        ns counted = wall;
        if (wall > 2 * median_) {
            const long seen = switches();
            if (seen != switches_)
                counted = median_;
            switches_ = seen;
        }
        if (read_every_ > 0 && (since_read_ += counted) >= read_every_) {
            since_read_ = 0;
            now(CLOCK_THREAD_CPUTIME_ID);
        }
        return counted;
    }

    ns read_every_;
    std::array<ns, window> recent_{};
    std::size_t next_ = 0;
    ns median_ = 0;
    ns since_read_ = 0;
    ns ahead_ = 0;
    long switches_ = 0;
};

// splitmix64: the worker's own draws (a host run cannot replay the simulator's).
struct random_draws {
    std::uint64_t state;
    double unit() { // in [0, 1)
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return static_cast<double>(z >> 11) / 9007199254740992.0;
    }
};

struct distribution {
    char kind = 'c'; // c(onstant), u(niform), e(xponential)
    ns a = 0, b = 0;

    ns draw(random_draws& rng) const {
        if (kind == 'u') { // both bounds included
            const ns span = b - a + 1;
            const ns offset = static_cast<ns>(rng.unit() * static_cast<double>(span));
            return a + (offset < span ? offset : span - 1);
        }
        if (kind == 'e')
            return static_cast<ns>(-std::log(1.0 - rng.unit()) * static_cast<double>(a));
        return a;
    }
};

bool parse_ns(const char* text, ns& out) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        return false;
    out = v;
    return true;
}

bool parse_distribution(const char* text, distribution& d) {
    const std::string s = text;
    const auto colon = s.find(':');
    if (colon == std::string::npos)
        return false;
    const std::string kind = s.substr(0, colon), rest = s.substr(colon + 1);
    const auto second = rest.find(':');
    if (kind == "uniform" && second != std::string::npos) {
        d.kind = 'u';
        return parse_ns(rest.substr(0, second).c_str(), d.a) &&
               parse_ns(rest.substr(second + 1).c_str(), d.b) && d.a <= d.b;
    }
    d.kind = kind == "exponential" ? 'e' : 'c';
    return (kind == "exponential" || kind == "constant") && parse_ns(rest.c_str(), d.a);
}

// The value of "key : value" in /proc/self/sched, as text; empty if absent.
std::string sched_field(const char* key) {
    FILE* f = std::fopen("/proc/self/sched", "r");
    if (f == nullptr)
        return {};
    char line[512];
    std::string value;
    const std::size_t n = std::strlen(key);
    while (std::fgets(line, sizeof line, f) != nullptr) {
        if (std::strncmp(line, key, n) != 0 || (line[n] != ' ' && line[n] != ':'))
            continue;
        const char* p = std::strchr(line, ':');
        if (p == nullptr)
            continue;
        for (++p; *p == ' ' || *p == '\t'; ++p) {
        }
        value.assign(p, std::strcspn(p, "\n"));
        break;
    }
    std::fclose(f);
    return value;
}

// "1234.567890" (ms, as /proc/PID/sched prints sum_exec_runtime) in ns, exactly; -1 if absent.
ns ms_text_to_ns(const std::string& text) {
    if (text.empty())
        return -1;
    ns whole = 0, fraction = 0;
    int digits = 0;
    const char* p = text.c_str();
    for (; *p >= '0' && *p <= '9'; ++p)
        whole = whole * 10 + (*p - '0');
    if (*p == '.')
        for (++p; *p >= '0' && *p <= '9' && digits < 6; ++p, ++digits)
            fraction = fraction * 10 + (*p - '0');
    for (; digits < 6; ++digits)
        fraction *= 10;
    return whole * 1'000'000 + fraction;
}

long long count_field(const char* key) {
    const std::string v = sched_field(key);
    return v.empty() ? -1 : std::strtoll(v.c_str(), nullptr, 10);
}

void report(ns started, ns exited, const std::vector<ns>& lateness) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const auto us = [](const timeval& tv) {
        return static_cast<long long>(tv.tv_sec) * 1'000'000 + tv.tv_usec;
    };
    std::printf("{\"started\":%" PRId64 ",\"exited\":%" PRId64
                ",\"ru_utime_us\":%lld,\"ru_stime_us\":%lld,\"sum_exec_runtime\":%" PRId64
                ",\"nr_migrations\":%lld,\"nvcsw\":%lld,\"nivcsw\":%lld,\"lateness\":[",
                started, exited, us(ru.ru_utime), us(ru.ru_stime),
                ms_text_to_ns(sched_field("se.sum_exec_runtime")), count_field("se.nr_migrations"),
                count_field("nr_voluntary_switches"), count_field("nr_involuntary_switches"));
    for (std::size_t i = 0; i < lateness.size(); ++i)
        std::printf(i > 0 ? ",%" PRId64 : "%" PRId64, lateness[i]);
    std::printf("]}\n");
    std::fflush(stdout);
}

int usage(const char* self) {
    std::fprintf(stderr,
                 "usage: %s START_NS EXIT_NS WINDOW_START_NS WINDOW_END_NS READ_NS SLACK_NS "
                 "burner | periodic RUN_NS SLEEP_NS | timer RUN_NS PERIOD_NS | "
                 "random SEED RUN SLEEP\n",
                 self);
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    ns start = 0, stop = 0, window_start = 0, window_end = 0, read_every = 0, slack = 0;
    ns run = 0, gap = 0;
    if (argc < 8 || !parse_ns(argv[1], start) || !parse_ns(argv[2], stop) ||
        !parse_ns(argv[3], window_start) || !parse_ns(argv[4], window_end) ||
        !parse_ns(argv[5], read_every) || read_every < 0 || !parse_ns(argv[6], slack) || slack < 0)
        return usage(argv[0]);
    const std::string kind = argv[7];
    distribution run_dist, sleep_dist;
    ns seed = 0;
    if (kind == "burner") {
        if (argc != 8)
            return usage(argv[0]);
    } else if (kind == "periodic" || kind == "timer") {
        if (argc != 10 || !parse_ns(argv[8], run) || !parse_ns(argv[9], gap) || run <= 0 ||
            gap < 0 || (kind == "timer" && gap <= 0))
            return usage(argv[0]);
    } else if (kind == "random") {
        if (argc != 11 || !parse_ns(argv[8], seed) || !parse_distribution(argv[9], run_dist) ||
            !parse_distribution(argv[10], sleep_dist))
            return usage(argv[0]);
    } else {
        return usage(argv[0]);
    }
    cpu_spinner cpu{read_every};
    if (prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack > 0 ? slack : 1)) != 0)
        return 4;

    char line[32] = {};
    std::size_t got = 0;
    while (got + 1 < sizeof line) {
        const ssize_t n = read(0, line + got, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || line[got] == '\n')
            break;
        ++got;
    }
    line[got] = '\0';
    ns zero = 0;
    if (got == 0 || !parse_ns(line, zero))
        return 3;
    start += zero;
    stop += zero;
    window_start += zero;
    window_end += zero;

    sleep_until(start);
    const ns started = now(CLOCK_MONOTONIC);
    std::vector<ns> lateness;
    if (kind == "burner") {
        cpu.run_until(stop);
    } else if (kind == "periodic") {
        while (cpu.run(run, stop) && now(CLOCK_MONOTONIC) < stop) {
            const ns wake = now(CLOCK_MONOTONIC) + gap;
            sleep_until(wake < stop ? wake : stop);
        }
    } else if (kind == "timer") {
        while (cpu.run(run, stop)) {
            const ns t = now(CLOCK_MONOTONIC);
            // The first grid point not yet passed (one reached exactly runs at once).
            const ns due = start + (t - start + gap - 1) / gap * gap;
            if (due >= stop) {
                sleep_until(stop); // asleep until its exit, as in the model
                break;
            }
            sleep_until(due);
            if (due >= window_start && due < window_end)
                lateness.push_back(now(CLOCK_MONOTONIC) - due);
        }
    } else {
        random_draws rng{static_cast<std::uint64_t>(seed)};
        while (cpu.run(run_dist.draw(rng), stop) && now(CLOCK_MONOTONIC) < stop) {
            const ns wake = now(CLOCK_MONOTONIC) + sleep_dist.draw(rng);
            sleep_until(wake < stop ? wake : stop);
        }
    }
    report(started - zero, now(CLOCK_MONOTONIC) - zero, lateness);
    return 0;
}
