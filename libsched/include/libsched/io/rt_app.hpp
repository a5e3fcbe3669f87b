#pragma once
// rt-app workload files (JSON) as scenarios: rt_app_to_toml() turns the file's tasks, phases
// and events into the scenario's [[tasks]] with the "steps" behaviour, as docs/rt-app.md
// describes, so that one file runs on a real machine with rt-app and in the model. Every key
// the model cannot honour is an error naming its JSON path, never dropped: an event of a kind
// the model lacks, a SCHED_DEADLINE task, a per-phase change of policy or affinity. Keys that
// only change rt-app's logging are accepted and ignored. rt-app says nothing of the machine:
// its [machine] comes from the options.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/scenario/detail/did_you_mean.hpp>
#include <libsched/scenario/duration_text.hpp>
#include <libsched/scenario/scenario_error.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>

namespace libsched {

struct rt_app_options {
    std::optional<toml::table> machine; // the scenario's [machine]; none: the defaults
    std::optional<std::string> kernel;  // machine.kernel ("6.8"), in place of the machine's
};

namespace detail::rt_app {

// Object keys in the file's order: rt-app runs a phase's events in the order written.
using json = nlohmann::ordered_json;

inline std::string key_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

// Every error found, so that a file is fixed in one go.
class problems {
public:
    template <class Read> void attempt(Read read) {
        try {
            read();
        } catch (const scenario_error& e) {
            list_.insert(list_.end(), e.errors().begin(), e.errors().end());
        }
    }
    void add(std::string field, std::string reason) {
        list_.push_back({std::move(field), std::move(reason)});
    }
    const std::vector<scenario_error::entry>& list() const { return list_; }

private:
    std::vector<scenario_error::entry> list_;
};

// json-c, which rt-app reads with, allows a comma before } and ], and the example files
// rt-app ships have some. Each such comma becomes a space, so positions stay as written.
inline std::string without_trailing_commas(std::string_view text) {
    std::string out(text);
    enum class in { code, string, line_comment, block_comment } state = in::code;
    std::optional<std::size_t> comma;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = out[i];
        const char next = i + 1 < out.size() ? out[i + 1] : '\0';
        switch (state) {
        case in::string:
            if (c == '\\')
                ++i;
            else if (c == '"')
                state = in::code;
            break;
        case in::line_comment:
            if (c == '\n')
                state = in::code;
            break;
        case in::block_comment:
            if (c == '*' && next == '/') {
                state = in::code;
                ++i;
            }
            break;
        case in::code:
            if (c == '/' && (next == '/' || next == '*')) {
                state = next == '/' ? in::line_comment : in::block_comment;
                ++i;
            } else if (c == ',') {
                comma = i;
            } else if (c == '}' || c == ']') {
                if (comma)
                    out[*comma] = ' ';
                comma.reset();
            } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                comma.reset();
                if (c == '"')
                    state = in::string;
            }
            break;
        }
    }
    return out;
}

