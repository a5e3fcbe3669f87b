#pragma once
// The one error type for bad scenarios: it names the field and the reason. One error may
// carry several: every mistake found in a scenario, so that a file can be fixed in one go.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace libsched {

class scenario_error : public std::runtime_error {
public:
    struct entry {
        std::string field; // as a scenario file spells it ("tasks[1].nice"); empty for the file
        std::string reason;
    };

    scenario_error(std::string field, std::string reason, std::string origin = {})
        : scenario_error(std::move(origin),
                         std::vector<entry>{{std::move(field), std::move(reason)}}) {}

    // Several errors of one text (origin first, as a field and a reason could not be told
    // from it otherwise), in the order found; there must be at least one.
    scenario_error(std::string origin, std::vector<entry> errors)
        : std::runtime_error(format(origin, errors)), errors_(std::move(errors)),
          origin_(std::move(origin)) {}

    // The first error's field and reason; what() has every error, one a line.
    const std::string& field() const noexcept { return errors_.front().field; }
    const std::string& reason() const noexcept { return errors_.front().reason; }
    const std::vector<entry>& errors() const noexcept { return errors_; }
    const std::string& origin() const noexcept { return origin_; } // file name, if any

    // "origin: field: reason", without the parts that are empty.
    std::string message(const entry& e) const { return format(origin_, e); }

    // The same errors, attributed to a file.
    scenario_error in(const std::string& origin) const { return {origin, errors_}; }

private:
    // Control characters of the file's text (in a key, a name) are shown as \xNN: a
    // message prints as itself, never as a terminal escape or a line of its own.
    static std::string printable(const std::string& text) {
        static constexpr char hex[] = "0123456789abcdef";
        std::string out;
        for (const char c : text) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20 || u == 0x7f)
                out += {'\\', 'x', hex[u >> 4], hex[u & 0xf]};
            else
                out += c;
        }
        return out;
    }
    static std::string format(const std::string& origin, const entry& e) {
        std::string s;
        if (!origin.empty())
            s += printable(origin) + ": ";
        if (!e.field.empty())
            s += printable(e.field) + ": ";
        return s + printable(e.reason);
    }
    static std::string format(const std::string& origin, const std::vector<entry>& errors) {
        std::string s;
        for (std::size_t i = 0; i < errors.size(); ++i)
            s += (i == 0 ? "" : "\n") + format(origin, errors[i]);
        return s;
    }
    std::vector<entry> errors_;
    std::string origin_;
};

} // namespace libsched
