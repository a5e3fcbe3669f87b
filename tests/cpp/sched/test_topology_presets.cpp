// sched/topology_presets.hpp and sched/topology_check.hpp: the presets are the machines
// their names say, shapes split cores into LLCs and nodes, and every kind of inconsistency
// in a topology is named.
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/sched/topology_check.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <set>
#include <string>
#include <vector>

using namespace libsched;

namespace test_topology_presets {

namespace {

// How many distinct values a field takes over the CPUs.
template <class Field> int distinct(const cpu_topology& t, Field field) {
    std::set<int> values;
    for (const auto& p : t.cpus)
        values.insert(field(p));
    return static_cast<int>(values.size());
}

bool mentions(const std::vector<std::string>& problems, const std::string& part) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const std::string& p) { return p.find(part) != std::string::npos; });
}

} // namespace

TEST_CASE("every preset is a valid topology with a description") {
    std::set<std::string_view> names;
    for (const topology_preset& p : topology_presets) {
        INFO(p.name);
        CHECK(names.insert(p.name).second);
        CHECK(!p.description.empty());
        CHECK(check_shape(p.shape, 4096).empty());
        const auto t = preset_topology(p.name);
        REQUIRE(t);
        CHECK(check_topology(*t).empty());
        CHECK(t->nr_cpus() == p.shape.nr_cpus());
    }
    CHECK_FALSE(preset_topology("3c7t"));
    CHECK(find_topology_preset("") == nullptr);
}

TEST_CASE("1c2t is one core with two SMT siblings") {
    const cpu_topology t = *preset_topology("1c2t");
    REQUIRE(t.nr_cpus() == 2);
    CHECK(t.same_core(0, 1));
    CHECK(t.of(0).thread == 0);
    CHECK(t.of(1).thread == 1);
    CHECK(t.same_llc(0, 1));
    CHECK(t.distance == std::vector<std::vector<int>>{{10}});
}

TEST_CASE("2c is two cores without SMT sharing one LLC") {
    const cpu_topology t = *preset_topology("2c");
    REQUIRE(t.nr_cpus() == 2);
    CHECK_FALSE(t.same_core(0, 1));
    CHECK(t.same_llc(0, 1));
    CHECK(t.same_node(0, 1));
}

TEST_CASE("8c16t numbers the second threads after all first threads") {
    const cpu_topology t = *preset_topology("8c16t");
    REQUIRE(t.nr_cpus() == 16);
    CHECK(distinct(t, [](const auto& p) { return p.core; }) == 8);
    CHECK(distinct(t, [](const auto& p) { return p.llc; }) == 1);
    for (int cpu = 0; cpu < 8; ++cpu) {
        CHECK(t.same_core(cpu, cpu + 8));
        CHECK(t.of(cpu + 8).thread == 1);
    }
    CHECK_FALSE(t.same_core(0, 1));
}

TEST_CASE("2s32c2t has a node per socket at REMOTE_DISTANCE") {
    const cpu_topology t = *preset_topology("2s32c2t");
    REQUIRE(t.nr_cpus() == 128);
    CHECK(distinct(t, [](const auto& p) { return p.core; }) == 64);
    CHECK(distinct(t, [](const auto& p) { return p.package; }) == 2);
    CHECK(t.nr_nodes() == 2);
    CHECK(t.of(31).package == 0);
    CHECK(t.of(32).package == 1);
    CHECK(t.same_core(0, 64));
    CHECK(t.same_core(32, 96));
    CHECK(t.same_llc(0, 31));
    CHECK_FALSE(t.same_llc(0, 32));
    CHECK(t.node_distance(t.of(0).node, t.of(32).node) == 20);
    CHECK(t.node_distance(0, 0) == 10);
}