// "line 3, column 7" of the byte at offset (0-based) of text.
inline std::string position_text(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// The document of the text, with /* */ and // comments and trailing commas allowed, as
// rt-app's json-c allows them. A syntax error gives the line and column; a key written
// twice in one object is an error (json-c would keep only the last).
inline json parse_json(std::string_view text, const std::string& origin) {
    struct frame {
        std::string path;
        bool object;
        std::set<std::string> keys;
        std::string last;
    };
    std::vector<frame> open;
    std::vector<scenario_error::entry> twice;
    const json::parser_callback_t note = [&](int, json::parse_event_t event, json& parsed) {
        using ev = json::parse_event_t;
        if (event == ev::object_start || event == ev::array_start) {
            std::string path;
            if (!open.empty())
                path = open.back().object ? key_path(open.back().path, open.back().last)
                                          : open.back().path + "[]";
            open.push_back({std::move(path), event == ev::object_start, {}, {}});
        } else if (event == ev::object_end || event == ev::array_end) {
            open.pop_back();
        } else if (event == ev::key) {
            frame& f = open.back();
            f.last = parsed.get<std::string>();
            if (!f.keys.insert(f.last).second)
                twice.push_back({key_path(f.path, f.last),
                                 "written twice in one object, of which rt-app keeps only the "
                                 "last; give repeated events suffixes (\"run0\", \"run1\"), as "
                                 "rt-app's workgen script does"});
        }
        return true;
    };
    const std::string cleaned = without_trailing_commas(text);
    json root;
    try {
        root = json::parse(cleaned, note, true, true);
    } catch (const json::parse_error& e) {
        // e.byte is 1-based: the character the parser stopped at.
        const std::string what = e.what();
        const auto colon = what.find(": ", what.find("parse error"));
        throw scenario_error({},
                             "JSON syntax error at " +
                                 position_text(text, e.byte == 0 ? 0 : e.byte - 1) + ": " +
                                 (colon == std::string::npos ? what : what.substr(colon + 2)),
                             origin);
    }
    if (!twice.empty())
        throw scenario_error(origin, std::move(twice));
    return root;
}

inline std::string json_type(const json& v) {
    if (v.is_number_integer())
        return "an integer";
    if (v.is_number_float())
        return "a number with a fraction";
    if (v.is_string())
        return "a string";
    if (v.is_boolean())
        return "a boolean";
    if (v.is_array())
        return "an array";
    if (v.is_object())
        return "an object";
    return "null";
}

[[noreturn]] inline void wrong_type(const json& v, const std::string& field, const char* want) {
    throw scenario_error(field, std::string{"expected "} + want + ", got " + json_type(v));
}

// rt-app reads integers with json_object_get_int: 32 bits.
inline long long read_int(const json& v, const std::string& field) {
    if (!v.is_number_integer())
        wrong_type(v, field, "an integer");
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::numeric_limits<std::int32_t>::max())
        throw scenario_error(field, v.dump() + " is beyond rt-app's 32-bit integers");
    const auto i = v.get<std::int64_t>();
    if (i < std::numeric_limits<std::int32_t>::min() ||
        i > std::numeric_limits<std::int32_t>::max())
        throw scenario_error(field, v.dump() + " is beyond rt-app's 32-bit integers");
    return i;
}

inline long long read_nonnegative(const json& v, const std::string& field, const char* unit) {
    const long long i = read_int(v, field);
    if (i < 0)
        throw scenario_error(field, std::to_string(i) + " is negative (" + unit + ")");
    return i;
}

inline std::string read_string(const json& v, const std::string& field) {
    if (!v.is_string())
        wrong_type(v, field, "a string");
    return v.get<std::string>();
}

inline bool read_bool(const json& v, const std::string& field) {
    if (!v.is_boolean())
        wrong_type(v, field, "true or false");
    return v.get<bool>();
}

inline const json& read_object(const json& v, const std::string& field) {
    if (!v.is_object())
        wrong_type(v, field, "an object");
    return v;
}

// rt-app's microseconds as a scenario duration ("10ms").
inline std::string usec_text(long long usec) {
    return format_duration(usec * nsec_per_usec);
}

// "unknown key" with the nearest of the keys that belong there.
[[noreturn]] inline void unknown_key(const std::string& key, const std::string& field,
                                     const std::vector<std::string_view>& known) {
    throw scenario_error(field, "not an rt-app key here" + did_you_mean(key, known));
}

// The event kind a key stands for, matched as rt-app matches it: the key begins with the
// kind's name ("run0", "sleep_long"), the kinds tried in rt-app's order ("runtime" before
// "run"); empty if the key is no event.
inline std::string_view event_kind(std::string_view key) {
    static constexpr std::string_view kinds[] = {
        "sleep",  "runtime", "run",   "memrun", "mem",      "iorun",   "lock",
        "unlock", "signal",  "broad", "wait",   "sync",     "barrier", "timer",
        "resume", "suspend", "yield", "fork",   "sem_post", "sem_wait"};
    for (const std::string_view kind : kinds)
        if (key.substr(0, kind.size()) == kind)
            return kind;
    return {};
}

// Why a kind of rt-app event has no step, or nothing if it has one.
inline std::optional<std::string> unsupported_event(std::string_view kind) {
    static const std::map<std::string_view, const char*> why = {
        {"lock", "libsched models no mutexes"},
        {"unlock", "libsched models no mutexes"},
        {"signal", "libsched models no condition variables beyond suspend and resume"},
        {"broad", "libsched models no condition variables beyond suspend and resume"},
        {"wait", "libsched models no condition variables beyond suspend and resume"},
        {"sync", "libsched models no condition variables beyond suspend and resume"},
        {"barrier", "libsched models no barriers"},
        {"mem", "libsched models no memory or I/O work"},
        {"memrun", "libsched models no memory or I/O work"},
        {"iorun", "libsched models no memory or I/O work"},
        {"fork", "libsched's tasks create no others"}};
    if (const auto it = why.find(kind); it != why.end())
        return "rt-app event \"" + std::string{kind} + "\" is not supported (" + it->second + ")";
    return std::nullopt;
}

