#pragma once
// Scheduler feature flags per kernel release, overridable like debugfs sched/features.
#include <array>
#include <cstddef>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/stable_fix.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace libsched {

enum class feature : std::size_t {
#define LIBSCHED_FEATURE(name, kname, a, b, c, d, def) name,
#include <libsched/sched/features.def>
#undef LIBSCHED_FEATURE
    count_
};

inline constexpr std::size_t feature_count = static_cast<std::size_t>(feature::count_);

struct feature_info {
    std::string_view name;        // lower_snake_case, as used in scenario files
    std::string_view kernel_name; // as in /sys/kernel/debug/sched/features
    kernel_version first;
    kernel_version last; // {0, 0}: still present in the newest modelled release
    bool default_on;
    // The fix that added the feature, when stable updates took it to older series (then
    // `first` is its mainline release).
    const stable_fix* added_by = nullptr;
    // The fix that turned its default off, in those series too.
    const stable_fix* default_off_by = nullptr;
};

// Features that came with a fix stable updates backported.
inline constexpr const stable_fix* feature_fix(feature f) {
    return f == feature::pick_buddy  ? &untangled_next_buddy
           : f == feature::ni_random ? &proportional_newidle
                                     : nullptr;
}
// Features whose default a backported fix turned off.
inline constexpr const stable_fix* feature_default_off_fix(feature f) {
    return f == feature::rt_push_ipi ? &rt_push_ipi_off : nullptr;
}

inline constexpr std::array<feature_info, feature_count> feature_table = {{
#define LIBSCHED_FEATURE(name, kname, a, b, c, d, def)                                             \
    {#name,                                                                                        \
     #kname,                                                                                       \
     kernel_version{a, b},                                                                         \
     kernel_version{c, d},                                                                         \
     def,                                                                                          \
     feature_fix(feature::name),                                                                   \
     feature_default_off_fix(feature::name)},
#include <libsched/sched/features.def>
#undef LIBSCHED_FEATURE
}};

inline constexpr const feature_info& info(feature f) {
    return feature_table[static_cast<std::size_t>(f)];
}

// Each point release a fix was backported to, between `before` and `after`.
inline std::string backports_text(const stable_fix& f, std::string_view before,
                                  std::string_view after) {
    std::string s;
    for (const kernel_version& b : f.backports)
        if (b.major != 0)
            s.append(before).append(b.str()).append(after);
    return s;
}

// The releases that have the feature: "5.0 to 6.5", "6.6 and later", "6.14 and later,
// 6.12.13+, 6.13.2+".
inline std::string feature_releases(const feature_info& fi) {
    std::string s = fi.last == kernel_version{0, 0} ? fi.first.str() + " and later"
                                                    : fi.first.str() + " to " + fi.last.str();
    if (fi.added_by != nullptr)
        s += backports_text(*fi.added_by, ", ", "+");
    return s;
}

// The default, "on", "off", or "on; off from 6.12.96, 6.18.39, 7.2" when a fix changed it.
inline std::string feature_default_text(const feature_info& fi) {
    const std::string s = fi.default_on ? "on" : "off";
    if (fi.default_off_by == nullptr)
        return s;
    return s + "; off from" + backports_text(*fi.default_off_by, " ", ",") + " " +
           fi.default_off_by->mainline.str();
}

// Whether release v (at its patch level) has the feature at all (a flag it lacks cannot be
// switched on).
inline constexpr bool feature_exists(feature f, kernel_version v) {
    const auto& fi = info(f);
    const bool arrived = fi.added_by != nullptr ? carries(v, *fi.added_by) : v >= fi.first;
    return arrived && (fi.last == kernel_version{0, 0} || v <= fi.last);
}

// Its default in release v (at its patch level), as /sys/kernel/debug/sched/features
// shows it after boot.
inline constexpr bool feature_default(feature f, kernel_version v) {
    const auto& fi = info(f);
    return feature_exists(f, v) && fi.default_on &&
           !(fi.default_off_by != nullptr && carries(v, *fi.default_off_by));
}

inline std::optional<feature> feature_by_name(std::string_view n) {
    for (std::size_t i = 0; i < feature_count; ++i)
        if (feature_table[i].name == n || feature_table[i].kernel_name == n)
            return static_cast<feature>(i);
    return std::nullopt;
}

class sched_features {
public:
    sched_features() = default;
    explicit sched_features(kernel_version v) {
        for (std::size_t i = 0; i < feature_count; ++i)
            on_[i] = feature_default(static_cast<feature>(i), v);
    }
    bool operator()(feature f) const { return on_[static_cast<std::size_t>(f)]; }
    void set(feature f, bool on) { on_[static_cast<std::size_t>(f)] = on; }

private:
    std::array<bool, feature_count> on_{};
};

} // namespace libsched
