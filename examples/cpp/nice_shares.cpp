// Two CPU burners on one CPU, nice 0 and nice 5, under old CFS (5.15) and EEVDF (6.12):
// how the CPU is shared and how often the tasks switch. examples/python/nice_shares.py
// builds the same scenario from TOML and prints the same lines.
#include <cstdio>
#include <libsched/model/simulate.hpp>

int main() {
    using namespace libsched;
    for (const char* release : {"5.15", "6.12"}) {
        scenario sc;
        sc.name = "nice-shares";
        sc.machine.cpus = 1;
        sc.machine.hz = 250;
        sc.machine.kernel = *kernel_version::parse(release);
        sc.length = 20 * nsec_per_sec;
        sc.window_start = 2 * nsec_per_sec;
        task_spec a;
        a.name = "a";
        task_spec b;
        b.name = "b";
        b.nice = 5;
        sc.tasks = {a, b};

        const repetition_result r = simulate(sc).repetitions.front();
        for (const task_result& t : r.tasks)
            std::printf("%s %s nice %d: share %.2f %%, /proc utime %lld, involuntary switches %llu\n",
                        release, t.name.c_str(), t.nice, 100.0 * t.share,
                        static_cast<long long>(t.stat_utime_end - t.stat_utime_start),
                        static_cast<unsigned long long>(t.nivcsw));
    }
}