// Keys rt-app reads as scheduling attributes; in a phase each would change the task's
// attribute from then on, which the model's tasks do not do.
inline std::optional<std::string> unsupported_attribute(std::string_view key) {
    if (key == "dl-runtime" || key == "dl-period" || key == "dl-deadline" || key == "period" ||
        key == "deadline")
        return std::string{"a SCHED_DEADLINE parameter: libsched models no SCHED_DEADLINE tasks"};
    if (key == "util_min" || key == "util_max")
        return std::string{"utilization clamping (uclamp) is not modelled"};
    if (key == "nodes_membind")
        return std::string{"NUMA memory binding is not modelled"};
    return std::nullopt;
}

struct rt_event {
    std::string field; // "tasks.t.phases.p1.run0"
    std::string_view kind;
    long long usec = 0;           // run, runtime, sleep; a timer's period
    std::string name;             // a timer's ref; the task resumed; the semaphore
    std::optional<bool> absolute; // a timer's mode, if the file gives it
};

struct rt_phase {
    std::string field;
    long long loop = 1;
    std::vector<rt_event> events;
};

struct rt_task {
    std::string name;
    std::string field; // "tasks.NAME"
    long long instances = 1;
    std::string policy; // rt-app's name, "SCHED_OTHER"
    std::optional<long long> priority;
    std::vector<long long> cpus;
    long long delay = 0;
    std::string taskgroup; // "/a/b", or empty
    std::string taskgroup_field;
    long long loop = -1;
    bool phased = false; // the file has "phases" (else one phase of the task's own events)
    std::vector<rt_phase> phases;
};

// The timers of rt-app: a ref beginning with "unique" is each thread's own, any other is one
// timer for the whole file.
inline std::string timer_key(const rt_task& t, const std::string& ref) {
    return ref.rfind("unique", 0) == 0 ? t.name + "\n" + ref : ref;
}

// Whether an object has a key that is an event, supported or not.
inline bool has_events(const json& obj) {
    for (const auto& item : obj.items())
        if (!event_kind(item.key()).empty())
            return true;
    return false;
}

// The cgroup of the task's taskgroup ("/a/b" is "a/b"), or none for the root.
inline std::optional<std::string> cgroup_of(const rt_task& t) {
    const auto first = t.taskgroup.find_first_not_of('/');
    if (first == std::string::npos)
        return std::nullopt;
    return t.taskgroup.substr(first, t.taskgroup.find_last_not_of('/') - first + 1);
}

inline rt_event read_event(std::string_view kind, const json& v, const std::string& field,
                           const std::string& task_name) {
    if (const auto why = unsupported_event(kind))
        throw scenario_error(field, *why);
    rt_event e{field, kind, 0, {}, std::nullopt};
    if (kind == "run" || kind == "runtime" || kind == "sleep") {
        e.usec = read_nonnegative(v, field, "microseconds");
    } else if (kind == "timer") {
        const json& t = read_object(v, field);
        e.name = "unknown"; // rt-app's default ref: one timer shared by every task
        for (const auto& [k, value] : t.items()) {
            const std::string f = key_path(field, k);
            if (k == "ref")
                e.name = read_string(value, f);
            else if (k == "period")
                e.usec = read_nonnegative(value, f, "microseconds");
            else if (k == "mode") {
                const std::string mode = read_string(value, f);
                if (mode != "absolute" && mode != "relative")
                    throw scenario_error(f, "\"" + mode + "\" is not \"absolute\" or \"relative\"");
                e.absolute = mode == "absolute";
            } else
                unknown_key(k, f, {"ref", "period", "mode"});
        }
    } else if (kind == "suspend") {
        // rt-app 1.0 waits on the condition the string names, later releases on the task's
        // own name: the two agree when the string is the task's name.
        const std::string name = read_string(v, field);
        if (name != task_name)
            throw scenario_error(field, "\"" + name + "\": a task suspends on its own name, \"" +
                                            task_name +
                                            "\" (rt-app 1.0 waits on the name given, later "
                                            "releases on the task's own)");
    } else if (kind != "yield") {       // rt-app ignores a yield's value
        e.name = read_string(v, field); // resume, sem_post, sem_wait
    }
    return e;
}

