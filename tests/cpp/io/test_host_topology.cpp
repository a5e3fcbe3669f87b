// io/host_topology.hpp and io/host_wakeup.hpp on sysfs trees built in a temporary directory (a
// 2-vCPU VM, a 2-socket box, machines without NUMA or L3 information, offline CPUs), on the
// mistakes a tree can hold, and on the machine the test runs on.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <libsched/io/host_topology.hpp>
#include <libsched/io/host_wakeup.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <string>
#include <vector>
#ifdef __linux__
#include <sys/prctl.h>
#include <unistd.h>

namespace test_host_topology {

#endif

using namespace libsched;
namespace fs = std::filesystem;

namespace {

// A sysfs tree under a fresh temporary directory, removed at the end of the test.
class fake_sysfs {
public:
    fake_sysfs() {
        const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
        root_ = fs::temp_directory_path() / ("libsched-sysfs-" + std::to_string(now));
        fs::create_directories(root_ / "devices" / "system" / "cpu");
    }
    ~fake_sysfs() { fs::remove_all(root_); }
    fake_sysfs(const fake_sysfs&) = delete;
    fake_sysfs& operator=(const fake_sysfs&) = delete;

    const fs::path& root() const { return root_; }
    fs::path file(const std::string& below_system) const {
        return root_ / "devices" / "system" / below_system;
    }

    // One file, as sysfs shows it: the value and a newline.
    void write(const std::string& below_system, const std::string& text) const {
        const fs::path p = file(below_system);
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text << '\n';
    }

    void cpu(int n, int package, int core_id, const std::string& siblings,
             const std::string& siblings_file = "core_cpus_list") const {
        const std::string dir = "cpu/cpu" + std::to_string(n) + "/topology/";
        write(dir + "physical_package_id", std::to_string(package));
        write(dir + "core_id", std::to_string(core_id));
        write(dir + siblings_file, siblings);
    }

    void cache(int cpu, int index, int level, const std::string& type,
               const std::string& shared) const {
        const std::string dir =
            "cpu/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index) + "/";
        write(dir + "level", std::to_string(level));
        write(dir + "type", type);
        write(dir + "shared_cpu_list", shared);
    }

