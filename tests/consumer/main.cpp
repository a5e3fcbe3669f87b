// Built by the consumer projects: the installed (or added) headers must be usable as-is.
#include <libsched/sched/calc_delta.hpp>
#include <libsched/sched/weight.hpp>

int main() {
    libsched::load_weight lw = libsched::task_load_weight(5, false);
    // 1 ms at nice 5: floor(1e6 * 1024 / 335).
    return libsched::calc_delta_fair(1'000'000, lw) == 3'056'716 ? 0 : 1;
}