// A task's or a phase's count of passes: 1 or more, or -1 for ever. rt-app takes other
// values too, for no pass (a task's 0) or for ever (its counter never reaches them).
inline long long read_loop(const json& v, const std::string& field) {
    const long long loop = read_int(v, field);
    if (loop == 0 || loop < -1)
        throw scenario_error(field, std::to_string(loop) +
                                        " is not a count of passes: give 1 or more, or -1 "
                                        "for ever");
    return loop;
}

inline const std::vector<std::string_view>& task_keys() {
    static const std::vector<std::string_view> keys = {"instance", "loop",  "policy", "priority",
                                                       "cpus",     "delay", "phases", "taskgroup"};
    return keys;
}

// A phase's events; its other keys through other(key, value, field), which throws for a
// key it does not know.
template <class Other>
void read_events(const json& obj, const std::string& field, const std::string& task_name,
                 rt_phase& into, problems& log, Other other) {
    for (const auto& [key, value] : obj.items()) {
        const std::string f = key_path(field, key);
        log.attempt([&, &k = key, &v = value] {
            if (const std::string_view kind = event_kind(k); !kind.empty())
                into.events.push_back(read_event(kind, v, f, task_name));
            else
                other(k, v, f);
        });
    }
}

inline rt_phase read_phase(const json& obj, const std::string& field, const std::string& task_name,
                           problems& log) {
    rt_phase p{field, 1, {}};
    read_object(obj, field);
    read_events(obj, field, task_name, p, log,
                [&](const std::string& key, const json& v, const std::string& f) {
                    if (key == "loop")
                        p.loop = read_loop(v, f);
                    else if (key == "cpus" || key == "policy" || key == "priority" ||
                             key == "taskgroup")
                        throw scenario_error(f, "a per-phase \"" + key +
                                                    "\" is not supported: the task keeps its " +
                                                    "attributes for the whole run; give it in "
                                                    "the task");
                    else if (const auto why = unsupported_attribute(key))
                        throw scenario_error(f, *why);
                    else
                        unknown_key(key, f, {"loop"});
                });
    if (!has_events(obj))
        throw scenario_error(field, "a phase without events");
    return p;
}

inline rt_task read_task(const std::string& name, const json& obj, const std::string& field,
                         const std::string& default_policy, problems& log) {
    rt_task t;
    t.name = name;
    t.field = field;
    t.policy = default_policy;
    read_object(obj, field);
    t.phased = obj.contains("phases");
    rt_phase own{field, 1, {}};
    std::optional<long long> loop;
    std::string loop_field;
    const auto task_key = [&](const std::string& key, const json& v, const std::string& f) {
        if (key == "instance") {
            t.instances = read_int(v, f);
            if (t.instances < 1)
                throw scenario_error(f, std::to_string(t.instances) +
                                            " threads: rt-app starts none; leave the task out");
        } else if (key == "loop") {
            loop = read_loop(v, f);
            loop_field = f;
        } else if (key == "policy") {
            t.policy = read_string(v, f);
        } else if (key == "priority") {
            t.priority = read_int(v, f);
        } else if (key == "cpus") {
            if (!v.is_array())
                wrong_type(v, f, "an array of CPU numbers");
            if (v.empty())
                throw scenario_error(f, "an empty CPU list, which sched_setaffinity() rejects");
            for (std::size_t i = 0; i < v.size(); ++i)
                t.cpus.push_back(
                    read_nonnegative(v[i], f + "[" + std::to_string(i) + "]", "a CPU number"));
        } else if (key == "delay") {
            t.delay = read_nonnegative(v, f, "microseconds");
        } else if (key == "taskgroup") {
            t.taskgroup = read_string(v, f);
            t.taskgroup_field = f;
            if (!t.taskgroup.empty() && t.taskgroup.front() != '/')
                throw scenario_error(f, "\"" + t.taskgroup +
                                            "\": a taskgroup is a path from the root, \"/" +
                                            t.taskgroup + "\"");
        } else if (key == "phases") {
            const json& phases = read_object(v, f);
            if (phases.empty())
                throw scenario_error(f, "no phases");
            for (const auto& [pname, pvalue] : phases.items())
                log.attempt([&, &pn = pname, &pv = pvalue] {
                    t.phases.push_back(read_phase(pv, key_path(f, pn), name, log));
                });
        } else if (key == "nice") {
            throw scenario_error(f, "rt-app has no \"nice\": a SCHED_OTHER task's \"priority\" "
                                    "is its nice value");
        } else if (const auto why = unsupported_attribute(key)) {
            throw scenario_error(f, *why);
        } else {
            unknown_key(key, f, task_keys());
        }
    };
    if (t.phased) {
        for (const auto& [key, value] : obj.items()) {
            const std::string f = key_path(field, key);
            log.attempt([&, &k = key, &v = value] {
                if (!event_kind(k).empty())
                    throw scenario_error(f, "an event beside \"phases\", which rt-app does not "
                                            "run: move it into a phase");
                task_key(k, v, f);
            });
        }
        t.loop = loop.value_or(-1);
        return t;
    }
    read_events(obj, field, name, own, log, task_key);
    // Without "phases" the task's "loop" is its one phase's: rt-app 1.0 then repeats the
    // task for ever, later releases stop after that many passes.
    if (loop && *loop != -1)
        throw scenario_error(loop_field, std::to_string(*loop) +
                                             " passes of events written in the task: rt-app 1.0 "
                                             "repeats them for ever, later releases stop after "
                                             "them. Put the events in a \"phases\" object to say "
                                             "which: a phase with this loop, and \"loop\": 1 or "
                                             "-1 in the task");
    if (!has_events(obj))
        throw scenario_error(field, "a task without events");
    t.phases.push_back(std::move(own));
    return t;
}

