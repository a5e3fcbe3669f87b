// The container runtimes' CPU conversions (scenario/container_cpu.hpp) against the worked
// values their projects publish, and the cpu_request / cpu_limit keys that use them.
#include <catch2/catch.hpp>
#include <libsched/io/scenario_toml.hpp>
#include <libsched/scenario/cgroups.hpp>
#include <libsched/scenario/container_cpu.hpp>

using namespace libsched;

namespace test_container_cpu {

TEST_CASE("kubelet: requests to cpu.shares, limits to a quota") {
    CHECK(milli_cpu_to_shares(0) == 2); // MinShares for a zero request
    CHECK(milli_cpu_to_shares(1) == 2); // 1.024 truncates to 1, raised to 2
    CHECK(milli_cpu_to_shares(100) == 102);
    CHECK(milli_cpu_to_shares(500) == 512);
    CHECK(milli_cpu_to_shares(1000) == 1024);
    CHECK(milli_cpu_to_shares(2500) == 2560);
    CHECK(milli_cpu_to_shares(1'000'000) == 262'144); // MaxShares
    CHECK(milli_cpu_to_quota_us(0) == 0);             // no limit
    CHECK(milli_cpu_to_quota_us(5) == 1000);          // at least 1 ms
    CHECK(milli_cpu_to_quota_us(250) == 25'000);
    CHECK(milli_cpu_to_quota_us(2000) == 200'000); // cpu.max "200000 100000"
    CHECK(milli_cpu_to_quota_us(1500, 50'000) == 75'000);
}

TEST_CASE("shares to cpu.weight: the linear and the log-quadratic runtimes") {
    using f = shares_to_weight_formula;
    // runc <= 1.3.1: 1024 shares (one CPU) became weight 39, 2000 became 77.
    CHECK(cpu_shares_to_weight(2, f::linear) == 1);
    CHECK(cpu_shares_to_weight(1024, f::linear) == 39);
    CHECK(cpu_shares_to_weight(2000, f::linear) == 77);
    CHECK(cpu_shares_to_weight(262'144, f::linear) == 10'000);
    // runc 1.3.2+: 2000 -> 170, 22000 -> 1204; min, default and max are kept.
    CHECK(cpu_shares_to_weight(2, f::log_quadratic) == 1);
    CHECK(cpu_shares_to_weight(1024, f::log_quadratic) == 100);
    CHECK(cpu_shares_to_weight(2000, f::log_quadratic) == 170);
    CHECK(cpu_shares_to_weight(22'000, f::log_quadratic) == 1204);
    CHECK(cpu_shares_to_weight(262'144, f::log_quadratic) == 10'000);
    CHECK(cpu_shares_to_weight(512, f::log_quadratic) == 59);
    CHECK(cpu_shares_to_weight(102, f::log_quadratic) == 17); // 100m
    // systemd: shares * 100 / 1024 within [1, 10000].
    CHECK(cpu_shares_to_weight(1024, f::systemd) == 100);
    CHECK(cpu_shares_to_weight(2, f::systemd) == 1);
    CHECK(cpu_shares_to_weight(512, f::systemd) == 50);
    for (const f formula : {f::linear, f::log_quadratic, f::systemd})
        CHECK(cpu_shares_to_weight(0, formula) == 0); // unset
    // Monotonic over the whole range.
    std::uint64_t last = 0;
    for (std::uint64_t s = 2; s <= 262'144; s += 37) {
        const std::uint64_t w = cpu_shares_to_weight(s, f::log_quadratic);
        CHECK(w >= last);
        last = w;
    }
}

TEST_CASE("CPU quantities in millicores") {
    CHECK(parse_cpu_quantity("500m") == 500);
    CHECK(parse_cpu_quantity("2") == 2000);
    CHECK(parse_cpu_quantity("0.25") == 250);
    CHECK(parse_cpu_quantity("1.5") == 1500);
    CHECK(parse_cpu_quantity(".5") == 500);
    CHECK_FALSE(parse_cpu_quantity("1.2345"));
    CHECK_FALSE(parse_cpu_quantity("-1"));
    CHECK_FALSE(parse_cpu_quantity("m"));
    CHECK_FALSE(parse_cpu_quantity("2."));
    CHECK_FALSE(parse_cpu_quantity("two"));
    CHECK_FALSE(parse_cpu_quantity(""));
}

TEST_CASE("cpu_request sets a group's weight by the machine's cgroup version and runtime") {
    cgroup_spec g;
    g.name = "pod";
    g.cpu_request = 500;
    machine_spec m;
    m.cgroup_version = 1;
    CHECK(cgroup_shares(g, m) == scale_load(512));
    m.cgroup_version = 2; // 512 shares -> weight 59 -> 604 (sched_weight_from_cgroup)
    CHECK(cgroup_shares(g, m) == scale_load(604));
    m.shares_to_weight = shares_to_weight_formula::linear; // weight 20 -> 205
    CHECK(cgroup_shares(g, m) == scale_load(205));
}

// Read without the checks: the quota a limit gives is refused until CFS bandwidth control
// is modelled.
scenario read_only(const char* text) {
    detail::read_log log;
    scenario sc = detail::read_scenario(toml::parse(text), "pod", log, {});
    REQUIRE(log.errors().empty());
    return sc;
}

TEST_CASE("cpu_request and cpu_limit in a scenario file") {
    const scenario sc = read_only(R"(
[machine]
cgroup_version = 2
shares_to_weight = "linear"
[[cgroups]]
name = "pod"
cpu_request = "250m"
cpu_limit = 1.5
[[tasks]]
name = "a"
cgroup = "pod"
)");
    REQUIRE(sc.cgroups.size() == 1);
    CHECK(sc.machine.shares_to_weight == shares_to_weight_formula::linear);
    CHECK(sc.cgroups[0].cpu_request == 250);
    CHECK(sc.cgroups[0].quota == 150 * nsec_per_msec);
    CHECK(sc.cgroups[0].period == 100 * nsec_per_msec);
    CHECK(read_only("[[cgroups]]\nname = \"p\"\ncpu_request = 2\n").cgroups[0].cpu_request == 2000);
    CHECK_THROWS_WITH(parse_scenario(R"(
[[cgroups]]
name = "pod"
cpu_limit = "2"
quota = "50ms"
)",
                                     "both.toml"),
                      Catch::Contains("cpu_limit"));
    CHECK_THROWS_WITH(parse_scenario(R"(
[[cgroups]]
name = "pod"
cpu_request = "1.2345"
)",
                                     "digits.toml"),
                      Catch::Contains("cpu_request"));
}

TEST_CASE("cpu_request conflicts with the weight keys") {
    scenario sc;
    sc.machine.cgroup_version = 1;
    cgroup_spec g;
    g.name = "pod";
    g.cpu_request = 100;
    g.shares = 512;
    sc.cgroups = {g};
    bool found = false;
    for (const auto& e : check_scenario(sc).errors)
        found = found || e.field == "cgroups[0].cpu_request";
    CHECK(found);
}

} // namespace test_container_cpu
