#pragma once
// Spelling suggestions for error messages ("unknown key; did you mean "nice"?").
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace libsched::detail {

// Edit distance with adjacent transpositions counted as one edit (optimal string
// alignment), case-insensitive: "hihg" is one edit from "high", and RUN_TO_PARITY none from
// run_to_parity as far as a reader is concerned.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    constexpr auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    const std::size_t w = b.size() + 1;
    std::vector<std::size_t> d((a.size() + 1) * w);
    const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * w + j]; };
    for (std::size_t i = 0; i <= a.size(); ++i)
        at(i, 0) = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        at(0, j) = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const bool same = lower(a[i - 1]) == lower(b[j - 1]);
            at(i, j) =
                std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same ? 0 : 1)});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
                lower(a[i - 2]) == lower(b[j - 1]))
                at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
        }
    return at(a.size(), b.size());
}

// The candidate nearest to word, at most a third of its letters differing, or "".
template <class Range> std::string_view nearest(std::string_view word, const Range& candidates) {
    std::string_view best;
    std::size_t best_distance = word.size() / 3 + 1;
    for (const auto& c : candidates) {
        const std::string_view candidate{c};
        if (const std::size_t d = edit_distance(word, candidate); d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    return best;
}

// "; did you mean "x"?" for the candidate nearest to word, or "" when none is close (at
// most a third of the letters differ, ignoring case).
template <class Range> std::string did_you_mean(std::string_view word, const Range& candidates) {
    const std::string_view best = nearest(word, candidates);
    return best.empty() ? std::string{} : "; did you mean \"" + std::string{best} + "\"?";
}

} // namespace libsched::detail