TEST_CASE("a shape splits each package's cores into LLCs and its LLCs into nodes") {
    const topology_shape s{2, 8, 2, 4, 2}; // 2 packages x 8 cores x 2 threads, 4 LLCs, 2 nodes
    REQUIRE(check_shape(s, 4096).empty());
    const cpu_topology t = shaped_topology(s);
    REQUIRE(check_topology(t).empty());
    REQUIRE(t.nr_cpus() == 32);
    CHECK(distinct(t, [](const auto& p) { return p.llc; }) == 8);
    CHECK(t.nr_nodes() == 4);
    // Cores 0-1 share an LLC, 2-3 the next; cores 0-3 are node 0, 4-7 node 1.
    CHECK(t.same_llc(0, 1));
    CHECK_FALSE(t.same_llc(1, 2));
    CHECK(t.same_node(0, 3));
    CHECK_FALSE(t.same_node(3, 4));
    CHECK(t.of(8).node == 2); // first core of package 1
    CHECK(t.same_llc(0, 16)); // siblings
    CHECK(t.node_distance(0, 1) == package_node_distance);
    CHECK(t.node_distance(0, 2) == remote_distance);
    CHECK(t.node_distance(3, 1) == remote_distance);
}

TEST_CASE("check_shape names the member that is wrong") {
    const auto member_of = [](const topology_shape& s) {
        const auto p = check_shape(s, 4096);
        return p.empty() ? std::string{} : std::string{p.front().member};
    };
    CHECK(member_of({0, 1, 1, 1, 1}) == "packages");
    CHECK(member_of({1, 1, -2, 1, 1}) == "threads");
    CHECK(member_of({1, 6, 1, 4, 1}) == "llcs");
    CHECK(member_of({1, 8, 1, 1, 2}) == "nodes");
    CHECK(member_of({64, 64, 2, 1, 1}) == "cores");        // 8192 CPUs
    CHECK(member_of({4096, 4096, 4096, 1, 1}) == "cores"); // no overflow
    CHECK(check_shape({1, 6, 1, 4, 1}, 4096).front().reason == "4 LLCs cannot share 6 cores a "
                                                               "package evenly");
}

TEST_CASE("check_topology names each inconsistency") {
    const cpu_topology good = *preset_topology("4c8t"); // cpu c and c + 4 are siblings
    REQUIRE(check_topology(good).empty());
    const auto broken = [&](auto change) {
        cpu_topology t = good;
        change(t);
        return check_topology(t);
    };
    CHECK(check_topology(cpu_topology{}) == std::vector<std::string>{"no CPUs"});
    CHECK(mentions(broken([](cpu_topology& t) { t.cpus[4].llc = 1; }),
                   "cpu 4 shares a core with cpu 0 but is in llc 1, not 0"));
    CHECK(mentions(broken([](cpu_topology& t) { t.cpus[5].thread = 0; }),
                   "cpu 5 is thread 0 of core 1"));
    CHECK(mentions(broken([](cpu_topology& t) { t.cpus[1].node = -1; }),
                   "cpu 1: node -1 is negative"));
    CHECK(mentions(broken([](cpu_topology& t) {
                       for (auto& p : t.cpus)
                           p.core = p.core == 3 ? 5 : p.core;
                   }),
                   "core numbers are not dense: core 5 is used but core 3 is not"));
    // A second node for cores 2 and 3 would split the LLC.
    CHECK(mentions(broken([](cpu_topology& t) {
                       for (auto& p : t.cpus)
                           p.node = p.core >= 2 ? 1 : 0;
                       t.distance = {{10, 20}, {20, 10}};
                   }),
                   "shares an llc with cpu 0 but is in node 1, not 0"));
    CHECK(mentions(broken([](cpu_topology& t) { t.cpus[0].node = 1; }),
                   "the distance matrix has 1 rows for 2 nodes"));

    cpu_topology two = *preset_topology("2s32c2t");
    const auto distances = [&](std::vector<std::vector<int>> d) {
        two.distance = std::move(d);
        return check_topology(two);
    };
    CHECK(distances({{10, 20}, {20, 10}}).empty());
    CHECK(mentions(distances({{10, 20}, {21, 10}}), "node 0 to node 1 is 20 but back is 21"));
    CHECK(mentions(distances({{20, 20}, {20, 10}}), "node 0 to node 0 is 20, not 10"));
    CHECK(mentions(distances({{10, 10}, {10, 10}}), "node 0 to node 1 is 10, not above 10"));
    CHECK(mentions(distances({{10, 20}, {20}}), "distance row 1 has 1 entries for 2 nodes"));
}

} // namespace test_topology_presets
