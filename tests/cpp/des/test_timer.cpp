// des/timer.hpp: one pending expiry, re-arming replaces it, cancel takes it back (also
// after it expired, without a trace), forward moves by whole intervals.
#include <catch2/catch.hpp>
#include <libsched/des/timer.hpp>
#include <vector>

using namespace libsched::des;

namespace test_timer {

namespace {

struct expiry_log {
    std::vector<time_point> fired;
    simulator* sim = nullptr;
    void on(std::uint64_t) { fired.push_back(sim->now()); }
};
using log_timer = timer<member_call<expiry_log, &expiry_log::on>>;

} // namespace

TEST_CASE("a timer fires once at its expiry") {
    simulator sim;
    expiry_log l{{}, &sim};
    log_timer t(sim, 0, {&l, 0});
    CHECK_FALSE(t.active());
    t.start(50);
    CHECK(t.active());
    CHECK(t.expires() == 50);
    sim.run(100);
    CHECK(l.fired == std::vector<time_point>{50});
    CHECK_FALSE(t.active());
    CHECK(sim.events_processed() == 1);
}

TEST_CASE("re-arming replaces the pending expiry") {
    simulator sim;
    expiry_log l{{}, &sim};
    log_timer t(sim, 0, {&l, 0});
    t.start(50);
    t.start(30);
    t.start_in(70);
    sim.run(1000);
    CHECK(l.fired == std::vector<time_point>{70});
    CHECK(sim.events_processed() == 1); // the replaced expiries count for nothing
}

TEST_CASE("cancel takes back a pending expiry, after expiry it is a no-op") {
    simulator sim;
    expiry_log l{{}, &sim};
    log_timer t(sim, 0, {&l, 0});
    t.start(50);
    CHECK(t.cancel());
    CHECK_FALSE(t.active());
    sim.run(100);
    CHECK(l.fired.empty());
    CHECK(sim.pending() == 0); // nothing left behind

    t.start(150);
    sim.run(200);
    CHECK_FALSE(t.cancel()); // already expired: nothing to cancel, nothing kept
    CHECK(sim.pending() == 0);
    t.start(250); // and it can be armed again
    sim.run(300);
    CHECK(l.fired == std::vector<time_point>{150, 250});
}

TEST_CASE("forward moves the expiry past now by whole intervals") {
    simulator sim;
    expiry_log l{{}, &sim};
    log_timer t(sim, 0, {&l, 0});
    t.start(10);
    sim.run(100);
    CHECK(t.forward(100, 25) == 4); // 10 -> 110
    CHECK(t.expires() == 110);
    CHECK(t.forward(100, 25) == 0);
    t.start(t.expires());
    sim.run(200);
    CHECK(l.fired == std::vector<time_point>{10, 110});
}

} // namespace test_timer