// rt-app's policy names, as the scenario spells them ("" for the default, normal).
inline std::string policy_of(const std::string& rt_app_policy, const std::string& field) {
    static const std::map<std::string, const char*> names = {{"SCHED_OTHER", ""},
                                                             {"SCHED_BATCH", "batch"},
                                                             {"SCHED_IDLE", "idle"},
                                                             {"SCHED_FIFO", "fifo"},
                                                             {"SCHED_RR", "rr"}};
    if (const auto it = names.find(rt_app_policy); it != names.end())
        return it->second;
    if (rt_app_policy == "SCHED_DEADLINE")
        throw scenario_error(field, "SCHED_DEADLINE: libsched models no SCHED_DEADLINE tasks");
    std::vector<std::string_view> known;
    for (const auto& entry : names)
        known.push_back(entry.first);
    throw scenario_error(field, "\"" + rt_app_policy + "\" is not a policy rt-app knows" +
                                    did_you_mean(rt_app_policy, known));
}

// Global keys that change only what rt-app logs or how it prepares, or that matter only for
// events refused anyway (mutexes, memory and I/O work), with the JSON types rt-app accepts.
inline bool ignored_global(const std::string& key, const json& v, const std::string& field) {
    const auto expect = [&](bool ok, const char* want) {
        if (!ok)
            wrong_type(v, field, want);
    };
    if (key == "calibration") {
        // ns per loop, or the CPU rt-app calibrates on ("CPU0"): how rt-app turns a run's
        // microseconds into loops of work, which the model's CPU time needs not.
        if (v.is_string()) {
            const std::string s = v.get<std::string>();
            if (s.size() < 4 || s.substr(0, 3) != "CPU" ||
                s.find_first_not_of("0123456789", 3) != std::string::npos)
                throw scenario_error(field, "\"" + s + "\" is not a CPU such as \"CPU0\"");
        } else if (read_int(v, field) <= 0) {
            throw scenario_error(field, "nanoseconds per loop must be positive");
        }
        return true;
    }
    if (key == "pi_enabled" || key == "lock_pages" || key == "gnuplot" ||
        key == "cumulative_slack") {
        expect(v.is_boolean(), "true or false");
        return true;
    }
    if (key == "logdir" || key == "log_basename" || key == "io_device") {
        expect(v.is_string(), "a string");
        return true;
    }
    if (key == "ftrace") { // a boolean in 1.0, category names later
        expect(v.is_boolean() || v.is_string(), "true, false or a string");
        return true;
    }
    if (key == "log_size") {
        expect(v.is_number_integer() || v.is_string(), "an integer or a string");
        return true;
    }
    if (key == "mem_buffer_size") {
        read_int(v, field);
        return true;
    }
    return false;
}

struct rt_global {
    std::optional<long long> duration; // seconds
    std::string default_policy = "SCHED_OTHER";
};

