// Steps a simulated system and reads its scheduler state on the way, as
// /sys/kernel/debug/sched/debug would show it: two CPU burners on one CPU under EEVDF
// (6.12), nice 0 and nice 5. At 100 ms and 200 ms it prints each task's vruntime, deadline,
// lag and eligibility and the queue's V; at the end, each task's share of the CPU.
// The figures are read as they stand, as the kernel's debug files read them: the running
// task's are as of its last update_curr() (run(until) stops before the events at `until`:
// the tick at 100 ms has not run yet), and V with them. Virtual times are printed as signed
// nanoseconds, as debug.c prints them: the queue's clock starts just below zero.
#include <cstdio>
#include <libsched/model/system.hpp>
#include <libsched/scenario/validate.hpp>

namespace {

void print_state(const libsched::system& s) {
    using namespace libsched;
    const cfs_rq& q = s.cpu_rq(0).cfs;
    const cfs_rq_state qs = read_cfs_rq(q);
    std::printf("at %lld ms: V %lld, queued %u, load %llu\n",
                static_cast<long long>(s.now() / nsec_per_msec),
                static_cast<long long>(qs.avg_vruntime), qs.nr_queued,
                static_cast<unsigned long long>(qs.load));
    s64 weighted_lag = 0;
    for (const char* name : {"a", "b"}) {
        const task* t = s.find_task(name);
        const entity_state e = read_entity(t->se);
        weighted_lag += e.lag * static_cast<s64>(e.weight);
        std::printf("  %s nice %d weight %llu%s: vruntime %lld, deadline %lld, lag %lld, %s\n",
                    name, t->nice, static_cast<unsigned long long>(e.weight),
                    qs.curr_pid == t->pid ? " (running)" : "", static_cast<long long>(e.vruntime),
                    static_cast<long long>(e.deadline), static_cast<long long>(e.lag),
                    e.eligible ? "eligible" : "not eligible");
    }
    // V is the load-weighted average vruntime, so the weighted lags cancel out (up to V's
    // rounding down: less than the total weight).
    std::printf("  sum of weight * lag: %lld\n", static_cast<long long>(weighted_lag));
}

} // namespace

int main() {
    using namespace libsched;
    scenario sc;
    sc.name = "step-system";
    sc.machine.cpus = 1;
    sc.machine.hz = 250;
    sc.machine.kernel = *kernel_version::parse("6.12");
    sc.length = 1 * nsec_per_sec;
    task_spec a;
    a.name = "a";
    task_spec b;
    b.name = "b";
    b.nice = 5;
    sc.tasks = {a, b};
    validate(sc);

    libsched::system s(sc, sc.seed); // qualified: ::system from <cstdlib> is in scope too
    s.run(100 * nsec_per_msec);
    print_state(s);
    s.run(200 * nsec_per_msec);
    print_state(s);

    const repetition_result r = s.result();
    std::printf("at %lld ms (end):\n", static_cast<long long>(s.now() / nsec_per_msec));
    for (const task_result& t : r.tasks)
        std::printf("  %s nice %d: share %.2f %%, runtime %lld us\n", t.name.c_str(), t.nice,
                    100.0 * t.share, static_cast<long long>(t.window_runtime / nsec_per_usec));
}
