#pragma once
// The topology of the machine this runs on, read from sysfs as lscpu and numactl read it:
//   devices/system/cpu/online                       the online CPUs
//   devices/system/cpu/cpuN/topology/               physical_package_id, core_cpus_list
//                                                   (before 5.7: thread_siblings_list), core_id
//   devices/system/cpu/cpuN/cache/indexM/           level, type, shared_cpu_list
//   devices/system/node/online, nodeN/cpulist, nodeN/distance
// Online CPUs are numbered 0, 1, ... in the order of their kernel numbers (the model has
// no offline CPUs). Cores, LLCs, packages and nodes are numbered densely in the order of
// their lowest CPU, whatever the kernel's ids (core_id is per package and often sparse).
// Where a file is missing, read_host_topology() falls back:
//   no online file          every cpuN directory is online
//   no physical_package_id  package 0 (also for -1, "unknown")
//   no sibling lists        the CPUs of the same package and core_id are siblings; without
//                           core_id either, every CPU is its own core
//   no cache directories    one LLC per package
//   no node directory       one node (a kernel without CONFIG_NUMA)
//   no distance file        LOCAL_DISTANCE to itself, REMOTE_DISTANCE to the others
// The highest-level data or unified cache is the LLC (index3 on most x86, index2 where
// there is no L3), split by node where it spans several (as x86's match_llc() does under
// sub-NUMA clustering). Nodes without online CPUs (memory only) are left out. A file that
// exists but cannot be read or parsed is a host_topology_error naming it.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <libsched/sched/topology.hpp>
#include <libsched/sched/topology_check.hpp>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace libsched {

class host_topology_error : public std::runtime_error {
public:
    host_topology_error(std::filesystem::path file, const std::string& reason)
        : std::runtime_error(file.string() + ": " + reason), file_(std::move(file)) {}
    const std::filesystem::path& file() const noexcept { return file_; }

private:
    std::filesystem::path file_;
};

namespace detail {

// The file's text without trailing white space; nothing if it does not exist.
inline std::optional<std::string> read_sysfs_file(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    if (in)
        text << in.rdbuf();
    if (!in || in.bad())
        throw host_topology_error(file, "cannot be read");
    std::string s = text.str();
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    return s;
}

inline std::optional<int> parse_sysfs_int(std::string_view text) {
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

inline std::optional<int> read_sysfs_int(const std::filesystem::path& file) {
    const auto text = read_sysfs_file(file);
    if (!text)
        return std::nullopt;
    if (const auto v = parse_sysfs_int(*text))
        return v;
    throw host_topology_error(file, "\"" + *text + "\" is not an integer");
}

// A CPU or node list as the kernel prints one (bitmap_print_to_pagebuf): "0-3,8,10-11", or
// nothing for none. Sorted, without duplicates.
inline std::vector<int> parse_cpu_list(const std::string& text, const std::filesystem::path& file) {
    std::vector<int> cpus;
    if (text.empty())
        return cpus;
    std::string_view rest = text;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        const std::size_t dash = item.find('-');
        const auto first = parse_sysfs_int(item.substr(0, dash));
        const auto last =
            dash == std::string_view::npos ? first : parse_sysfs_int(item.substr(dash + 1));
        if (!first || !last || *first < 0 || *last < *first)
            throw host_topology_error(file, "\"" + text + "\" is not a CPU list such as 0-3,8");
        for (int c = *first; c <= *last; ++c)
            cpus.push_back(c);
        if (comma == std::string_view::npos)
            break;
        rest.remove_prefix(comma + 1);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

inline std::optional<std::vector<int>> read_cpu_list(const std::filesystem::path& file) {
    const auto text = read_sysfs_file(file);
    if (!text)
        return std::nullopt;
    return parse_cpu_list(*text, file);
}

// The numbers N of the entries "<prefix>N" in dir, sorted.
inline std::vector<int> numbered_entries(const std::filesystem::path& dir,
                                         std::string_view prefix) {
    std::vector<int> numbers;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0)
            if (const auto n = parse_sysfs_int(std::string_view{name}.substr(prefix.size())))
                numbers.push_back(*n);
    }
    std::sort(numbers.begin(), numbers.end());
    return numbers;
}

// The online CPUs' view of the machine in kernel numbers, and each CPU's index.
struct host_cpus {
    std::vector<int> online;
    std::map<int, int> index; // kernel CPU number -> position in online

