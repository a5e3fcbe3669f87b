// sched/sched_domain.hpp: the domains built from topologies, against the rules of the
// kernel's sd_init() and build_sched_groups() (kernel-reference section 4.1): one level per
// topology level that is wider than the one below, parameters from the span weight and the
// topology flags, groups = the child domain's spans with the local group first.
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/sched/sched_domain.hpp>
#include <libsched/sched/topology.hpp>
#include <libsched/sched/topology_presets.hpp>
#include <set>
#include <string>
#include <vector>

using namespace libsched;

namespace test_sched_domain {

namespace {

const kernel_version versions[] = {{5, 15}, {6, 6}, {6, 12}};

cpu_topology preset(const char* name) {
    auto t = preset_topology(name);
    REQUIRE(t.has_value());
    return *t;
}

std::vector<const sched_domain*> chain_of(const sched_domains& d, int cpu) {
    std::vector<const sched_domain*> out;
    for (const auto& sd : d.chain(cpu))
        out.push_back(sd.get());
    return out;
}

std::vector<int> cpus_where(const cpu_topology& t, bool (cpu_topology::*same)(int, int) const,
                            int cpu) {
    std::vector<int> out;
    for (int c = 0; c < t.nr_cpus(); ++c)
        if ((t.*same)(cpu, c))
            out.push_back(c);
    return out;
}

std::vector<int> all_cpus(int n) {
    std::vector<int> out;
    for (int c = 0; c < n; ++c)
        out.push_back(c);
    return out;
}

// The sd_init() parameters that follow from the span weight alone.
void check_intervals(const sched_domain& sd) {
    const auto w = static_cast<unsigned>(sd.span.size());
    CHECK(sd.min_interval == w);
    CHECK(sd.max_interval == 2 * w);
    CHECK(sd.balance_interval == w);
    CHECK(sd.busy_factor == 16);
}

// Groups partition the span, the local group holds the CPU and comes first, each group is a
// span of the child domain (single CPUs at the lowest level).
void check_groups(const sched_domains& d, int cpu, const sched_domain& sd) {
    INFO("CPU " << cpu << " level " << sd.name);
    REQUIRE(!sd.groups.empty());
    CHECK(sd.groups.front().contains(cpu));
    std::vector<int> covered;
    for (const sched_group& g : sd.groups) {
        CHECK(std::is_sorted(g.cpus.begin(), g.cpus.end()));
        covered.insert(covered.end(), g.cpus.begin(), g.cpus.end());
        REQUIRE(g.sgc != nullptr);
        CHECK(g.sgc->capacity == 1024ul * g.cpus.size());
        if (sd.child == nullptr) {
            CHECK(g.cpus.size() == 1);
            CHECK(g.flags == sd_flag::none);
        } else {
            CHECK(g.flags == sd.child->flags);
            // The child domain of the group's first CPU spans the group.
            const int first = g.cpus.front();
            const auto& other = d.chain(first);
            const auto level = static_cast<std::size_t>(sd.child->level);
            REQUIRE(level < other.size());
            CHECK(other[level]->span == g.cpus);
        }
    }
    std::sort(covered.begin(), covered.end());
    CHECK(covered == sd.span);
    CHECK(std::adjacent_find(covered.begin(), covered.end()) == covered.end());
}

void check_links(sched_domains& d, int cpu) {
    const auto c = chain_of(d, cpu);
    for (std::size_t i = 0; i < c.size(); ++i) {
        CHECK(c[i]->level == static_cast<int>(i));
        CHECK(c[i]->child == (i > 0 ? c[i - 1] : nullptr));
        CHECK(c[i]->parent == (i + 1 < c.size() ? c[i + 1] : nullptr));
        CHECK(c[i]->contains(cpu));
        if (i > 0) { // every level is strictly wider than its child (no degenerate level)
            CHECK(c[i]->span.size() > c[i - 1]->span.size());
            CHECK(std::includes(c[i]->span.begin(), c[i]->span.end(), c[i - 1]->span.begin(),
                                c[i - 1]->span.end()));
        }
    }
    if (!c.empty())
        CHECK(d.lowest(cpu) == c.front());
}

const sd_flag default_flags = sd_flag::balance_newidle | sd_flag::balance_exec |
                              sd_flag::balance_fork | sd_flag::wake_affine |
                              sd_flag::prefer_sibling;

} // namespace

TEST_CASE("one CPU has no domains") {
    const sched_domains d(preset("1c"), {6, 6});
    CHECK(d.nr_cpus() == 1);
    CHECK(d.chain(0).empty());
    CHECK(d.llc_size(0) == 1);
    CHECK(!d.smt_active());
}

TEST_CASE("one core of two threads: a single SMT level") {
    for (const kernel_version k : versions) {
        INFO(k.str());
        sched_domains d(preset("1c2t"), k);
        REQUIRE(d.nr_cpus() == 2);
        for (int cpu = 0; cpu < 2; ++cpu) {
            INFO("CPU " << cpu);
            REQUIRE(d.chain(cpu).size() == 1);
            const sched_domain& sd = *d.chain(cpu).front();
            CHECK(sd.name == "SMT");
            CHECK(sd.span == std::vector<int>{0, 1});
            CHECK(sd.span_weight() == 2);
            CHECK(sd.imbalance_pct == 110);
            CHECK(sd.cache_nice_tries == 0);
            CHECK(sd.min_interval == 2);
            CHECK(sd.max_interval == 4);
            check_intervals(sd);
            CHECK(sd.flags == (default_flags | sd_flag::share_cpucapacity | sd_flag::share_llc));
            CHECK(!has(sd.flags, sd_flag::balance_wake));
            REQUIRE(sd.groups.size() == 2);
            CHECK(sd.groups[0].cpus == std::vector<int>{cpu});
            CHECK(sd.groups[1].cpus == std::vector<int>{1 - cpu});
            check_groups(d, cpu, sd);
            check_links(d, cpu);
            CHECK(d.llc(cpu) == d.lowest(cpu));
            CHECK(d.llc_size(cpu) == 2);
            CHECK(d.smt_mask(cpu) == std::vector<int>{0, 1});
        }
        CHECK(d.cpus_share_cache(0, 1));
        CHECK(d.smt_active());
        CHECK(&d.llc_shared(0) == &d.llc_shared(1));
    }
}

TEST_CASE("two cores without SMT: a single MC level") {
    for (const kernel_version k : versions) {
        INFO(k.str());
        sched_domains d(preset("2c"), k);
        for (int cpu = 0; cpu < 2; ++cpu) {
            INFO("CPU " << cpu);
            REQUIRE(d.chain(cpu).size() == 1);
            const sched_domain& sd = *d.chain(cpu).front();
            CHECK(sd.name == "MC");
            CHECK(sd.span == std::vector<int>{0, 1});
            CHECK(sd.imbalance_pct == 117);
            CHECK(sd.cache_nice_tries == 1);
            check_intervals(sd);
            CHECK(sd.flags == (default_flags | sd_flag::share_llc));
            CHECK(!has(sd.flags, sd_flag::share_cpucapacity));
            REQUIRE(sd.groups.size() == 2);
            CHECK(sd.groups[0].cpus == std::vector<int>{cpu});
            check_groups(d, cpu, sd);
            check_links(d, cpu);
            CHECK(d.llc_size(cpu) == 2);
            CHECK(d.smt_mask(cpu) == std::vector<int>{cpu});
        }
        CHECK(d.cpus_share_cache(0, 1));
        CHECK(!d.smt_active());
    }
}

TEST_CASE("8 cores x 2 threads: SMT, then MC whose groups are the cores") {
    const cpu_topology t = preset("8c16t");
    REQUIRE(t.nr_cpus() == 16);
    for (const kernel_version k : versions) {
        INFO(k.str());
        sched_domains d(t, k);
        for (int cpu = 0; cpu < 16; ++cpu) {
            INFO("CPU " << cpu);
            const auto c = chain_of(d, cpu);
            REQUIRE(c.size() == 2);
            const sched_domain& smt = *c[0];
            const sched_domain& mc = *c[1];
            CHECK(smt.name == "SMT");
            CHECK(smt.span == cpus_where(t, &cpu_topology::same_core, cpu));
            CHECK(smt.span.size() == 2);
            CHECK(smt.imbalance_pct == 110);
            CHECK(smt.cache_nice_tries == 0);
            check_intervals(smt);
            CHECK(mc.name == "MC");
            CHECK(mc.span == all_cpus(16));
            CHECK(mc.imbalance_pct == 117);
            CHECK(mc.cache_nice_tries == 1);
            CHECK(mc.min_interval == 16);
            CHECK(mc.max_interval == 32);
            check_intervals(mc);
            CHECK(has(mc.flags, sd_flag::share_llc));
            CHECK(!has(mc.flags, sd_flag::share_cpucapacity));
            CHECK(has(mc.flags, sd_flag::prefer_sibling));
            // The MC groups are the 8 cores, the local core first.
            REQUIRE(mc.groups.size() == 8);
            CHECK(mc.groups.front().cpus == smt.span);
            std::set<int> cores;
            for (const sched_group& g : mc.groups) {
                REQUIRE(g.cpus.size() == 2);
                CHECK(t.same_core(g.cpus[0], g.cpus[1]));
                cores.insert(t.of(g.cpus[0]).core);
                CHECK(has(g.flags, sd_flag::share_cpucapacity)); // an SMT core
            }
            CHECK(cores.size() == 8);
            check_groups(d, cpu, smt);
            check_groups(d, cpu, mc);
            check_links(d, cpu);
            CHECK(d.llc(cpu) == &mc);
            CHECK(d.llc_size(cpu) == 16);
            CHECK(d.smt_mask(cpu) == smt.span);
            for (int other = 0; other < 16; ++other)
                CHECK(d.cpus_share_cache(cpu, other));
        }
        CHECK(d.smt_active());
    }
}

TEST_CASE("2 sockets x 32 cores x 2 threads: SMT, MC, NUMA, the package level is pruned") {
    const cpu_topology t = preset("2s32c2t");
    REQUIRE(t.nr_cpus() == 128);
    REQUIRE(t.nr_nodes() == 2);
    for (const kernel_version k : versions) {
        INFO(k.str());
        sched_domains d(t, k);
        for (int cpu = 0; cpu < 128; ++cpu) {
            INFO("CPU " << cpu);
            const auto c = chain_of(d, cpu);
            REQUIRE(c.size() == 3);
            CHECK(c[0]->name == "SMT");
            CHECK(c[1]->name == "MC");
            CHECK(c[2]->name == "NUMA");
            for (const sched_domain* sd : c)
                CHECK(sd->name != (k >= kernel_version{6, 7} ? "PKG" : "DIE"));
            CHECK(c[0]->span == cpus_where(t, &cpu_topology::same_core, cpu));
            // MC = the LLC = the package = the node.
            CHECK(c[1]->span == cpus_where(t, &cpu_topology::same_llc, cpu));
            CHECK(c[1]->span == cpus_where(t, &cpu_topology::same_package, cpu));
            CHECK(c[1]->span == cpus_where(t, &cpu_topology::same_node, cpu));
            CHECK(c[1]->span.size() == 64);
            CHECK(c[2]->span == all_cpus(128));
            for (const sched_domain* sd : c)
                check_intervals(*sd);
            const sched_domain& numa = *c[2];
            CHECK(has(numa.flags, sd_flag::numa));
            CHECK(!has(numa.flags, sd_flag::prefer_sibling));
            CHECK(has(numa.flags, sd_flag::serialize));
            CHECK(numa.cache_nice_tries == 2);
            CHECK(numa.imbalance_pct == 117);
            // Distance 20 is within node_reclaim_distance: fork, exec and affine wakeups
            // still balance across the nodes.
            REQUIRE(t.node_distance(0, 1) <= node_reclaim_distance);
            CHECK(has(numa.flags, sd_flag::balance_fork));
            CHECK(has(numa.flags, sd_flag::balance_exec));
            CHECK(has(numa.flags, sd_flag::wake_affine));
            CHECK(has(c[1]->flags, sd_flag::prefer_sibling));
            CHECK(!has(c[1]->flags, sd_flag::serialize));
            // NUMA groups: the two nodes, the local one first.
            REQUIRE(numa.groups.size() == 2);
            CHECK(numa.groups[0].cpus == c[1]->span);
            CHECK(t.of(numa.groups[1].cpus.front()).node != t.of(cpu).node);
            REQUIRE(c[1]->groups.size() == 32);
            for (const sched_domain* sd : c)
                check_groups(d, cpu, *sd);
            check_links(d, cpu);
            CHECK(d.llc(cpu) == c[1]);
            CHECK(d.llc_size(cpu) == 64);
            CHECK(d.smt_mask(cpu) == c[0]->span);
            for (int other = 0; other < 128; ++other)
                CHECK(d.cpus_share_cache(cpu, other) == t.same_llc(cpu, other));
        }
        CHECK(&d.llc_shared(0) != &d.llc_shared(127));
    }
}

TEST_CASE("the copies of a group in different CPUs' domains share one capacity") {
    const cpu_topology t = preset("2s32c2t");
    sched_domains d(t, {6, 6});
    for (std::size_t level = 0; level < 3; ++level) {
        INFO("level " << level);
        // Every distinct group (by CPUs) maps to exactly one capacity object, and distinct
        // groups have distinct objects.
        std::vector<std::pair<std::vector<int>, const sched_group_capacity*>> seen;
        for (int cpu = 0; cpu < t.nr_cpus(); ++cpu)
            for (const sched_group& g : d.chain(cpu)[level]->groups) {
                auto it = std::find_if(seen.begin(), seen.end(),
                                       [&](const auto& e) { return e.first == g.cpus; });
                if (it == seen.end()) {
                    for (const auto& e : seen)
                        CHECK(e.second != g.sgc.get());
                    seen.emplace_back(g.cpus, g.sgc.get());
                } else {
                    CHECK(it->second == g.sgc.get());
                }
            }
        // Level 0 groups: every single CPU; level 1: the 64 cores; level 2: the 2 nodes.
        const std::size_t expect[] = {128, 64, 2};
        CHECK(seen.size() == expect[level]);
    }
    // Writing through one CPU's copy is seen through another's.
    sched_group& g0 = d.lowest(0)->parent->groups.front();
    const int sibling_core_cpu = g0.cpus.back();
    sched_group* same = nullptr;
    for (sched_group& g : d.lowest(sibling_core_cpu)->parent->groups)
        if (g.cpus == g0.cpus)
            same = &g;
    REQUIRE(same != nullptr);
    g0.sgc->capacity = 777;
    CHECK(same->sgc->capacity == 777);
}

TEST_CASE("busy_factor is 16 on 5.15 and later") {
    for (const kernel_version k : versions) {
        sched_domains d(preset("4c8t"), k);
        for (int cpu = 0; cpu < d.nr_cpus(); ++cpu)
            for (const auto& sd : d.chain(cpu))
                CHECK(sd->busy_factor == 16);
    }
}

} // namespace test_sched_domain
