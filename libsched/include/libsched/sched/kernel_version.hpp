#pragma once
// The kernel release a model follows. Behaviour is selected by release, never by name.
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace libsched {

struct kernel_version {
    int major = 6;
    int minor = 6;

    constexpr auto operator<=>(const kernel_version&) const = default;

    // Old CFS before 6.6, EEVDF from 6.6 (commit "sched/fair: Implement an EEVDF-like
    // scheduling policy").
    constexpr bool is_eevdf() const { return *this >= kernel_version{6, 6}; }

    std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }

    // "6.6", "5.15", "6.12.7" (the patch level is ignored). nullopt if malformed.
    static std::optional<kernel_version> parse(std::string_view s) {
        kernel_version v{0, 0};
        int* field = &v.major;
        bool digit = false;
        int dots = 0;
        for (char c : s) {
            if (c >= '0' && c <= '9') {
                if (dots < 2) {
                    *field = *field * 10 + (c - '0');
                    if (*field > 1000)
                        return std::nullopt;
                }
                digit = true;
            } else if (c == '.' && digit) {
                ++dots;
                digit = false;
                if (dots == 1)
                    field = &v.minor;
            } else {
                return std::nullopt;
            }
        }
        if (!digit || dots < 1)
            return std::nullopt;
        return v;
    }
};

// Releases the models cover; outside this range a scenario is rejected.
inline constexpr kernel_version oldest_modelled_kernel{5, 0};
inline constexpr kernel_version newest_modelled_kernel{6, 19};

} // namespace libsched
