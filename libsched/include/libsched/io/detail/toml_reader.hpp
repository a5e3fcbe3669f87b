#pragma once
// Strict reading of TOML tables: every value is converted with an error naming the field
// and the type it should have, every key a reader did not ask for is an error, and the
// line of each field is kept for errors found later (validate()). An error in one field
// is noted and reading goes on with the next, so that a file's mistakes come out together.
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>

#if !TOML_EXCEPTIONS
#error "libsched's TOML reader needs toml++ built with exceptions (TOML_EXCEPTIONS=1)"
#endif

namespace libsched::detail {

// What reading has met so far: where each field was written, and every error.
class read_log {
public:
    void note(const std::string& field, const toml::source_region& where) {
        if (where.begin.line != 0)
            lines_[field] = where.begin.line;
    }

    // The line of the field, or of the nearest enclosing field that was written
    // ("tasks[1].behaviour.run" -> "tasks[1].behaviour" -> "tasks[1]" -> "tasks"); 0 if none.
    std::uint32_t find(std::string field) const {
        while (!field.empty()) {
            if (const auto it = lines_.find(field); it != lines_.end())
                return it->second;
            const auto cut = field.find_last_of(".[");
            if (cut == std::string::npos)
                break;
            field.resize(cut);
        }
        return 0;
    }

    // The errors with the line of each field appended to its reason, where known.
    std::vector<scenario_error::entry> located(std::vector<scenario_error::entry> errors) const {
        for (scenario_error::entry& e : errors)
            if (const std::uint32_t line = e.field.empty() ? 0 : find(e.field); line != 0)
                e.reason += " (line " + std::to_string(line) + ")";
        return errors;
    }

    void error(std::string field, std::string reason) {
        errors_.push_back({std::move(field), std::move(reason)});
    }

    // Runs read(); the errors of a scenario_error it throws are kept and reading goes on.
    // Whether read() succeeded.
    template <class Read> bool attempt(Read read) {
        try {
            read();
            return true;
        } catch (const scenario_error& e) {
            errors_.insert(errors_.end(), e.errors().begin(), e.errors().end());
            return false;
        }
    }

    const std::vector<scenario_error::entry>& errors() const { return errors_; }

private:
    std::map<std::string, std::uint32_t> lines_;
    std::vector<scenario_error::entry> errors_;
};

inline std::string_view type_name(toml::node_type t) {
    switch (t) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a floating-point number";
    case toml::node_type::boolean:
        return "a boolean";
    case toml::node_type::date:
        return "a date";
    case toml::node_type::time:
        return "a time";
    case toml::node_type::date_time:
        return "a date-time";
    case toml::node_type::none:
        break;
    }
    return "nothing";
}

[[noreturn]] inline void wrong_type(const std::string& field, const toml::node& n,
                                    std::string_view expected) {
    throw scenario_error(field, "expected " + std::string{expected} + ", got " +
                                    std::string{type_name(n.type())});
}

inline const toml::table& read_table(const toml::node& n, const std::string& field) {
    if (const auto* t = n.as_table())
        return *t;
    wrong_type(field, n, "a table");
}

inline const toml::array& read_array(const toml::node& n, const std::string& field) {
    if (const auto* a = n.as_array())
        return *a;
    wrong_type(field, n, "an array");
}

inline std::string read_string(const toml::node& n, const std::string& field) {
    if (const auto* s = n.as_string())
        return s->get();
    wrong_type(field, n, "a string");
}

inline bool read_bool(const toml::node& n, const std::string& field) {
    if (const auto* b = n.as_boolean())
        return b->get();
    wrong_type(field, n, "a boolean (true or false)");
}

inline std::int64_t read_integer(const toml::node& n, const std::string& field) {
    if (const auto* i = n.as_integer())
        return i->get();
    wrong_type(field, n, "an integer");
}

inline int read_int(const toml::node& n, const std::string& field) {
    const std::int64_t v = read_integer(n, field);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        throw scenario_error(field, std::to_string(v) + " is out of range");
    return static_cast<int>(v);
}

inline double read_number(const toml::node& n, const std::string& field) {
    if (const auto* f = n.as_floating_point())
        return f->get();
    if (const auto* i = n.as_integer())
        return static_cast<double>(i->get());
    wrong_type(field, n, "a number");
}

