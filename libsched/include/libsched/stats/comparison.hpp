#pragma once
// Prediction against measurement: a replay's measured shares and ratios beside the
// simulated ones, with the error in the unit that suits each (percentage points for a
// share, percent of the measurement for a ratio) and whether it lies within the tolerance
// the measurement states.
#include <algorithm>
#include <cmath>
#include <libsched/scenario/scenario.hpp>
#include <libsched/stats/entry_summary.hpp>
#include <libsched/stats/theory.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsched::stats {

// jratio: a two-group figure's ratio of /proc/PID/stat jiffies (its ratio is of getrusage).
enum class measured_quantity { share, ratio, jratio };

inline constexpr std::string_view quantity_name(measured_quantity q) {
    switch (q) {
    case measured_quantity::share:
        return "share";
    case measured_quantity::ratio:
        return "ratio";
    case measured_quantity::jratio:
    default:
        return "jratio";
    }
}

// The unit of comparison::error.
inline constexpr std::string_view error_unit(measured_quantity q) {
    return q == measured_quantity::share ? "pp" : "%";
}

struct comparison {
    std::string entry;
    measured_quantity quantity = measured_quantity::share;
    std::optional<double> predicted; // nullopt: the run gave no value (no repetition, no
                                     // time for the reference entry)
    double measured = 0;
    std::optional<double> theory;    // the fluid theory's value (stats/theory.hpp), if any
    std::optional<double> error;     // share: (predicted - measured) * 100 percentage points;
                                     // ratio: (predicted / measured - 1) * 100 percent
    std::optional<double> tolerance; // as measured_spec::tolerance states it, if it does
    std::optional<bool> within;      // |error| within the tolerance; nullopt without either
    bool judged = true;              // false: shown for comparison only (measured_spec::judged)
    bool known_gap = false;          // measured_spec::known_gaps names its quantity
};

// Whether the replay marks the quantity as a known gap of the model.
inline bool is_known_gap(const measured_spec& m, measured_quantity q) {
    return std::find(m.known_gaps.begin(), m.known_gaps.end(), quantity_name(q)) !=
           m.known_gaps.end();
}

// The error of a ratio in percent of the measurement, and whether it lies within a relative
// tolerance.
inline void judge_ratio(comparison& c) {
    if (c.predicted && c.measured != 0)
        c.error = (*c.predicted / c.measured - 1) * 100;
    if (c.error && c.tolerance)
        c.within = std::abs(*c.error) <= *c.tolerance * 100;
}

// Shares first, then ratios, each in the order of `entries` (the scenario's order); measured
// entries without a row come last. With `theory`, each comparison has its theory value.
inline std::vector<comparison> compare_measured(const std::vector<row_summary>& entries,
                                                const measured_spec& measured,
                                                const theory_figures* theory = nullptr) {
    std::vector<comparison> out;
    const auto add = [&](const std::map<std::string, double>& values, measured_quantity q) {
        std::vector<std::string> order;
        for (const auto& row : entries)
            if (values.count(row.entry) != 0)
                order.push_back(row.entry);
        for (const auto& [entry, value] : values)
            if (std::find(order.begin(), order.end(), entry) == order.end())
                order.push_back(entry);
        for (const std::string& entry : order) {
            comparison c;
            c.entry = entry;
            c.quantity = q;
            c.measured = values.at(entry);
            c.tolerance =
                q == measured_quantity::share ? measured.tolerance.share : measured.tolerance.ratio;
            c.judged = measured.judged;
            c.known_gap = is_known_gap(measured, q);
            for (const auto& row : entries)
                if (row.entry == entry)
                    c.predicted =
                        q == measured_quantity::share ? std::optional{row.share} : row.ratio;
            if (theory != nullptr) {
                if (const auto it = theory->entry_share.find(entry);
                    it != theory->entry_share.end())
                    c.theory = q == measured_quantity::share ? std::optional{it->second}
                                                             : theory->ratio(it->second);
            }
            if (q == measured_quantity::ratio) {
                judge_ratio(c);
            } else if (c.predicted) {
                c.error = (*c.predicted - c.measured) * 100;
                // The tolerance is a fraction of one CPU, the error its hundredfold.
                if (c.tolerance)
                    c.within = std::abs(*c.error) <= *c.tolerance * 100;
            }
            out.push_back(std::move(c));
        }
    };
    add(measured.share, measured_quantity::share);
    add(measured.ratio, measured_quantity::ratio);
    return out;
}

} // namespace libsched::stats
