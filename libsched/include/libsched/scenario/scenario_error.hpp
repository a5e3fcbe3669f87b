#pragma once
// The one error type for bad scenarios: it names the field and the reason.
#include <stdexcept>
#include <string>

namespace libsched {

class scenario_error : public std::runtime_error {
public:
    scenario_error(std::string field, std::string reason, std::string origin = {})
        : std::runtime_error(format(origin, field, reason)), field_(std::move(field)),
          reason_(std::move(reason)), origin_(std::move(origin)) {}

    const std::string& field() const noexcept { return field_; }
    const std::string& reason() const noexcept { return reason_; }
    const std::string& origin() const noexcept { return origin_; } // file name, if any

    // The same error, attributed to a file.
    scenario_error in(const std::string& origin) const { return {field_, reason_, origin}; }

private:
    static std::string format(const std::string& origin, const std::string& field,
                              const std::string& reason) {
        std::string s;
        if (!origin.empty())
            s += origin + ": ";
        if (!field.empty())
            s += field + ": ";
        return s + reason;
    }
    std::string field_, reason_, origin_;
};

} // namespace libsched
