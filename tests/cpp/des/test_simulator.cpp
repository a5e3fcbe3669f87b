// des/simulator.hpp: the (time, order, sequence) order, refused events, run(until), step and
// peek.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/des/simulator.hpp>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

using namespace libsched::des;

namespace test_simulator {

namespace {

// Records what ran, and when: the payload names the event.
struct recorder final : handler {
    std::vector<std::uint64_t> ran;
    std::vector<time_point> at;
    bool fire(simulator& sim, std::uint64_t payload, event_id) override {
        ran.push_back(payload);
        at.push_back(sim.now());
        return true;
    }
};

// Schedules a follow-up event at the same instant and priority as itself.
struct chainer final : handler {
    recorder* rec = nullptr;
    int priority = 0;
    bool fire(simulator& sim, std::uint64_t payload, event_id id) override {
        rec->fire(sim, payload, id);
        sim.schedule_at(sim.now(), priority, *rec, payload + 1000);
        return true;
    }
};

} // namespace

TEST_CASE("events run in (time, priority, insertion) order") {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        std::mt19937_64 rng(seed);
        simulator sim;
        recorder rec;
        struct planned {
            time_point time;
            int priority;
            std::uint64_t order; // insertion order, also the payload
        };
        std::vector<planned> plan;
        // Few distinct times and priorities, so that many events tie on both.
        for (std::uint64_t i = 0; i < 2000; ++i) {
            const auto t = static_cast<time_point>(rng() % 20);
            const int prio = static_cast<int>(rng() % 3) - 1;
            plan.push_back({t, prio, i});
            sim.schedule_at(t, prio, rec, i);
        }
        std::stable_sort(plan.begin(), plan.end(), [](const planned& a, const planned& b) {
            return a.time != b.time ? a.time < b.time : a.priority < b.priority;
        });
        sim.run(100);
        REQUIRE(rec.ran.size() == plan.size());
        for (std::size_t i = 0; i < plan.size(); ++i) {
            INFO("seed " << seed << ", position " << i);
            CHECK(rec.ran[i] == plan[i].order);
            CHECK(rec.at[i] == plan[i].time);
        }
        CHECK(sim.events_processed() == plan.size());
    }
}

TEST_CASE("orders at the ends of their range sort as integers and one outside is refused") {
    simulator sim;
    recorder rec;
    const event_order orders[] = {event_order_max, 1, event_order_min, 0, -1};
    for (std::uint64_t i = 0; i < 5; ++i)
        sim.schedule_at(3, orders[i], rec, i);
    CHECK_THROWS_AS(sim.schedule_at(3, event_order_max + 1, rec, 9), std::out_of_range);
    CHECK_THROWS_AS(sim.schedule_at(3, event_order_min - 1, rec, 9), std::out_of_range);
    CHECK(sim.pending() == 5);
    sim.run(10);
    CHECK(rec.ran == std::vector<std::uint64_t>{2, 4, 3, 1, 0});

    const event_key k{-7, event_order_max, event_seq_limit - 1};
    CHECK(k.time() == -7);
    CHECK(k.order() == event_order_max);
    CHECK(k.seq() == event_seq_limit - 1);
    CHECK(k < event_key{-6, event_order_min, 0}); // time first, negative times included
    CHECK(event_key{-6, 0, 5} < event_key{-6, 0, 6});
    CHECK(event_key{std::numeric_limits<time_point>::min(), 0, 0} < event_key{0, 0, 0});
}

TEST_CASE("an event scheduled for now runs after the events already waiting at now") {
    simulator sim;
    recorder rec;
    chainer first;
    first.rec = &rec;
    first.priority = 0;
    sim.schedule_at(5, 0, first, 1);
    sim.schedule_at(5, 0, rec, 2);
    sim.schedule_at(5, 1, rec, 3); // lower priority: after the chained event of priority 0
    sim.run(10);
    CHECK(rec.ran == std::vector<std::uint64_t>{1, 2, 1001, 3});
}