inline rt_global read_global(const json& v, problems& log) {
    rt_global g;
    read_object(v, "global");
    for (const auto& [key, value] : v.items()) {
        const std::string f = key_path("global", key);
        log.attempt([&, &k = key, &val = value] {
            if (k == "duration") {
                g.duration = read_int(val, f);
            } else if (k == "default_policy") {
                g.default_policy = read_string(val, f);
                policy_of(g.default_policy, f);
            } else if (!ignored_global(k, val, f)) {
                unknown_key(k, f,
                            {"duration", "default_policy", "calibration", "pi_enabled",
                             "lock_pages", "logdir", "log_basename", "log_size", "ftrace",
                             "gnuplot", "io_device", "mem_buffer_size", "cumulative_slack"});
            }
        });
    }
    return g;
}

// The [[tasks]] entry of a task; names are the file's task names, for resume.
inline toml::table task_table(const rt_task& t, const std::set<std::string>& names,
                              const std::map<std::string, bool>& absolute_timers, problems& log) {
    toml::table out;
    out.insert("name", t.name);
    if (t.instances != 1)
        out.insert("count", t.instances);
    log.attempt([&] {
        const std::string policy = policy_of(t.policy, key_path(t.field, "policy"));
        const bool rt = policy == "fifo" || policy == "rr";
        const std::string pf = key_path(t.field, "priority");
        if (!policy.empty())
            out.insert("policy", policy);
        if (rt) {
            const long long prio = t.priority.value_or(10); // rt-app's default for RT policies
            if (prio < 1 || prio > 99)
                throw scenario_error(pf, std::to_string(prio) + " is outside " + t.policy +
                                             "'s priorities, 1 to 99");
            out.insert("rt_priority", prio);
        } else if (t.priority) {
            if (*t.priority < -20 || *t.priority > 19)
                throw scenario_error(pf, std::to_string(*t.priority) +
                                             " is outside the nice values, -20 to 19, which "
                                             "rt-app refuses");
            if (*t.priority != 0)
                out.insert("nice", *t.priority);
        }
        if (rt && cgroup_of(t))
            throw scenario_error(t.taskgroup_field,
                                 "rt-app puts no " + t.policy + " task in a taskgroup");
    });
    if (!t.cpus.empty()) {
        toml::array cpus;
        for (const long long c : t.cpus)
            cpus.push_back(c);
        out.insert("affinity", std::move(cpus));
    }
    if (t.delay > 0)
        out.insert("start", usec_text(t.delay));
    if (const auto cgroup = cgroup_of(t))
        out.insert("cgroup", *cgroup);

    const auto steps_of = [&](const rt_phase& p) {
        toml::array steps;
        for (const rt_event& e : p.events) {
            toml::table step;
            if (e.kind == "run" || e.kind == "runtime" || e.kind == "sleep") {
                step.insert(e.kind, usec_text(e.usec));
            } else if (e.kind == "timer") {
                step.insert("timer", usec_text(e.usec));
                step.insert("ref", e.name);
                // A timer's mode is the timer's: absolute once any use of it says so.
                step.insert("mode",
                            absolute_timers.at(timer_key(t, e.name)) ? "absolute" : "relative");
            } else if (e.kind == "suspend" || e.kind == "yield") {
                step.insert(e.kind, true);
            } else if (e.kind == "resume") {
                if (names.count(e.name) == 0)
                    log.add(e.field,
                            "no task named \"" + e.name + "\"" + did_you_mean(e.name, names));
                step.insert("resume", e.name);
            } else {
                step.insert(e.kind, e.name); // sem_post, sem_wait
            }
            step.is_inline(true);
            steps.push_back(std::move(step));
        }
        return steps;
    };
    toml::table behaviour;
    behaviour.insert("type", "steps");
    behaviour.insert("loop", t.loop);
    if (t.phased) {
        toml::array phases;
        for (const rt_phase& p : t.phases) {
            toml::table pt;
            pt.insert("loop", p.loop);
            pt.insert("steps", steps_of(p));
            phases.push_back(std::move(pt));
        }
        behaviour.insert("phases", std::move(phases));
    } else {
        behaviour.insert("steps", steps_of(t.phases.front()));
    }
    out.insert("behaviour", std::move(behaviour));
    return out;
}

} // namespace detail::rt_app

