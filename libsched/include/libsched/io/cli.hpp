#pragma once
// The libsched command line: run, replay, check, theory, features, weights, topology, host,
// rt-app.
// run_cli() is the whole program without argv[0]; tools/cli/main.cpp and the Python console
// script both call it.
// Exit status: 0 success, 1 a scenario or file error or a replay outside its tolerance, 2 a
// usage error.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <libsched/io/host_topology.hpp>
#include <libsched/io/host_wakeup.hpp>
#include <libsched/io/interrupt.hpp>
#include <libsched/io/latency_report.hpp>
#include <libsched/io/perfetto_trace.hpp>
#include <libsched/io/report.hpp>
#include <libsched/io/result_json.hpp>
#include <libsched/io/rt_app.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/io/theory_report.hpp>
#include <libsched/io/timehist.hpp>
#include <libsched/io/why_report.hpp>
#include <libsched/model/estimate.hpp>
#include <libsched/model/simulate.hpp>
#include <libsched/scenario/validate.hpp>
#include <libsched/sched/features.hpp>
#include <libsched/sched/kernel_version.hpp>
#include <libsched/sched/stable_fix.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <libsched/sched/weight.hpp>
#include <libsched/version.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace libsched {
namespace detail {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1; // a scenario or file error, a replay's miss
inline constexpr int exit_usage = 2;
inline constexpr int exit_interrupted = 128 + SIGINT; // as a shell reports a Ctrl-C

// Said on err when Ctrl-C stopped the run of `path`, with the files left unrun.
inline void report_interrupt(std::ostream& err, const std::string& path, std::size_t not_run) {
    err << "libsched: " << path << ": interrupted; the results are of the repetitions that "
        << "finished";
    if (not_run > 0)
        err << "; " << not_run << (not_run == 1 ? " file" : " files") << " not run";
    err << '\n';
}

inline constexpr const char* default_replay_dir = "examples/replays";

// Every error, one a line: "libsched: FILE: FIELD: REASON".
inline void print_errors(std::ostream& err, const scenario_error& e) {
    for (const scenario_error::entry& entry : e.errors())
        err << "libsched: " << e.message(entry) << '\n';
}

// Loads and validates one scenario file; errors and warnings go to err.
inline std::optional<scenario> load_reporting(const std::string& path, std::ostream& err) {
    try {
        scenario sc = load_scenario(path);
        for (const std::string& w : validate(sc))
            err << "libsched: " << path << ": warning: " << w << '\n';
        return sc;
    } catch (const scenario_error& e) {
        print_errors(err, e);
        // The format is told by the command, never guessed: a .json file is no scenario.
        if (std::filesystem::path(path).extension() == ".json")
            err << "libsched: " << path << ": scenarios are TOML; an rt-app file converts with "
                << "`libsched rt-app " << path << " -o SCENARIO.toml`\n";
        return std::nullopt;
    }
}

// Once a run has taken over a second, a line on err at each new repetition and every few
// seconds within one, so long runs show life and how far they are.
inline std::function<void(const progress_info&)> progress_lines(std::ostream& err,
                                                                std::string name) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    return [&err, name = std::move(name), start, shown = -1,
            last = start](const progress_info& p) mutable {
        const auto now = clock::now();
        if (now - start < std::chrono::seconds{1})
            return;
        if (p.repetition == shown && now - last < std::chrono::seconds{5})
            return;
        shown = p.repetition;
        last = now;
        err << "libsched: " << name << ": repetition " << p.repetition + 1 << " of "
            << p.repetitions << ", " << format_duration(p.now) << " of " << format_duration(p.end)
            << " simulated" << std::endl; // seen at once through a redirected stream too
    };
}

// What running the model on the scenario of `path` gives, or nothing with its error on err.
template <class Run>
auto model_reporting(const std::string& path, std::ostream& err, Run run)
    -> std::optional<decltype(run())> {
    try {
        return run();
    } catch (const scenario_error& e) {
        print_errors(err, e.origin().empty() ? e.in(path) : e);
        return std::nullopt;
    } catch (const invariant_violation& e) {
        err << "libsched: " << path << ": " << e.what() << '\n';
        return std::nullopt;
    }
}

inline std::optional<run_result> simulate_reporting(const scenario& sc, const std::string& path,
                                                    const run_options& options, std::ostream& err) {
    return model_reporting(path, err, [&] { return simulate(sc, options); });
}

