#pragma once
// Durations as people write them: "2s", "1.5ms", "750us", "100ns". Integer arithmetic only,
// so "1.5ms" is exactly 1'500'000 ns and format_duration() round-trips through
// parse_duration().
#include <array>
#include <cstdint>
#include <libsched/sched/types.hpp>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace libsched {

struct duration_unit {
    std::string_view suffix;
    duration ns;
};

inline constexpr std::array<duration_unit, 5> duration_units = {{
    {"ns", 1},
    {"us", nsec_per_usec},
    {"\xC2\xB5s", nsec_per_usec}, // "µs" in UTF-8
    {"ms", nsec_per_msec},
    {"s", nsec_per_sec},
}};

// "[+-]digits[.digits][ ]unit". nullopt when malformed, when the unit is missing or unknown,
// when the value is not a whole number of nanoseconds, or when it overflows 64 bits.
inline std::optional<duration> parse_duration(std::string_view s) {
    constexpr auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    constexpr duration max = std::numeric_limits<duration>::max();

    bool negative = false;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    std::size_t i = 0;
    duration whole = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
        const int digit = s[i] - '0';
        if (whole > (max - digit) / 10)
            return std::nullopt;
        whole = whole * 10 + digit;
    }
    const std::size_t whole_digits = i;
    std::string_view fraction;
    if (i < s.size() && s[i] == '.') {
        const std::size_t from = ++i;
        while (i < s.size() && is_digit(s[i]))
            ++i;
        fraction = s.substr(from, i - from);
    }
    if (whole_digits == 0 && fraction.empty())
        return std::nullopt;
    while (i < s.size() && s[i] == ' ')
        ++i;
    const std::string_view suffix = s.substr(i);

    for (const auto& u : duration_units) {
        if (suffix != u.suffix)
            continue;
        // Trailing zeros carry no value; more than 9 significant fraction digits cannot be
        // a whole number of nanoseconds for any unit up to a second.
        while (!fraction.empty() && fraction.back() == '0')
            fraction.remove_suffix(1);
        if (fraction.size() > 9)
            return std::nullopt;
        duration frac_num = 0, frac_den = 1;
        for (char c : fraction) {
            frac_num = frac_num * 10 + (c - '0');
            frac_den *= 10;
        }
        if ((frac_num * u.ns) % frac_den != 0)
            return std::nullopt;
        if (whole > (max - frac_num * u.ns / frac_den) / u.ns)
            return std::nullopt;
        const duration v = whole * u.ns + frac_num * u.ns / frac_den;
        return negative ? -v : v;
    }
    return std::nullopt;
}

// The shortest exact text: the largest unit not above |d|, with as many decimals as needed
// ("2s", "1.5ms", "1.234567ms", "750us", "0s").
inline std::string format_duration(duration d) {
    if (d == 0)
        return "0s";
    const std::uint64_t mag =
        d < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
    struct unit {
        const char* suffix;
        std::uint64_t ns;
        int decimals;
    };
    constexpr std::array<unit, 4> units = {
        {{"s", 1'000'000'000, 9}, {"ms", 1'000'000, 6}, {"us", 1'000, 3}, {"ns", 1, 0}}};
    std::size_t k = 0;
    while (mag < units[k].ns) // stops at "ns" at the latest, as mag >= 1
        ++k;
    const unit& u = units[k];
    std::string text = d < 0 ? "-" : "";
    text += std::to_string(mag / u.ns);
    if (const std::uint64_t rest = mag % u.ns; rest != 0) {
        std::string digits = std::to_string(rest);
        digits.insert(0, static_cast<std::size_t>(u.decimals) - digits.size(), '0');
        while (digits.back() == '0')
            digits.pop_back();
        text += "." + digits;
    }
    return text + u.suffix;
}

} // namespace libsched
