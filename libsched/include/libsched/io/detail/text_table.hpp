#pragma once
// Plain-text tables for terminals and logs: a header, a rule, then rows; numbers aligned
// right, names left, columns as wide as their widest cell. ASCII only, no colours.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace libsched::detail {

enum class align { left, right };

struct column {
    std::string header;
    align alignment = align::right;
};

class text_table {
public:
    explicit text_table(std::vector<column> columns) : columns_(std::move(columns)) {}

    // Missing trailing cells print empty.
    void add_row(std::vector<std::string> cells) {
        cells.resize(columns_.size());
        rows_.push_back(std::move(cells));
    }

    void print(std::ostream& out) const {
        std::vector<std::size_t> widths;
        for (const column& c : columns_)
            widths.push_back(c.header.size());
        for (const auto& row : rows_)
            for (std::size_t i = 0; i < row.size(); ++i)
                widths[i] = std::max(widths[i], row[i].size());

        std::vector<std::string> headers, rule;
        for (std::size_t i = 0; i < columns_.size(); ++i) {
            headers.push_back(columns_[i].header);
            rule.emplace_back(widths[i], '-');
        }
        print_line(out, headers, widths);
        print_line(out, rule, widths);
        for (const auto& row : rows_)
            print_line(out, row, widths);
    }

private:
    void print_line(std::ostream& out, const std::vector<std::string>& cells,
                    const std::vector<std::size_t>& widths) const {
        std::string line;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const std::string pad(widths[i] - cells[i].size(), ' ');
            if (i != 0)
                line += "  ";
            line += columns_[i].alignment == align::left ? cells[i] + pad : pad + cells[i];
        }
        line.erase(line.find_last_not_of(' ') + 1);
        out << line << '\n';
    }

    std::vector<column> columns_;
    std::vector<std::vector<std::string>> rows_;
};

// v with a fixed number of decimals ("75.40"); plus_sign for differences ("+0.40").
inline std::string fixed(double v, int decimals, bool plus_sign = false) {
    // What rounds to zero prints as zero, never "-0.00".
    if (std::abs(v) * std::pow(10.0, decimals) < 0.5)
        v = 0;
    std::ostringstream s;
    if (plus_sign)
        s << std::showpos;
    s << std::fixed << std::setprecision(decimals) << v;
    return s.str();
}

// "-" for a value the run did not give.
inline std::string fixed(const std::optional<double>& v, int decimals, bool plus_sign = false) {
    return v ? fixed(*v, decimals, plus_sign) : "-";
}

} // namespace libsched::detail