struct run_command {
    std::vector<std::string> files;
    bool json = false;
    bool quiet = false;
    std::optional<int> repetitions;
    std::optional<std::uint64_t> seed;
    std::string trace;     // CSV file for the scheduling events of every repetition
    std::string perfetto;  // Chrome / Perfetto JSON file of every repetition's schedule
    bool latency = false;  // the perf sched latency table after the report
    bool timehist = false; // the perf sched timehist timeline before the report
    bool why = false;      // preemptions and migrations by reason after the report
    std::string kernel;    // overrides machine.kernel
    std::optional<int> hz; // overrides machine.hz
    std::optional<preempt_mode> preempt; // overrides machine.preempt
    bool check_invariants = false;
};

// One CSV line per scheduling event, the kernel's tracepoint names in the event column.
inline trace_sink csv_trace(std::ostream& csv) {
    csv << "repetition,time_ns,cpu,event,pid,comm,prev_state,next_pid,next_comm,dest_cpu,"
           "reason\n";
    return [&csv](const trace_event& e) {
        csv << e.repetition << ',' << e.time << ',' << e.cpu << ',' << trace_name(e.kind) << ','
            << e.pid << ',' << e.comm << ',';
        if (e.kind == trace_kind::sched_switch)
            csv << e.prev_state << ',' << e.next_pid << ',' << e.next_comm;
        else
            csv << ",,";
        csv << ',';
        if (e.kind == trace_kind::sched_migrate_task)
            csv << e.dest_cpu;
        csv << ',' << e.reason << '\n';
    };
}

// Both sinks get every event.
inline trace_sink both_sinks(trace_sink a, trace_sink b) {
    if (!a || !b)
        return a ? a : b;
    return [a = std::move(a), b = std::move(b)](const trace_event& e) {
        a(e);
        b(e);
    };
}

// An option that needs one scenario or a text report, named in the usage error; or nothing.
inline std::optional<std::string> run_usage_error(const run_command& cmd) {
    const std::pair<bool, const char*> one_file[] = {{!cmd.trace.empty(), "--trace"},
                                                     {!cmd.perfetto.empty(), "--perfetto"},
                                                     {cmd.timehist, "--timehist"}};
    for (const auto& [given, name] : one_file)
        if (given && cmd.files.size() > 1)
            return std::string{name} + " takes one scenario file";
    const std::pair<bool, const char*> text_only[] = {
        {cmd.latency, "--latency"}, {cmd.timehist, "--timehist"}, {cmd.why, "--why"}};
    for (const auto& [given, name] : text_only)
        if (given && cmd.json)
            return std::string{name} + " prints text: not with --json";
    return std::nullopt;
}

