// model/launch.hpp: each instance's fork time from start, stagger and after.
#include <algorithm>
#include <catch2/catch.hpp>
#include <libsched/model/launch.hpp>

using namespace libsched;

namespace test_launch {

namespace {

task_spec entry(const std::string& name, int count, distribution stagger) {
    task_spec t;
    t.name = name;
    t.count = count;
    t.stagger = stagger;
    return t;
}

} // namespace

TEST_CASE("a constant stagger forks instance i at start + i * gap and draws nothing") {
    scenario sc;
    sc.tasks = {entry("a", 3, {distribution::kind::constant, 250'000, 0})};
    sc.tasks[0].start = nsec_per_msec;
    des::random_source rng(7), untouched(7);
    const auto forks = fork_times(sc, rng);
    CHECK(forks[0] == std::vector<sim_time>{1'000'000, 1'250'000, 1'500'000});
    CHECK(rng.next_u64() == untouched.next_u64());
}

TEST_CASE("drawn gaps lie within their bounds, and an entry after another follows its last") {
    const distribution gap{distribution::kind::uniform, nsec_per_msec, 3 * nsec_per_msec};
    scenario sc;
    sc.tasks = {entry("a", 2, gap), entry("b", 2, gap)};
    sc.tasks[1].after = "a";
    des::random_source rng(1);
    const auto forks = fork_times(sc, rng);
    REQUIRE(forks.size() == 2);
    CHECK(forks[0][0] == 0);
    const std::vector<sim_time> all = {forks[0][0], forks[0][1], forks[1][0], forks[1][1]};
    for (std::size_t i = 1; i < all.size(); ++i) {
        CHECK(all[i] - all[i - 1] >= gap.a);
        CHECK(all[i] - all[i - 1] <= gap.b);
    }
    // The same seed gives the same launch; another seed, another one.
    des::random_source same(1), other(2);
    CHECK(fork_times(sc, same) == forks);
    CHECK(fork_times(sc, other) != forks);
}

TEST_CASE("a drawn start is drawn for each launch within its bounds, before the gaps") {
    const distribution tick{distribution::kind::uniform, 0, 4 * nsec_per_msec - 1};
    scenario sc;
    sc.tasks = {entry("a", 2, {distribution::kind::constant, nsec_per_msec, 0})};
    sc.tasks[0].start_drawn = tick;
    std::vector<sim_time> starts;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        des::random_source rng(seed), expected(seed);
        const auto forks = fork_times(sc, rng);
        CHECK(forks[0][0] == expected.draw(tick)); // the first draw of the repetition
        CHECK(forks[0][1] == forks[0][0] + nsec_per_msec);
        CHECK(forks[0][0] >= tick.a);
        CHECK(forks[0][0] <= tick.b);
        starts.push_back(forks[0][0]);
    }
    std::sort(starts.begin(), starts.end());
    CHECK(std::unique(starts.begin(), starts.end()) - starts.begin() > 15); // they differ
}

TEST_CASE("instances past the end of the run stop the clock there: no overflow") {
    scenario sc;
    sc.length = nsec_per_sec;
    // 100,000 instances 10^7 s apart would fork at 10^12 s: beyond int64 nanoseconds.
    sc.tasks = {entry("a", 100'000, {distribution::kind::constant, 10'000'000 * nsec_per_sec, 0})};
    des::random_source rng(1);
    const auto forks = fork_times(sc, rng);
    CHECK(forks[0][0] == 0);
    CHECK(forks[0][1] == 10'000'000 * nsec_per_sec); // past the end: never starts
    CHECK(forks[0].back() == forks[0][1]);
    CHECK(std::all_of(forks[0].begin() + 1, forks[0].end(),
                      [&](sim_time t) { return t > sc.length; }));
}

} // namespace test_launch