    // The online ones of kernel CPU numbers, as indices.
    std::vector<int> indices(const std::vector<int>& kernel_cpus) const {
        std::vector<int> out;
        for (const int c : kernel_cpus)
            if (const auto it = index.find(c); it != index.end())
                out.push_back(it->second);
        return out;
    }
};

// Each CPU's group (its SMT siblings, or the CPUs sharing its LLC) as indices; every member
// must name the same group, or the file (source[i]) is inconsistent. Groups are numbered in
// the order of their lowest CPU.
inline std::vector<int> number_groups(const std::vector<std::vector<int>>& group_of,
                                      const std::vector<std::filesystem::path>& source) {
    std::vector<int> number(group_of.size(), -1);
    int next = 0;
    for (std::size_t i = 0; i < group_of.size(); ++i) {
        const std::vector<int>& g = group_of[i];
        if (std::find(g.begin(), g.end(), static_cast<int>(i)) == g.end())
            throw host_topology_error(source[i], "does not list the CPU itself");
        for (const int m : g)
            if (group_of[static_cast<std::size_t>(m)] != g)
                throw host_topology_error(
                    source[i], "disagrees with " + source[static_cast<std::size_t>(m)].string());
        if (number[i] < 0) {
            for (const int m : g)
                number[static_cast<std::size_t>(m)] = next;
            ++next;
        }
    }
    return number;
}

// The highest-level data or unified cache of a CPU: its shared_cpu_list file, if any.
inline std::optional<std::filesystem::path> last_level_cache(const std::filesystem::path& cpu_dir) {
    std::optional<std::filesystem::path> llc;
    int llc_level = 0;
    for (const int index : numbered_entries(cpu_dir / "cache", "index")) {
        const std::filesystem::path dir = cpu_dir / "cache" / ("index" + std::to_string(index));
        if (read_sysfs_file(dir / "type").value_or("") == "Instruction")
            continue;
        const int level = read_sysfs_int(dir / "level").value_or(0);
        if (level > llc_level && std::filesystem::exists(dir / "shared_cpu_list")) {
            llc = dir / "shared_cpu_list";
            llc_level = level;
        }
    }
    return llc;
}

struct host_nodes {
    std::vector<int> node_of;               // per CPU index, dense
    std::vector<std::vector<int>> distance; // dense node -> dense node
};

inline host_nodes read_host_nodes(const std::filesystem::path& node_dir, const host_cpus& cpus) {
    const std::size_t n_cpus = cpus.online.size();
    std::error_code ec;
    std::vector<int> ids;
    if (std::filesystem::is_directory(node_dir, ec))
        ids = read_cpu_list(node_dir / "online").value_or(numbered_entries(node_dir, "node"));
    if (ids.empty())
        return {std::vector<int>(n_cpus, 0), {{local_distance}}};

    host_nodes h{std::vector<int>(n_cpus, -1), {}};
    std::vector<std::size_t> kept; // positions in ids of the nodes with online CPUs
    std::vector<std::vector<int>> full(ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::filesystem::path dir = node_dir / ("node" + std::to_string(ids[k]));
        const auto list = read_cpu_list(dir / "cpulist");
        if (!list)
            throw host_topology_error(dir / "cpulist", "missing for an online node");
        const std::vector<int> members = cpus.indices(*list);
        for (const int m : members) {
            int& node = h.node_of[static_cast<std::size_t>(m)];
            if (node >= 0)
                throw host_topology_error(
                    dir / "cpulist", "cpu " +
                                         std::to_string(cpus.online[static_cast<std::size_t>(m)]) +
                                         " is in two nodes");
            node = static_cast<int>(kept.size());
        }
        if (!members.empty())
            kept.push_back(k);
        // node_read_distance() prints one distance per online node, in node order.
        if (const auto text = read_sysfs_file(dir / "distance")) {
            std::istringstream in(*text);
            for (std::string word; in >> word;) {
                const auto d = parse_sysfs_int(word);
                if (!d)
                    throw host_topology_error(dir / "distance",
                                              "\"" + word + "\" is not a distance");
                full[k].push_back(*d);
            }
            if (full[k].size() != ids.size())
                throw host_topology_error(dir / "distance",
                                          std::to_string(full[k].size()) + " distances for " +
                                              std::to_string(ids.size()) + " online nodes");
        } else {
            for (std::size_t j = 0; j < ids.size(); ++j)
                full[k].push_back(j == k ? local_distance : remote_distance);
        }
    }
    for (std::size_t i = 0; i < n_cpus; ++i)
        if (h.node_of[i] < 0)
            throw host_topology_error(node_dir, "cpu " + std::to_string(cpus.online[i]) +
                                                    " is in no node's cpulist");
    for (const std::size_t a : kept) {
        h.distance.emplace_back();
        for (const std::size_t b : kept)
            h.distance.back().push_back(full[a][b]);
    }
    return h;
}

} // namespace detail