inline int cmd_run(const run_command& cmd, std::ostream& out, std::ostream& err) {
    if (const auto e = run_usage_error(cmd)) {
        err << "libsched: run: " << *e << '\n';
        return exit_usage;
    }
    std::optional<kernel_version> kernel;
    if (!cmd.kernel.empty() && !(kernel = kernel_version::parse(cmd.kernel))) {
        err << "libsched: run: --kernel: " << not_a_release(cmd.kernel) << '\n';
        return exit_usage;
    }
    int status = exit_ok;
    // One file gives one JSON object, several an array of them, each written as it finishes.
    const bool json_array = cmd.json && cmd.files.size() > 1;
    if (json_array)
        out << '[';
    bool first = true;
    const interrupt_guard ctrl_c;
    for (std::size_t f = 0; f < cmd.files.size(); ++f) {
        const std::string& path = cmd.files[f];
        auto sc = load_reporting(path, err);
        if (!sc) {
            status = exit_failure;
            continue;
        }
        // Overrides are checked with the rest of the scenario when it runs.
        if (kernel)
            sc->machine.kernel = *kernel;
        if (cmd.hz)
            sc->machine.hz = *cmd.hz;
        if (cmd.preempt)
            sc->machine.preempt = *cmd.preempt;
        run_options options;
        options.repetitions = cmd.repetitions;
        options.seed = cmd.seed;
        if (cmd.check_invariants)
            options.check_invariants = true;
        if (!cmd.quiet)
            options.on_progress = progress_lines(err, sc->name);
        options.interrupt = ctrl_c.flag();
        std::ofstream csv;
        if (!cmd.trace.empty()) {
            csv.open(cmd.trace);
            if (!csv) {
                err << "libsched: " << cmd.trace << ": cannot write the trace\n";
                return exit_failure;
            }
            options.trace = csv_trace(csv);
        }
        std::ofstream perfetto_file;
        std::optional<perfetto_trace> perfetto;
        if (!cmd.perfetto.empty()) {
            perfetto_file.open(cmd.perfetto);
            if (!perfetto_file) {
                err << "libsched: " << cmd.perfetto << ": cannot write the trace\n";
                return exit_failure;
            }
            perfetto.emplace(perfetto_file, *sc);
            options.trace = both_sinks(std::move(options.trace), perfetto->sink());
        }
        std::optional<timehist_trace> timehist;
        if (cmd.timehist) {
            timehist.emplace(out, sc->machine.cpus);
            options.trace = both_sinks(std::move(options.trace), timehist->sink());
        }
        const auto result = simulate_reporting(*sc, path, options, err);
        if (perfetto)
            perfetto->finish(result && result->interrupted ? result->interrupted->at : sc->length);
        if (!result) {
            status = exit_failure;
            continue;
        }
        if (cmd.json) {
            if (json_array)
                out << (first ? "\n  " : ",\n  ");
            write_json(out, *result, *sc, 2, json_array ? 1 : 0);
            if (!json_array)
                out << '\n';
        } else {
            if (!first || cmd.timehist)
                out << '\n';
            print_report(out, *result, *sc);
            if (cmd.latency) {
                out << '\n';
                print_latency_report(out, *result, *sc);
            }
            if (cmd.why) {
                out << '\n';
                print_why_report(out, *result, *sc);
            }
        }
        first = false;
        if (result->interrupted) {
            report_interrupt(err, path, cmd.files.size() - f - 1);
            status = exit_interrupted;
            break;
        }
    }
    if (json_array)
        out << (first ? "]\n" : "\n]\n");
    return status;
}

// The .toml files a replay path stands for: the file itself, or a folder's files, sorted.
inline std::vector<std::string> replay_files(const std::string& path, std::ostream& err) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        if (!fs::exists(path, ec))
            err << "libsched: " << path << ": no such file or directory"
                << (path == default_replay_dir ? " (run from the source tree or name the files)"
                                               : "")
                << '\n';
        return fs::exists(path, ec) ? std::vector<std::string>{path} : std::vector<std::string>{};
    }
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(path, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".toml")
            files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty())
        err << "libsched: " << path << ": no .toml files" << '\n';
    return files;
}

using replay_comparisons = std::vector<std::pair<std::string, std::vector<stats::comparison>>>;

// One line on err for each prediction that does not agree with its measurement, or that
// cannot be judged; the number of them.
inline int report_misses(const replay_comparisons& replays, std::ostream& err) {
    int misses = 0;
    for (const auto& [name, comparisons] : replays) {
        for (const stats::comparison& c : comparisons) {
            const std::string quantity{stats::quantity_name(c.quantity)};
            const bool within = c.within.value_or(false);
            if (!c.judged || (within && !c.known_gap))
                continue;
            if (c.known_gap && c.within && !within) {
                err << "libsched: " << name << ": " << quantity << " " << c.entry << ": error "
                    << fixed(*c.error, 2, true) << " " << stats::error_unit(c.quantity)
                    << " outside " << tolerance_text(c)
                    << ": a known gap (measured.known_gaps), not counted\n";
                continue;
            }
            ++misses;
            err << "libsched: " << name << ": " << quantity << " " << c.entry << ": ";
            if (c.known_gap && within) {
                err << "within its tolerance but marked a known gap: drop it from "
                       "measured.known_gaps\n";
                continue;
            }
            if (!c.tolerance)
                err << "no tolerance stated (measured.tolerance." << quantity << ")\n";
            else if (!c.within)
                err << "the run gave no prediction\n";
            else
                err << "error " << fixed(*c.error, 2, true) << " " << stats::error_unit(c.quantity)
                    << " is outside the tolerance of " << tolerance_text(c) << "\n";
        }
    }
    return misses;
}