// The scenario of an rt-app workload file's JSON text, as a TOML document: toml_text()
// writes it out, parse_scenario() reads it. origin names the text in errors (a file name);
// its stem is the scenario's name. Every error of the file comes out in one scenario_error,
// each naming its JSON path ("tasks.thread0.phases.p1.lock").
inline toml::table rt_app_to_toml(std::string_view json_text, const std::string& origin,
                                  const rt_app_options& options = {}) {
    using namespace detail::rt_app;
    const json root = parse_json(json_text, origin);
    if (!root.is_object())
        throw scenario_error({}, "expected a JSON object with \"tasks\", got " + json_type(root),
                             origin);
    problems log;
    rt_global g;
    if (const auto it = root.find("global"); it != root.end())
        log.attempt([&] { g = read_global(*it, log); });
    std::vector<rt_task> tasks;
    for (const auto& [key, value] : root.items())
        log.attempt([&, &k = key, &v = value] {
            if (k == "tasks") {
                if (read_object(v, k).empty())
                    throw scenario_error(k, "no tasks");
                for (const auto& [name, t] : v.items())
                    log.attempt([&, &n = name, &tv = t] {
                        tasks.push_back(read_task(n, tv, key_path(k, n), g.default_policy, log));
                    });
            } else if (k == "resources") {
                read_object(v, k); // declarations only: rt-app makes each resource on first use
            } else if (k != "global") {
                unknown_key(k, k, {"tasks", "global", "resources"});
            }
        });
    if (!root.contains("tasks"))
        log.add("tasks", "missing: rt-app needs its tasks");

    toml::table doc;
    const std::filesystem::path path{origin};
    const std::string stem = path.stem().string();
    doc.insert("name", stem.empty() ? "rt-app" : stem);
    doc.insert("description", "The rt-app workload " + path.filename().string());
    if (!g.duration || *g.duration <= 0)
        log.add("global.duration",
                (g.duration ? std::to_string(*g.duration) : std::string{"missing"}) +
                    ": rt-app then runs until every task ends, which a simulation cannot wait "
                    "for; give the run's length in seconds");
    else
        doc.insert("length", format_duration(*g.duration * nsec_per_sec));

    toml::table machine = options.machine.value_or(toml::table{});
    machine.is_inline(false);
    if (options.kernel) {
        if (!kernel_version::parse(*options.kernel))
            log.add("kernel", not_a_release(*options.kernel));
        machine.insert_or_assign("kernel", *options.kernel);
    }
    toml::array cgroups;
    std::set<std::string> groups;
    const rt_task* grouped = nullptr; // the first task in a taskgroup
    for (const rt_task& t : tasks)
        if (const auto name = cgroup_of(t)) {
            grouped = grouped != nullptr ? grouped : &t;
            if (groups.insert(*name).second)
                cgroups.push_back(toml::table{{"name", *name}});
        }
    if (grouped != nullptr) {
        // rt-app attaches its taskgroups to a cgroup v1 hierarchy of the cpu controller.
        const toml::node* version = machine.get("cgroup_version");
        if (version == nullptr)
            machine.insert("cgroup_version", 1);
        else if (version->value<std::int64_t>() != 1)
            log.add(grouped->taskgroup_field,
                    "rt-app's taskgroups are cgroup v1 groups of the cpu controller; the "
                    "machine has another cgroup_version");
        doc.insert("cgroups", std::move(cgroups));
    }
    if (!machine.empty())
        doc.insert("machine", std::move(machine));

    std::map<std::string, bool> absolute;
    std::set<std::string> names;
    for (const rt_task& t : tasks) {
        names.insert(t.name);
        for (const rt_phase& p : t.phases)
            for (const rt_event& e : p.events)
                if (e.kind == "timer")
                    absolute[timer_key(t, e.name)] |= e.absolute.value_or(false);
    }
    toml::array entries;
    for (const rt_task& t : tasks)
        entries.push_back(task_table(t, names, absolute, log));
    doc.insert("tasks", std::move(entries));
    if (!log.list().empty())
        throw scenario_error(origin, log.list());
    return doc;
}

// The [machine] table of a scenario's TOML text, or none when it has none (the defaults).
inline std::optional<toml::table> machine_of(std::string_view toml_text,
                                             const std::string& origin) {
    const toml::table root = parse_toml(toml_text, origin);
    const toml::node* m = root.get("machine");
    if (m == nullptr)
        return std::nullopt;
    if (!m->is_table())
        throw scenario_error("machine", "expected a table", origin);
    return *m->as_table();
}

} // namespace libsched