// Accepts only the ids it was told to expect, as a timer that was re-armed or cancelled.
struct picky final : handler {
    std::vector<event_id> accept;
    std::vector<std::uint64_t> ran;
    bool fire(simulator&, std::uint64_t payload, event_id id) override {
        if (std::find(accept.begin(), accept.end(), id) == accept.end())
            return false;
        ran.push_back(payload);
        return true;
    }
};

TEST_CASE("a refused event does not run, count or move the clock") {
    simulator sim;
    picky h;
    sim.schedule_at(10, 0, h, 1);
    h.accept.push_back(sim.schedule_at(20, 0, h, 2));
    sim.schedule_at(30, 0, h, 3);
    CHECK(sim.pending() == 3);
    CHECK(sim.step());
    CHECK(sim.now() == 20);
    CHECK(h.ran == std::vector<std::uint64_t>{2});
    CHECK_FALSE(sim.step()); // only a refused one was left
    CHECK(sim.now() == 20);
    CHECK(sim.events_processed() == 1);
    CHECK(sim.pending() == 0);
}

TEST_CASE("step(until) runs nothing at or after until") {
    simulator sim;
    recorder rec;
    sim.schedule_at(10, 0, rec, 1);
    CHECK_FALSE(sim.step(10));
    CHECK(sim.step(11));
    CHECK(rec.ran == std::vector<std::uint64_t>{1});
}

TEST_CASE("run(until) runs the events before until, then sets the clock to until") {
    simulator sim;
    recorder rec;
    sim.schedule_at(99, 0, rec, 1);
    sim.schedule_at(100, 0, rec, 2); // exactly at until: left for later
    sim.schedule_at(150, 0, rec, 3);
    sim.run(100);
    CHECK(sim.now() == 100);
    CHECK(rec.ran == std::vector<std::uint64_t>{1});
    CHECK(sim.peek() == 100);

    sim.run(101);
    CHECK(sim.now() == 101);
    CHECK(rec.ran == std::vector<std::uint64_t>{1, 2});

    sim.run(1000); // runs the last event, then idles to until
    CHECK(sim.now() == 1000);
    CHECK(rec.ran == std::vector<std::uint64_t>{1, 2, 3});

    simulator empty;
    empty.run(42);
    CHECK(empty.now() == 42);
}

TEST_CASE("schedule_in is relative to now") {
    simulator sim;
    recorder rec;
    sim.run(1000);
    sim.schedule_in(25, 0, rec, 1);
    CHECK(sim.peek() == 1025);
}

TEST_CASE("stop() ends run() after the current event, without moving the clock on") {
    struct stopper final : handler {
        bool fire(simulator& sim, std::uint64_t, event_id) override {
            sim.stop();
            return true;
        }
    } stop_h;
    simulator sim;
    recorder rec;
    sim.schedule_at(10, 0, stop_h);
    sim.schedule_at(20, 0, rec, 1);
    sim.run(100);
    CHECK(sim.now() == 10);
    CHECK(rec.ran.empty());
    sim.run(100); // a new run() starts again
    CHECK(rec.ran == std::vector<std::uint64_t>{1});
    CHECK(sim.now() == 100);
}

TEST_CASE("step and peek") {
    simulator sim;
    recorder rec;
    CHECK(sim.peek() == std::numeric_limits<time_point>::max());
    CHECK_FALSE(sim.step());
    CHECK(sim.now() == 0);

    sim.schedule_at(30, 0, rec, 1);
    sim.schedule_at(20, 5, rec, 2);
    sim.schedule_at(20, -5, rec, 3);
    CHECK(sim.peek() == 20);
    CHECK(sim.step());
    CHECK(sim.now() == 20);
    CHECK(rec.ran == std::vector<std::uint64_t>{3});
    CHECK(sim.peek() == 20);
    CHECK(sim.step());
    CHECK(rec.ran == std::vector<std::uint64_t>{3, 2});
    CHECK(sim.peek() == 30);
    CHECK(sim.step());
    CHECK(sim.now() == 30);
    CHECK_FALSE(sim.step());
    CHECK(sim.now() == 30);
    CHECK(sim.events_processed() == 3);
}