inline int cmd_replay(std::vector<std::string> paths, std::ostream& out, std::ostream& err) {
    if (paths.empty())
        paths.push_back(default_replay_dir);
    int status = exit_ok;
    std::vector<std::string> files;
    for (const std::string& p : paths) {
        const auto found = replay_files(p, err);
        if (found.empty())
            status = exit_failure;
        files.insert(files.end(), found.begin(), found.end());
    }
    replay_comparisons summary;
    std::vector<group_row> groups;
    const interrupt_guard ctrl_c;
    for (std::size_t f = 0; f < files.size(); ++f) {
        const std::string& path = files[f];
        const auto sc = load_reporting(path, err);
        if (!sc) {
            status = exit_failure;
            continue;
        }
        run_options options;
        options.on_progress = progress_lines(err, sc->name);
        options.interrupt = ctrl_c.flag();
        const auto result = simulate_reporting(*sc, path, options, err);
        if (!result) {
            status = exit_failure;
            continue;
        }
        // A replay cut short is not judged: the summary has the ones that finished.
        if (result->interrupted) {
            report_interrupt(err, path, files.size() - f - 1);
            status = exit_interrupted;
            break;
        }
        if (!summary.empty())
            out << '\n';
        print_report(out, *result, *sc);
        summary.emplace_back(sc->name, stats::compare_replay(*result, *sc));
        if (const auto& g = sc->measured.groups)
            groups.push_back({sc->name, stats::summarize_groups(*result, *sc, *g), *g});
    }
    if (groups.size() > 1) {
        out << "\ntwo-group replays (theory and claimed: errors against the measured ratio)\n";
        print_group_table(out, groups);
    }
    if (!summary.empty()) {
        out << "\nreplay summary (error: share in percentage points, ratio and jratio in "
               "percent)\n";
        print_replay_summary(out, summary);
    }
    if (const int misses = report_misses(summary, err); misses > 0) {
        err << "libsched: replay: " << misses << (misses == 1 ? " prediction" : " predictions")
            << " not within the measurement's tolerance\n";
        if (status != exit_interrupted)
            status = exit_failure;
    }
    return status;
}

// Bytes as "3.2 MiB".
inline std::string mebibytes(double bytes) {
    const double mib = bytes / (1024.0 * 1024.0);
    return (mib < 0.1 ? std::string{"< 0.1"} : fixed(mib, 1)) + " MiB";
}

// An estimate's figure: a whole number below 10,000, else two significant digits ("2.4e9").
inline std::string about(double v) {
    std::ostringstream text;
    if (v < 1e4) {
        text << std::llround(v);
        return text.str();
    }
    const int exponent = static_cast<int>(std::floor(std::log10(v)));
    text << fixed(v / std::pow(10.0, exponent), 1) << 'e' << exponent;
    return text.str();
}

inline void print_estimate(std::ostream& out, const run_estimate& e) {
    const bool whole = e.whole;
    out << "  events: "
        << (whole ? std::to_string(e.pilot_events) : "about " + about(e.events_per_repetition))
        << " per repetition";
    if (e.repetitions > 1)
        out << ", " << about(e.events()) << " for " << e.repetitions << " repetitions";
    if (whole)
        out << " (the pilot ran the whole repetition)\n";
    else
        out << " (extrapolated from " << e.pilot_events << " in the first "
            << format_duration(e.pilot_length) << ")\n";
    out << "  time: "
        << (e.wall_seconds < 1 ? std::string{"under 1"} : "about " + about(e.wall_seconds))
        << " s on this machine, at the pilot's speed\n";
    if (e.model_bytes)
        out << "  memory: model " << mebibytes(static_cast<double>(*e.model_bytes))
            << " while a repetition runs (measured; it does not grow with the length)\n"
            << "          results ";
    else
        out << "  memory: results ";
    out << mebibytes(static_cast<double>(e.result_bytes * e.repetitions))
        << " kept, plus each task's latency samples (bounded, not by the length)\n";
}

inline int cmd_check(const std::vector<std::string>& files, bool estimate, std::ostream& out,
                     std::ostream& err) {
    int status = exit_ok;
    for (const std::string& path : files) {
        const auto sc = load_reporting(path, err);
        if (!sc) {
            status = exit_failure;
            continue;
        }
        if (!estimate) {
            out << path << ": ok\n";
            continue;
        }
        if (const auto e = model_reporting(path, err, [&] { return estimate_run(*sc); })) {
            out << path << ": ok\n";
            print_estimate(out, *e);
        } else {
            status = exit_failure;
        }
    }
    return status;
}

