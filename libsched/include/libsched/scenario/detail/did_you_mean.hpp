#pragma once
// Spelling suggestions for error messages ("unknown key; did you mean "nice"?").
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace libsched::detail {

// Levenshtein distance, case-insensitive (RUN_TO_PARITY is one edit from run_to_parity's
// spelling as far as a reader is concerned).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    constexpr auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const std::size_t substitute = diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
            row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// "; did you mean "x"?" for the candidate nearest to word, or "" when none is close (at
// most a third of the letters differ, ignoring case).
template <class Range> std::string did_you_mean(std::string_view word, const Range& candidates) {
    const std::size_t limit = word.size() / 3;
    std::string_view best;
    std::size_t best_distance = limit + 1;
    for (const auto& c : candidates) {
        const std::string_view candidate{c};
        if (const std::size_t d = edit_distance(word, candidate); d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    return best.empty() ? std::string{} : "; did you mean \"" + std::string{best} + "\"?";
}

} // namespace libsched::detail
