#pragma once
// The kernel's preemption model (CONFIG_PREEMPT_*, or preempt= / debugfs sched/preempt with
// PREEMPT_DYNAMIC) and the lazy reschedule request it adds (6.13+).
#include <array>
#include <libsched/sched/kernel_version.hpp>
#include <string_view>
#include <utility>

namespace libsched {

enum class preempt_mode {
    none,      // PREEMPT_NONE: the Kconfig default up to 6.19
    voluntary, // PREEMPT_VOLUNTARY
    full,      // PREEMPT (full)
    // PREEMPT_LAZY (7c70cb94d29c, 6.13; x86 and riscv from 6.13, arm64 from 6.16): the fair
    // class's own requests set TIF_NEED_RESCHED_LAZY (resched_curr_lazy()), honoured at the
    // next return to user mode and promoted by the next tick. The Kconfig default from 7.0
    // where the architecture has it (7dadeaa6e851).
    lazy,
};

inline constexpr std::array<std::pair<std::string_view, preempt_mode>, 4> preempt_mode_names{{
    {"none", preempt_mode::none},
    {"voluntary", preempt_mode::voluntary},
    {"full", preempt_mode::full},
    {"lazy", preempt_mode::lazy},
}};

// Kconfig's default: PREEMPT_NONE up to 6.19; from 7.0 PREEMPT_LAZY where the architecture
// has it (7dadeaa6e851, which also takes none and voluntary away there).
inline constexpr preempt_mode default_preempt(kernel_version v) {
    return v >= kernel_version{7, 0} ? preempt_mode::lazy : preempt_mode::none;
}

inline constexpr std::string_view preempt_mode_name(preempt_mode m) {
    for (const auto& [name, mode] : preempt_mode_names)
        if (mode == m)
            return name;
    return "none";
}

} // namespace libsched