// The fluid theory of each file: a table each, or JSON (an array for several files).
inline int cmd_theory(const std::vector<std::string>& files, bool json, std::ostream& out,
                      std::ostream& err) {
    int status = exit_ok;
    const bool json_array = json && files.size() > 1;
    nlohmann::json all = nlohmann::json::array();
    bool first = true;
    for (const std::string& path : files) {
        const auto sc = load_reporting(path, err);
        if (!sc) {
            status = exit_failure;
            continue;
        }
        const auto r = model_reporting(path, err, [&] { return stats::theory_shares(*sc); });
        if (!r) {
            status = exit_failure;
            continue;
        }
        if (json_array) {
            all.push_back(theory_json(*r, *sc));
        } else if (json) {
            out << theory_json(*r, *sc).dump(2) << '\n';
        } else {
            if (!first)
                out << '\n';
            print_theory(out, *r, *sc);
        }
        first = false;
    }
    if (json_array)
        out << all.dump(2) << '\n';
    return status;
}

inline int cmd_features(const std::optional<std::string>& kernel, std::ostream& out,
                        std::ostream& err) {
    if (!kernel) {
        text_table table({{"feature", align::left},
                          {"kernel name", align::left},
                          {"releases", align::left},
                          {"default", align::left}});
        for (const feature_info& fi : feature_table)
            table.add_row({std::string{fi.name}, std::string{fi.kernel_name}, feature_releases(fi),
                           feature_default_text(fi)});
        table.print(out);
        return exit_ok;
    }
    const auto v = kernel_version::parse(*kernel);
    if (!v) {
        err << "libsched: --kernel: " << not_a_release(*kernel) << '\n';
        return exit_usage;
    }
    if (const auto e = unmodelled_release(*v)) {
        err << "libsched: --kernel: " << *e << '\n';
        return exit_usage;
    }
    out << "scheduler features of kernel " << v->str() << (v->is_eevdf() ? " (EEVDF)" : " (CFS)")
        << '\n';
    text_table table(
        {{"feature", align::left}, {"kernel name", align::left}, {"default", align::left}});
    std::string absent;
    for (std::size_t i = 0; i < feature_count; ++i) {
        const feature_info& fi = feature_table[i];
        const auto f = static_cast<feature>(i);
        if (feature_exists(f, *v))
            table.add_row({std::string{fi.name}, std::string{fi.kernel_name},
                           feature_default(f, *v) ? "on" : "off"});
        else
            absent += (absent.empty() ? "" : ", ") + std::string{fi.name};
    }
    table.print(out);
    if (!absent.empty())
        out << "not in " << v->str() << ": " << absent << '\n';
    // The rules that stable updates of this series changed, as this patch level has them.
    for (const stable_fix* f : stable_fixes)
        if (const auto b = series_backport(*v, *f))
            out << (carries(*v, *f) ? "has " : "lacks ") << f->commit << ": " << f->summary
                << " (from " << b->str() << ")\n";
    return exit_ok;
}

inline int cmd_weights(std::ostream& out) {
    out << "nice -> load weight (sched_prio_to_weight, sched_prio_to_wmult); the share is what "
           "a task gets of one CPU against one nice-0 task\n";
    text_table table({{"nice"}, {"weight"}, {"wmult"}, {"vs nice 0"}, {"share vs nice 0 %"}});
    for (int nice = min_nice; nice <= max_nice; ++nice) {
        const auto i = static_cast<std::size_t>(nice - min_nice);
        const double w = sched_prio_to_weight[i];
        const double w0 = nice_to_weight(0);
        table.add_row({std::to_string(nice), std::to_string(sched_prio_to_weight[i]),
                       std::to_string(sched_prio_to_wmult[i]), fixed(w / w0, 3),
                       fixed(100 * w / (w + w0), 2)});
    }
    table.print(out);
    return exit_ok;
}

// "N CPUs, P packages, C cores, L LLCs, N nodes" of a topology.
inline std::string topology_counts(const cpu_topology& t) {
    std::set<int> packages, cores, llcs;
    for (const cpu_topology::cpu_place& p : t.cpus) {
        packages.insert(p.package);
        cores.insert(p.core);
        llcs.insert(p.llc);
    }
    const auto count = [](std::size_t n, const char* noun) {
        return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
    };
    return count(t.cpus.size(), "CPU") + ", " + count(packages.size(), "package") + ", " +
           count(cores.size(), "core") + ", " + count(llcs.size(), "LLC") + ", " +
           count(t.distance.size(), "node");
}