    void node(int n, const std::string& cpulist, const std::string& distance) const {
        const std::string dir = "node/node" + std::to_string(n) + "/";
        write(dir + "cpulist", cpulist);
        write(dir + "distance", distance);
    }

private:
    fs::path root_;
};

// L1 data and instruction caches and an L2 per core, an L3 over l3.
void x86_caches(const fake_sysfs& sys, int cpu, const std::string& core, const std::string& l3) {
    sys.cache(cpu, 0, 1, "Data", core);
    sys.cache(cpu, 1, 1, "Instruction", core);
    sys.cache(cpu, 2, 2, "Unified", core);
    if (!l3.empty())
        sys.cache(cpu, 3, 3, "Unified", l3);
}

// The error read_host_topology() throws for the tree.
host_topology_error error_of(const fake_sysfs& sys) {
    try {
        read_host_topology(sys.root());
    } catch (const host_topology_error& e) {
        return e;
    }
    FAIL("read_host_topology() accepted the tree");
    return {"", ""};
}

bool same_places(const cpu_topology& a, const cpu_topology& b) {
    if (a.nr_cpus() != b.nr_cpus())
        return false;
    for (int c = 0; c < a.nr_cpus(); ++c) {
        const auto &p = a.of(c), &q = b.of(c);
        if (p.package != q.package || p.core != q.core || p.thread != q.thread || p.llc != q.llc ||
            p.node != q.node)
            return false;
    }
    return true;
}

// A 2-vCPU cloud VM: one core, two hyperthreads, one node.
void vm_1c2t(const fake_sysfs& sys) {
    sys.write("cpu/online", "0-1");
    for (int c = 0; c < 2; ++c) {
        sys.cpu(c, 0, 0, "0-1");
        x86_caches(sys, c, "0-1", "0-1");
    }
    sys.write("node/online", "0");
    sys.node(0, "0-1", "10");
}

} // namespace

TEST_CASE("a 2-vCPU VM reads as one core with two SMT siblings") {
    const fake_sysfs sys;
    vm_1c2t(sys);
    const cpu_topology t = read_host_topology(sys.root());
    REQUIRE(t.nr_cpus() == 2);
    CHECK(t.same_core(0, 1));
    CHECK(t.of(1).thread == 1);
    CHECK(same_places(t, *preset_topology("1c2t")));
    CHECK(t.distance == std::vector<std::vector<int>>{{10}});
}

TEST_CASE("a 2-socket box: per-package sparse core_id, an L3 and a node per socket") {
    const fake_sysfs sys;
    // 2 packages x 2 cores x 2 threads; CPUs 0-3 are first threads, 4-7 their siblings.
    // Before 5.7 there is no core_cpus_list, only thread_siblings_list.
    sys.write("cpu/online", "0-7");
    for (int c = 0; c < 8; ++c) {
        const int package = (c % 4) / 2;
        const int first = c % 4;
        const std::string siblings = std::to_string(first) + "," + std::to_string(first + 4);
        sys.cpu(c, package, (first % 2) * 4, siblings, "thread_siblings_list");
        x86_caches(sys, c, siblings, package == 0 ? "0-1,4-5" : "2-3,6-7");
    }
    sys.write("node/online", "0-1");
    sys.node(0, "0-1,4-5", "10 21");
    sys.node(1, "2-3,6-7", "21 10");
    const cpu_topology t = read_host_topology(sys.root());
    CHECK(same_places(t, shaped_topology({2, 2, 2, 1, 1})));
    CHECK(t.distance == std::vector<std::vector<int>>{{10, 21}, {21, 10}});
    CHECK(t.of(3).core == 3); // package 1's core_id 4, machine-wide core 3
}

TEST_CASE("without node directories one node, without an L3 the L2 is the LLC") {
    const fake_sysfs sys;
    sys.write("cpu/online", "0-1");
    for (int c = 0; c < 2; ++c) {
        sys.cpu(c, 0, c, std::to_string(c));
        x86_caches(sys, c, std::to_string(c), "");
    }
    const cpu_topology t = read_host_topology(sys.root());
    REQUIRE(t.nr_cpus() == 2);
    CHECK_FALSE(t.same_core(0, 1));
    CHECK_FALSE(t.same_llc(0, 1));
    CHECK(t.same_node(0, 1));
    CHECK(t.distance == std::vector<std::vector<int>>{{10}});
}

TEST_CASE("without sibling lists, cache or online files: core_id groups, an LLC a package") {
    const fake_sysfs sys;
    const std::vector<int> core_id = {0, 8, 0, 8};
    for (int c = 0; c < 4; ++c)
        sys.write("cpu/cpu" + std::to_string(c) + "/topology/core_id",
                  std::to_string(core_id[static_cast<std::size_t>(c)]));
    sys.write("cpu/cpufreq/boost", "1"); // not a CPU
    const cpu_topology t = read_host_topology(sys.root());
    REQUIRE(t.nr_cpus() == 4);
    CHECK(t.same_core(0, 2));
    CHECK(t.same_core(1, 3));
    CHECK_FALSE(t.same_core(0, 1));
    CHECK(t.of(1).core == 1);
    CHECK(t.of(2).thread == 1);
    CHECK(t.same_llc(0, 3));
    CHECK(t.same_package(0, 3));
}

TEST_CASE("offline CPUs and memory-only nodes are left out") {
    const fake_sysfs sys;
    // CPU 1 (CPU 0's sibling) is offline; its directory stays.
    sys.write("cpu/online", "0,2-3");
    for (const int c : {0, 1, 2, 3}) {
        const std::string siblings = c < 2 ? "0-1" : "2-3";
        sys.cpu(c, 0, c / 2, siblings);
        x86_caches(sys, c, siblings, "0-3");
    }
    sys.write("node/online", "0-1");
    sys.node(0, "0-3", "10 20");
    sys.node(1, "", "20 10");
    const cpu_topology t = read_host_topology(sys.root());
    REQUIRE(t.nr_cpus() == 3);
    CHECK(t.of(0).thread == 0);
    CHECK_FALSE(t.same_core(0, 1)); // index 1 is kernel CPU 2
    CHECK(t.same_core(1, 2));
    CHECK(t.same_llc(0, 2));
    CHECK(t.distance == std::vector<std::vector<int>>{{10}});
}

TEST_CASE("an LLC over two nodes is split by node") {
    const fake_sysfs sys;
    sys.write("cpu/online", "0-3");
    for (int c = 0; c < 4; ++c) {
        sys.cpu(c, 0, c, std::to_string(c));
        x86_caches(sys, c, std::to_string(c), "0-3");
    }
    sys.write("node/online", "0-1");
    sys.node(0, "0-1", "10 11");
    sys.node(1, "2-3", "11 10");
    const cpu_topology t = read_host_topology(sys.root());
    CHECK(t.same_llc(0, 1));
    CHECK_FALSE(t.same_llc(1, 2));
    CHECK(t.node_distance(0, 1) == 11);
}

TEST_CASE("a file that does not parse, or disagrees, is named") {
    {
        const fake_sysfs sys;
        vm_1c2t(sys);
        sys.write("cpu/cpu1/topology/core_cpus_list", "0-x");
        const auto e = error_of(sys);
        CHECK(e.file() == sys.file("cpu/cpu1/topology/core_cpus_list"));
        CHECK(std::string{e.what()}.find("\"0-x\" is not a CPU list") != std::string::npos);
    }
    {
        const fake_sysfs sys;
        vm_1c2t(sys);
        sys.write("cpu/cpu0/topology/physical_package_id", "zero");
        CHECK(error_of(sys).file() == sys.file("cpu/cpu0/topology/physical_package_id"));
    }
    {
        const fake_sysfs sys;
        vm_1c2t(sys);
        sys.write("cpu/cpu1/topology/core_cpus_list", "1");
        const auto e = error_of(sys);
        CHECK(e.file() == sys.file("cpu/cpu0/topology/core_cpus_list"));
        CHECK(std::string{e.what()}.find("disagrees with") != std::string::npos);
    }
    {
        const fake_sysfs sys;
        vm_1c2t(sys);
        sys.write("node/node0/distance", "10 20");
        const auto e = error_of(sys);
        CHECK(e.file() == sys.file("node/node0/distance"));
        CHECK(std::string{e.what()}.find("2 distances for 1 online nodes") != std::string::npos);
    }
    {
        const fake_sysfs sys;
        vm_1c2t(sys);
        sys.write("node/node0/cpulist", "0");
        CHECK(std::string{error_of(sys).what()}.find("cpu 1 is in no node's cpulist") !=
              std::string::npos);
    }
    {
        const fake_sysfs sys;
        vm_1c2t(sys);
        sys.write("node/node0/distance", "20");
        CHECK(std::string{error_of(sys).what()}.find("node 0 to node 0 is 20, not 10") !=
              std::string::npos);
    }
    const fake_sysfs empty;
    fs::remove_all(empty.file("cpu"));
    CHECK(error_of(empty).file() == empty.file("cpu"));
}

#ifdef __linux__
TEST_CASE("this machine's topology reads and has its online CPUs") {
    std::error_code ec;
    if (!fs::exists("/sys/devices/system/cpu/online", ec))
        return; // not Linux, or no sysfs
    const cpu_topology t = read_host_topology();
    CHECK(check_topology(t).empty());
    CHECK(t.nr_cpus() == sysconf(_SC_NPROCESSORS_ONLN));
}
#endif

// io/host_wakeup.hpp: the timer slack from procfs, the idle states from sysfs.
namespace {
void idle_state(const fake_sysfs& fs_, int cpu, int n, const std::string& name, int latency_us,
                int residency_us, int disable) {
    const std::string dir =
        "cpu/cpu" + std::to_string(cpu) + "/cpuidle/state" + std::to_string(n) + "/";
    fs_.write(dir + "name", name);
    fs_.write(dir + "latency", std::to_string(latency_us));
    fs_.write(dir + "residency", std::to_string(residency_us));
    fs_.write(dir + "disable", std::to_string(disable));
}
} // namespace

TEST_CASE("host wakeup: the slack and the deepest enabled idle state's exit latency") {
    fake_sysfs sys;
    const fs::path proc = sys.root() / "proc";
    fs::create_directories(proc / "self");
    std::ofstream(proc / "self" / "timerslack_ns") << "50000\n";
    sys.write("cpu/online", "0-1");
    sys.write("cpu/cpuidle/current_driver", "intel_idle");
    // A C6 state disabled on CPU 0 only: CPU 1 still reaches it.
    for (int cpu = 0; cpu < 2; ++cpu) {
        idle_state(sys, cpu, 0, "POLL", 0, 0, 0);
        idle_state(sys, cpu, 1, "C1", 2, 2, 0);
        idle_state(sys, cpu, 2, "C6", 170, 600, cpu == 0 ? 1 : 0);
    }
    const host_wakeup w = read_host_wakeup(proc, sys.root());
    CHECK(w.timer_slack == 50'000);
    CHECK(w.cpuidle_driver == "intel_idle");
    REQUIRE(w.states.size() == 3);
    CHECK(w.states[1].name == "C1");
    CHECK(w.states[1].exit_latency == 2'000);
    CHECK(w.states[2].target_residency == 600'000);
    CHECK(w.states[2].disabled);
    CHECK(w.idle_exit_latency == 170'000);
    CHECK(w.idle_exit_state == "C6");

    idle_state(sys, 1, 2, "C6", 170, 600, 1); // now disabled everywhere: C1 is the deepest
    CHECK(read_host_wakeup(proc, sys.root()).idle_exit_latency == 2'000);

    std::ofstream(proc / "self" / "timerslack_ns") << "fifty\n";
    CHECK_THROWS_WITH(read_host_wakeup(proc, sys.root()),
                      Catch::Contains("timerslack_ns") && Catch::Contains("not a count of ns"));
}

TEST_CASE("host wakeup: without procfs file or cpuidle driver nothing is read") {
    fake_sysfs sys;
    sys.write("cpu/online", "0");
    sys.write("cpu/cpu0/topology/core_id", "0");
    const host_wakeup w = read_host_wakeup(sys.root() / "no-proc", sys.root());
    CHECK(!w.timer_slack);
    CHECK(!w.idle_exit_latency);
    CHECK(w.states.empty());
}

#ifdef __linux__
TEST_CASE("host wakeup: this machine's slack is what prctl(PR_GET_TIMERSLACK) says") {
    std::error_code ec;
    if (!fs::exists("/proc/self/timerslack_ns", ec))
        return; // a kernel before 4.6, or no procfs
    const host_wakeup w = read_host_wakeup();
    REQUIRE(w.timer_slack);
    CHECK(*w.timer_slack == prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
}
#endif

} // namespace test_host_topology
