#pragma once
// The kernel release a model follows. Behaviour is selected by release, never by name.
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace libsched {

struct kernel_version {
    int major = 6;
    int minor = 6;
    int patch = 0; // behaviour follows major.minor but for the fixes of stable_fix.hpp

    constexpr kernel_version() = default;
    constexpr kernel_version(int maj, int min, int pat = 0) : major(maj), minor(min), patch(pat) {}

    // major.minor as one integer ordered as the releases are (major in the high half, minor
    // offset to unsigned in the low half), so that a test of the release is one comparison.
    constexpr std::int64_t series() const {
        return static_cast<std::int64_t>(major) * (std::int64_t{1} << 32) +
               (static_cast<std::int64_t>(minor) - std::numeric_limits<int>::min());
    }

    // Releases compare by major.minor: a stable update is the same series (the fixes it
    // took are in stable_fix.hpp).
    constexpr auto operator<=>(const kernel_version& o) const { return series() <=> o.series(); }
    constexpr bool operator==(const kernel_version& o) const {
        return major == o.major && minor == o.minor;
    }

    constexpr bool is_eevdf() const;

    std::string str() const {
        std::string s = std::to_string(major) + "." + std::to_string(minor);
        return patch > 0 ? s + "." + std::to_string(patch) : s;
    }

    // "6.6", "5.15", "6.12.7", or `uname -r` text such as "5.15.0-190-generic" (what follows
    // major.minor[.patch] after a '-' or '+' is ignored). nullopt if malformed.
    static std::optional<kernel_version> parse(std::string_view s) {
        if (const auto cut = s.find_first_of("-+"); cut != std::string_view::npos)
            s = s.substr(0, cut);
        kernel_version v{0, 0};
        int* fields[] = {&v.major, &v.minor, &v.patch};
        std::size_t field = 0;
        bool digit = false;
        for (char c : s) {
            if (c >= '0' && c <= '9') {
                int& f = *fields[field];
                f = f * 10 + (c - '0');
                if (f > 100000)
                    return std::nullopt;
                digit = true;
            } else if (c == '.' && digit && field < 2) {
                ++field;
                digit = false;
            } else {
                return std::nullopt;
            }
        }
        if (!digit || field < 1)
            return std::nullopt;
        return v;
    }
};

// Old CFS before 6.6, EEVDF from 6.6 (commit "sched/fair: Implement an EEVDF-like
// scheduling policy").
inline constexpr kernel_version first_eevdf_kernel{6, 6};
constexpr bool kernel_version::is_eevdf() const {
    return *this >= first_eevdf_kernel;
}

// Releases the models cover; outside this range a scenario is rejected.
inline constexpr kernel_version oldest_modelled_kernel{5, 0};
inline constexpr kernel_version newest_modelled_kernel{7, 0};

// Why v cannot be modelled ("4.19 is outside the modelled releases 5.0 to 7.0"), or nullopt.
inline std::optional<std::string> unmodelled_release(kernel_version v) {
    if (v >= oldest_modelled_kernel && v <= newest_modelled_kernel)
        return std::nullopt;
    return v.str() + " is outside the modelled releases " + oldest_modelled_kernel.str() + " to " +
           newest_modelled_kernel.str();
}

// Why text did not parse as a release.
inline std::string not_a_release(std::string_view text) {
    return "\"" + std::string{text} + "\" is not a kernel release such as \"6.8\"";
}

} // namespace libsched