inline void print_topology(std::ostream& out, const cpu_topology& t) {
    text_table cpus({{"cpu"}, {"package"}, {"core"}, {"thread"}, {"llc"}, {"node"}});
    for (int cpu = 0; cpu < t.nr_cpus(); ++cpu) {
        const cpu_topology::cpu_place& p = t.of(cpu);
        cpus.add_row({std::to_string(cpu), std::to_string(p.package), std::to_string(p.core),
                      std::to_string(p.thread), std::to_string(p.llc), std::to_string(p.node)});
    }
    cpus.print(out);
    out << "\nnode distances\n";
    std::vector<column> columns{{"node"}};
    for (int n = 0; n < t.nr_nodes(); ++n)
        columns.push_back({std::to_string(n)});
    text_table distances(std::move(columns));
    for (int from = 0; from < t.nr_nodes(); ++from) {
        std::vector<std::string> row{std::to_string(from)};
        for (int to = 0; to < t.nr_nodes(); ++to)
            row.push_back(std::to_string(t.node_distance(from, to)));
        distances.add_row(std::move(row));
    }
    distances.print(out);
}

// No name: the presets. A preset's name or "host" (read from sysfs): its CPUs and distances.
inline int cmd_topology(const std::optional<std::string>& name, const std::string& sysfs,
                        std::ostream& out, std::ostream& err) {
    if (!name) {
        out << "topology presets (machine.topology = \"NAME\"; \"host\" reads this machine)\n";
        text_table table({{"name", align::left}, {"cpus"}, {"description", align::left}});
        for (const topology_preset& p : topology_presets)
            table.add_row({std::string{p.name}, std::to_string(p.shape.nr_cpus()),
                           std::string{p.description}});
        table.print(out);
        return exit_ok;
    }
    std::optional<cpu_topology> t;
    if (*name == "host") {
        try {
            t = read_host_topology(sysfs);
        } catch (const host_topology_error& e) {
            err << "libsched: topology: " << e.what() << '\n';
            return exit_failure;
        }
        out << "host: read from " << sysfs << '\n';
    } else if ((t = preset_topology(*name))) {
        out << *name << ": " << find_topology_preset(*name)->description << '\n';
    } else {
        err << "libsched: topology: " << not_a_topology_preset(*name) << '\n';
        return exit_usage;
    }
    out << topology_counts(*t) << "\n\n";
    print_topology(out, *t);
    return exit_ok;
}

// This machine's wakeup costs as [machine] lines of a scenario, with where each came from.
inline int cmd_host(const std::string& proc, const std::string& sysfs, std::ostream& out,
                    std::ostream& err) {
    host_wakeup w;
    try {
        w = read_host_wakeup(proc, sysfs);
    } catch (const host_topology_error& e) {
        err << "libsched: host: " << e.what() << '\n';
        return exit_failure;
    }
    out << "# this machine's wakeup costs, read from " << proc << " and " << sysfs << '\n'
        << "[machine]\n";
    if (w.timer_slack)
        out << "timer_slack = \"" << format_duration(*w.timer_slack)
            << "\"  # /proc/self/timerslack_ns\n";
    else
        out << "# timer_slack: no timerslack_ns file (before 4.6); the default is 50us\n";
    if (w.idle_exit_latency)
        out << "idle_exit_latency = \"" << format_duration(*w.idle_exit_latency)
            << "\"  # the deepest enabled idle state: " << w.idle_exit_state << '\n';
    else
        out << "# idle_exit_latency: no cpuidle states (no cpuidle driver)\n";
    out << "# ipi_latency, tick_latency, sleep_cost: not readable from the host "
           "(tools/host-measure: ipi_latency.py, tick_latency.py, sleep_cost.py measure them)\n";
    if (!w.states.empty()) {
        out << "\n# cpuidle driver " << (w.cpuidle_driver.empty() ? "?" : w.cpuidle_driver)
            << ", the first CPU's states: exit latency, target residency\n";
        for (const host_idle_state& s : w.states)
            out << "#   " << s.name << ": " << format_duration(s.exit_latency) << ", "
                << format_duration(s.target_residency) << (s.disabled ? " (disabled)" : "") << '\n';
    }
    return exit_ok;
}

