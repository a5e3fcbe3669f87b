#pragma once
// Ctrl-C for long runs. While an interrupt_guard lives, the first SIGINT sets a flag that
// run_options::interrupt polls, so the run stops before its next event and keeps what it
// has finished; the handler is one-shot (SA_RESETHAND), so a second Ctrl-C ends the process
// as usual. The previous handler comes back when the guard goes.
#include <atomic>
#include <signal.h>

namespace libsched {

namespace detail {
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
inline std::atomic<bool> sigint_seen{false};
inline std::atomic<bool> sigint_guarded{false};
inline void on_sigint(int) {
    sigint_seen.store(true, std::memory_order_relaxed);
}
} // namespace detail

class interrupt_guard {
public:
    interrupt_guard() {
        detail::sigint_seen.store(false);
        struct sigaction sa {};
        sa.sa_handler = &detail::on_sigint;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(SIGINT, &sa, &previous_);
        detail::sigint_guarded.store(true);
    }
    ~interrupt_guard() {
        detail::sigint_guarded.store(false);
        sigaction(SIGINT, &previous_, nullptr);
    }
    interrupt_guard(const interrupt_guard&) = delete;
    interrupt_guard& operator=(const interrupt_guard&) = delete;

    // For run_options::interrupt.
    const std::atomic<bool>* flag() const { return &detail::sigint_seen; }
    bool interrupted() const { return detail::sigint_seen.load(); }
    // Whether a guard is in place (for tests that send themselves SIGINT).
    static bool active() { return detail::sigint_guarded.load(); }

private:
    struct sigaction previous_ {};
};

} // namespace libsched