TEST_CASE("the event queue pops in key order under interleaved pushes and pops") {
    std::mt19937_64 rng(7);
    event_queue q;
    std::vector<event_key> oracle; // kept sorted
    event_id seq = 0;
    for (int step = 0; step < 20000; ++step) {
        if (oracle.empty() || rng() % 3 != 0) {
            const event_key k{static_cast<time_point>(rng() % 50), static_cast<int>(rng() % 3),
                              seq++};
            q.push({k, nullptr, 0});
            oracle.insert(std::upper_bound(oracle.begin(), oracle.end(), k), k);
        } else {
            REQUIRE(q.top().key == oracle.front());
            REQUIRE(q.pop().key == oracle.front());
            oracle.erase(oracle.begin());
        }
        REQUIRE(q.size() == oracle.size());
    }
}

TEST_CASE("an event in the past or a time past the representable is refused, not clamped") {
    simulator sim;
    recorder rec;
    sim.schedule_at(100, 0, rec, 1);
    REQUIRE(sim.step());
    CHECK(sim.now() == 100);
    CHECK_THROWS_AS(sim.schedule_at(99, 0, rec, 2), std::logic_error);
    CHECK_THROWS_AS(sim.schedule_in(std::numeric_limits<time_point>::max() - 50, 0, rec, 3),
                    std::overflow_error);
    CHECK_THROWS_AS(sim.after(-1), std::overflow_error);
    CHECK(sim.after(std::numeric_limits<time_point>::max() - 100) ==
          std::numeric_limits<time_point>::max());
    CHECK(sim.pending() == 0); // nothing refused was queued
}

TEST_CASE("an interrupt stops run() before the next event and keeps the clock there") {
    simulator sim;
    std::atomic<bool> flag{false};
    // The handler raises the flag at t = 20, as a signal arriving during that event would.
    struct raiser final : handler {
        std::atomic<bool>* flag = nullptr;
        std::vector<time_point> at;
        bool fire(simulator& s, std::uint64_t, event_id) override {
            at.push_back(s.now());
            if (s.now() == 20)
                flag->store(true);
            return true;
        }
    } h;
    h.flag = &flag;
    for (const time_point t : {10, 20, 30, 40})
        sim.schedule_at(t, 0, h);
    sim.interrupt_on(&flag);
    sim.run(100);
    CHECK(h.at == std::vector<time_point>{10, 20});
    CHECK(sim.now() == 20);
    CHECK(sim.interrupted());
    // Cleared, the run goes on where it stopped.
    flag = false;
    sim.run(100);
    CHECK(h.at == std::vector<time_point>{10, 20, 30, 40});
    CHECK(sim.now() == 100);
}

TEST_CASE("a keyed draw takes nothing from the seeded stream") {
    const distribution u{distribution::kind::uniform, 0, 1'000'000};
    simulator a(5), b(5), c(6);
    const std::int64_t x = a.keyed_draw(u, 1, 4'000'000);
    CHECK(a.keyed_draw(u, 1, 4'000'000) == x);
    CHECK(b.keyed_draw(u, 1, 4'000'000) == x);
    CHECK(a.rng().next_u64() == b.rng().next_u64());
    // The seed is part of the key: over 100 keys two seeds agree by chance at most rarely.
    int agree = 0;
    for (std::uint64_t k = 0; k < 100; ++k)
        agree += a.keyed_draw(u, 0, k) == c.keyed_draw(u, 0, k);
    CHECK(agree <= 1);
}

} // namespace test_simulator