struct rt_app_command {
    std::string file;    // the rt-app JSON file
    std::string machine; // a scenario whose [machine] the result takes
    std::string kernel;  // machine.kernel
    std::string output;  // where the scenario goes; stdout if empty
};

// The scenario of an rt-app file, under a comment naming the file.
inline int cmd_rt_app(const rt_app_command& cmd, std::ostream& out, std::ostream& err) {
    if (!cmd.kernel.empty() && !kernel_version::parse(cmd.kernel)) {
        err << "libsched: rt-app: --kernel: " << not_a_release(cmd.kernel) << '\n';
        return exit_usage;
    }
    std::string text;
    try {
        rt_app_options options;
        if (!cmd.machine.empty())
            options.machine = machine_of(read_scenario_file(cmd.machine), cmd.machine);
        if (!cmd.kernel.empty())
            options.kernel = cmd.kernel;
        const std::string name = std::filesystem::path(cmd.file).filename().string();
        text = "# The rt-app workload " + name + ", converted by libsched rt-app\n" +
               toml_text(
                   rt_app_to_toml(read_input_file(cmd.file, "an rt-app file"), cmd.file, options));
    } catch (const scenario_error& e) {
        print_errors(err, e);
        return exit_failure;
    }
    if (cmd.output.empty()) {
        out << text;
        return exit_ok;
    }
    std::ofstream file(cmd.output, std::ios::binary);
    if (!(file << text) || !file.flush()) {
        err << "libsched: " << cmd.output << ": cannot write the scenario\n";
        return exit_failure;
    }
    return exit_ok;
}

} // namespace detail