// An integer is nanoseconds; a string carries its unit ("2s", "1.5ms", "750us", "100ns").
inline duration read_duration(const toml::node& n, const std::string& field) {
    if (const auto* i = n.as_integer())
        return i->get();
    if (const auto* s = n.as_string()) {
        if (const auto d = parse_duration(s->get()))
            return *d;
        throw scenario_error(field, "\"" + s->get() +
                                        "\" is not a duration: write a whole number of "
                                        "nanoseconds with a unit (ns, us, ms, s), such as "
                                        "\"1.5ms\", or an integer in ns");
    }
    wrong_type(field, n, "a duration (a string such as \"1.5ms\" or integer nanoseconds)");
}

// One of a fixed set of words ("normal", "batch", "idle"), read by calling it like the
// other readers: choice_reader<sched_policy>{{"normal", sched_policy::normal}, ...}.
template <class E> class choice_reader {
public:
    choice_reader(std::initializer_list<std::pair<std::string_view, E>> choices)
        : choices_(choices) {}
    // From a table of (name, value) pairs, such as preempt_mode_names.
    template <std::size_t N>
    explicit choice_reader(const std::array<std::pair<std::string_view, E>, N>& choices)
        : choices_(choices.begin(), choices.end()) {}

    E operator()(const toml::node& n, const std::string& field) const {
        const std::string word = read_string(n, field);
        std::vector<std::string_view> names;
        std::string listed;
        for (const auto& [name, value] : choices_) {
            if (name == word)
                return value;
            names.push_back(name);
            listed += (listed.empty() ? "\"" : ", \"") + std::string{name} + "\"";
        }
        throw scenario_error(field, "\"" + word + "\" is not one of " + listed +
                                        did_you_mean(word, names));
    }

private:
    std::vector<std::pair<std::string_view, E>> choices_;
};

// Reads one table: take() the keys it knows, then reject_unknown() names any other key.
class table_reader {
public:
    table_reader(const toml::table& table, std::string path, read_log& log)
        : table_(table), path_(std::move(path)), log_(log) {}

    std::string field(std::string_view key) const {
        return path_.empty() ? std::string{key} : path_ + "." + std::string{key};
    }

    // The value at key, or nullptr; either way the key is known from now on.
    const toml::node* take(std::string_view key) {
        known_.emplace_back(key);
        const toml::node* n = table_.get(key);
        if (n != nullptr)
            log_.note(field(key), n->source());
        return n;
    }

    // target = read(value, field) when the key is present; an error is logged. Whether
    // target was read.
    template <class T, class Read> bool take_into(std::string_view key, T& target, Read read) {
        const toml::node* n = take(key);
        return n != nullptr && log_.attempt([&] { target = read(*n, field(key)); });
    }

    // The same for a key that must be there.
    template <class T, class Read>
    bool take_required_into(std::string_view key, T& target, Read read) {
        if (table_.get(key) == nullptr) {
            known_.emplace_back(key);
            log_.error(field(key), "missing" + misspelt(key));
            return false;
        }
        return take_into(key, target, read);
    }

    void reject_unknown() const {
        for (const auto& [key, value] : table_) {
            const std::string_view k = key.str();
            if (std::find(known_.begin(), known_.end(), k) != known_.end())
                continue;
            const std::string f = field(k);
            log_.note(f, key.source());
            log_.error(f, "unknown key" + did_you_mean(k, known_));
        }
    }

private:
    // "; \"hihg\" may be it, misspelt" when a key of the table not taken so far is near key.
    std::string misspelt(std::string_view key) const {
        std::vector<std::string_view> others;
        for (const auto& entry : table_)
            if (std::find(known_.begin(), known_.end(), entry.first.str()) == known_.end())
                others.push_back(entry.first.str());
        const std::string_view near = nearest(key, others);
        return near.empty() ? std::string{} : "; \"" + std::string{near} + "\" may be it, misspelt";
    }

    const toml::table& table_;
    std::string path_;
    read_log& log_;
    std::vector<std::string> known_;
};

} // namespace libsched::detail