// The online CPUs of the machine whose sysfs is mounted at sysfs (a copy of one works too:
// the tree below devices/system is all that is read).
inline cpu_topology read_host_topology(const std::filesystem::path& sysfs = "/sys") {
    namespace fs = std::filesystem;
    using detail::read_cpu_list;
    using detail::read_sysfs_int;
    const fs::path cpu_root = sysfs / "devices" / "system" / "cpu";
    std::error_code ec;
    if (!fs::is_directory(cpu_root, ec))
        throw host_topology_error(cpu_root, "no such directory (is sysfs mounted?)");

    detail::host_cpus cpus;
    cpus.online =
        read_cpu_list(cpu_root / "online").value_or(detail::numbered_entries(cpu_root, "cpu"));
    if (cpus.online.empty())
        throw host_topology_error(cpu_root / "online", "no online CPUs");
    for (std::size_t i = 0; i < cpus.online.size(); ++i)
        cpus.index[cpus.online[i]] = static_cast<int>(i);
    const std::size_t n = cpus.online.size();

    const auto dir_of = [&](std::size_t i) {
        return cpu_root / ("cpu" + std::to_string(cpus.online[i]));
    };
    std::vector<int> package_id(n), core_id(n);
    std::vector<bool> has_core_id(n);
    for (std::size_t i = 0; i < n; ++i) {
        const fs::path topology = dir_of(i) / "topology";
        package_id[i] = std::max(0, read_sysfs_int(topology / "physical_package_id").value_or(0));
        const auto id = read_sysfs_int(topology / "core_id");
        has_core_id[i] = id.has_value();
        core_id[i] = id.value_or(0);
    }
    // The fallback groups: the CPUs of i's package, and of its package and core_id.
    const auto same_package = [&](std::size_t i, bool and_core_id) {
        if (and_core_id && !has_core_id[i])
            return std::vector<int>{static_cast<int>(i)};
        std::vector<int> g;
        for (std::size_t j = 0; j < n; ++j)
            if (package_id[j] == package_id[i] &&
                (!and_core_id || (has_core_id[j] && core_id[j] == core_id[i])))
                g.push_back(static_cast<int>(j));
        return g;
    };

    const detail::host_nodes nodes =
        detail::read_host_nodes(sysfs / "devices" / "system" / "node", cpus);

    std::vector<std::vector<int>> siblings(n), llc(n);
    std::vector<fs::path> siblings_file(n), llc_file(n);
    for (std::size_t i = 0; i < n; ++i) {
        const fs::path topology = dir_of(i) / "topology";
        siblings_file[i] = topology / "core_cpus_list";
        if (!fs::exists(siblings_file[i], ec))
            siblings_file[i] = topology / "thread_siblings_list";
        const auto listed = read_cpu_list(siblings_file[i]);
        if (!listed)
            siblings_file[i] = topology / "core_id";
        siblings[i] = listed ? cpus.indices(*listed) : same_package(i, true);

        const auto cache = detail::last_level_cache(dir_of(i));
        llc_file[i] = cache.value_or(topology / "physical_package_id");
        std::vector<int> shared =
            cache ? cpus.indices(read_cpu_list(*cache).value_or(std::vector<int>{}))
                  : same_package(i, false);
        std::erase_if(shared, [&](int m) {
            return nodes.node_of[static_cast<std::size_t>(m)] != nodes.node_of[i];
        });
        llc[i] = std::move(shared);
    }
    const std::vector<int> core_number = detail::number_groups(siblings, siblings_file);
    const std::vector<int> llc_number = detail::number_groups(llc, llc_file);

    std::map<int, int> package; // physical_package_id -> dense, by lowest CPU
    cpu_topology t;
    for (std::size_t i = 0; i < n; ++i) {
        const auto p = package.emplace(package_id[i], static_cast<int>(package.size())).first;
        const auto& g = siblings[i];
        const int thread =
            static_cast<int>(std::find(g.begin(), g.end(), static_cast<int>(i)) - g.begin());
        t.cpus.push_back({p->second, core_number[i], thread, llc_number[i], nodes.node_of[i]});
    }
    t.distance = nodes.distance;
    if (const auto problems = check_topology(t); !problems.empty()) {
        std::string text;
        for (const std::string& p : problems)
            text += (text.empty() ? "" : "; ") + p;
        throw host_topology_error(sysfs / "devices" / "system",
                                  "describes an inconsistent topology: " + text);
    }
    return t;
}

} // namespace libsched