inline int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    using namespace detail;
    try {
        CLI::App app{"Simulates the Linux fair scheduler (CFS and EEVDF) on scenario files.",
                     "libsched"};
        app.set_version_flag("--version", std::string{"libsched "} + LIBSCHED_VERSION_STRING);
        app.footer("The Python package's libsched command adds compare (theory, simulated and "
                   "measured side by side), measure (run a scenario on this host), sweep (a "
                   "scenario over a grid of parameter values) and perf-import (a perf sched "
                   "trace as a scenario).");
        app.require_subcommand(1);

        run_command run;
        CLI::App* run_app = app.add_subcommand("run", "Run scenario files and print the results");
        run_app->add_option("SCENARIO", run.files, "Scenario files (TOML)")->required();
        run_app->add_flag("--json", run.json, "Print the results as JSON");
        run_app->add_option("--reps", run.repetitions, "Repetitions (overrides the file)")
            ->check(CLI::Range(1, max_repetitions));
        run_app->add_option("--seed", run.seed, "Seed of the first repetition");
        run_app->add_flag("-q,--quiet", run.quiet, "No progress lines");
        run_app->add_option("--kernel", run.kernel,
                            "Run as this kernel release instead of the file's (e.g. 5.15, 6.12)");
        run_app->add_option("--hz", run.hz, "Run at this CONFIG_HZ instead of the file's");
        std::map<std::string, preempt_mode> preempt_modes;
        for (const auto& [name, mode] : preempt_mode_names)
            preempt_modes.emplace(name, mode);
        run_app
            ->add_option("--preempt", run.preempt,
                         "Run under this preemption model instead of the file's (none, "
                         "voluntary, full, lazy: 6.13+)")
            ->transform(CLI::CheckedTransformer(preempt_modes));
        run_app->add_option("--trace", run.trace,
                            "Write every repetition's scheduling events to this CSV file "
                            "(one scenario only)");
        run_app->add_option("--perfetto", run.perfetto,
                            "Write every repetition's schedule to this JSON file for the Perfetto "
                            "UI or chrome://tracing (one scenario only)");
        run_app->add_flag("--latency", run.latency,
                          "After the report, each repetition's scheduling delays per task, as "
                          "perf sched latency prints them");
        run_app->add_flag("--timehist", run.timehist,
                          "Before the report, a line per switch as perf sched timehist prints "
                          "them (one scenario only)");
        run_app->add_flag("--why", run.why,
                          "After the report, each repetition's preemptions and migrations per "
                          "task, by the kernel function behind them");
        run_app->add_flag("--check-invariants", run.check_invariants,
                          "Check the model's invariants after every event (slower); a "
                          "violation stops the run with the state that broke it");

        std::vector<std::string> replay_paths;
        CLI::App* replay_app = app.add_subcommand(
            "replay", "Run replay scenarios and compare them with their measurements");
        replay_app->add_option("PATH", replay_paths,
                               std::string{"Replay files or folders (default: "} +
                                   default_replay_dir + ")");

        std::vector<std::string> check_files;
        bool no_estimate = false;
        CLI::App* check_app = app.add_subcommand(
            "check", "Validate scenario files and estimate what running them costs");
        check_app->add_option("SCENARIO", check_files, "Scenario files (TOML)")->required();
        check_app->add_flag("--no-estimate", no_estimate,
                            "Only validate: no pilot run for the events and memory estimate");

        std::vector<std::string> theory_files;
        bool theory_as_json = false;
        CLI::App* theory_app = app.add_subcommand(
            "theory", "Print the fluid (GPS) share of a CPU each task and group would get");
        theory_app->add_option("SCENARIO", theory_files, "Scenario files (TOML)")->required();
        theory_app->add_flag("--json", theory_as_json, "Print the shares as JSON");

        std::optional<std::string> kernel;
        CLI::App* features_app =
            app.add_subcommand("features", "List the scheduler features and their defaults");
        features_app->add_option("--kernel", kernel, "Only the features of this release");

        CLI::App* weights_app = app.add_subcommand("weights", "Print the nice -> weight table");

        std::optional<std::string> topology;
        std::string sysfs = "/sys";
        CLI::App* topology_app = app.add_subcommand(
            "topology", "List the topology presets, or print one's CPUs and node distances");
        topology_app->add_option("NAME", topology, "A preset, or host for this machine");
        topology_app->add_option("--sysfs", sysfs,
                                 "Where host reads sysfs from (default /sys; a copy works too)");

        std::string proc = "/proc";
        CLI::App* host_app = app.add_subcommand(
            "host", "Print this machine's timer slack and idle exit latency as [machine] lines");
        host_app->add_option("--proc", proc, "Where to read procfs from (default /proc)");
        host_app->add_option("--sysfs", sysfs, "Where to read sysfs from (default /sys)");

        rt_app_command rt_app;
        CLI::App* rt_app_app = app.add_subcommand(
            "rt-app", "Convert an rt-app workload file (JSON) to a scenario (docs/rt-app.md)");
        rt_app_app->add_option("FILE", rt_app.file, "The rt-app file")->required();
        rt_app_app->add_option("--machine", rt_app.machine,
                               "A scenario file whose [machine] the scenario takes (default: "
                               "the default machine)");
        rt_app_app->add_option("--kernel", rt_app.kernel,
                               "The kernel release to model (e.g. 5.15, 6.12)");
        rt_app_app->add_option("-o,--output", rt_app.output,
                               "Write the scenario to this file instead of printing it");

        if (args.empty()) {
            err << app.help();
            return exit_usage;
        }
        // CLI11 takes a vector of arguments last-first.
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        try {
            app.parse(reversed);
        } catch (const CLI::ParseError& e) {
            if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
                return app.exit(e, out, err); // --help, --version
            err << "libsched: " << e.what() << "\nRun 'libsched --help' for usage.\n";
            return exit_usage;
        }

        if (run_app->parsed())
            return cmd_run(run, out, err);
        if (replay_app->parsed())
            return cmd_replay(replay_paths, out, err);
        if (check_app->parsed())
            return cmd_check(check_files, !no_estimate, out, err);
        if (theory_app->parsed())
            return cmd_theory(theory_files, theory_as_json, out, err);
        if (features_app->parsed())
            return cmd_features(kernel, out, err);
        if (weights_app->parsed())
            return cmd_weights(out);
        if (topology_app->parsed())
            return cmd_topology(topology, sysfs, out, err);
        if (host_app->parsed())
            return cmd_host(proc, sysfs, out, err);
        if (rt_app_app->parsed())
            return cmd_rt_app(rt_app, out, err);
        return exit_usage;
    } catch (const std::exception& e) {
        err << "libsched: error: " << e.what() << '\n';
        return exit_failure;
    } catch (...) {
        err << "libsched: error: unknown exception\n";
        return exit_failure;
    }
}

} // namespace libsched
