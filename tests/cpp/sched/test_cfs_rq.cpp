// sched/cfs_rq.hpp: V, eligibility and min_vruntime under random queue operations,
// against brute-force sums over the queued entities.
#include "random_cfs_rq.hpp"
#include <catch2/catch.hpp>
#include <libsched/sched/cfs_rq.hpp>

using namespace libsched;

namespace test_cfs_rq {

using libsched::testing::random_cfs_rq;

TEST_CASE("avg_vruntime is the floored load-weighted mean of the queue, curr included") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        random_cfs_rq h(seed);
        for (int i = 0; i < 5000; ++i) {
            h.step();
            INFO("seed " << seed << ", step " << i);
            REQUIRE(avg_vruntime(h.q) == h.brute_avg_vruntime());
        }
    }
}

TEST_CASE("vruntime_eligible is lag >= 0, compared without division") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        random_cfs_rq h(seed + 100);
        for (int i = 0; i < 3000; ++i) {
            h.step();
            INFO("seed " << seed << ", step " << i);
            const auto eligible = h.brute_eligibility();
            for (const sched_entity* se : h.candidates())
                REQUIRE(entity_eligible(h.q, *se) == eligible(se->vruntime));
            // Around V, where the rounding of V would mislead a division-based test.
            const u64 v = h.brute_avg_vruntime();
            for (s64 d = -2; d <= 2; ++d) {
                const u64 probe = v + static_cast<u64>(d);
                REQUIRE(vruntime_eligible(h.q, probe) == eligible(probe));
            }
        }
    }
}

TEST_CASE("the weighted lags of the queue sum to zero, up to the rounding of V") {
    // V = floor(mean), so sum w (V - v) = W * (V - mean) lies in (-W, 0].
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        random_cfs_rq h(seed + 200);
        for (int i = 0; i < 3000; ++i) {
            h.step();
            const u64 v = avg_vruntime(h.q);
            s128 sum = 0, load = 0;
            for (const sched_entity* se : h.candidates()) {
                const s128 w = static_cast<s128>(scale_load_down(se->load.weight));
                sum += w * static_cast<s64>(v - se->vruntime);
                load += w;
            }
            INFO("seed " << seed << ", step " << i);
            REQUIRE(sum <= 0);
            REQUIRE((load == 0 || sum > -load));
        }
    }
}

TEST_CASE("min_vruntime follows the smallest queued vruntime and never goes back") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        random_cfs_rq h(seed + 300);
        for (int i = 0; i < 3000; ++i) {
            const u64 before = h.q.min_vruntime;
            h.step();
            const u64 v_before_update = avg_vruntime(h.q);
            update_min_vruntime(h.q);
            INFO("seed " << seed << ", step " << i);
            // Never backwards.
            REQUIRE(static_cast<s64>(h.q.min_vruntime - before) >= 0);
            // Not past any queued entity; equal to the smallest one unless that is behind
            // the old value.
            const auto c = h.candidates();
            if (!c.empty()) {
                s64 lowest = static_cast<s64>(c.front()->vruntime - before);
                for (const sched_entity* se : c)
                    lowest = std::min(lowest, static_cast<s64>(se->vruntime - before));
                const u64 want = lowest > 0 ? before + static_cast<u64>(lowest) : before;
                REQUIRE(h.q.min_vruntime == want);
            }
            // Moving the reference point leaves V where it was.
            REQUIRE(avg_vruntime(h.q) == v_before_update);
        }
    }
}

TEST_CASE("an empty queue has V = min_vruntime, which starts just below zero") {
    cfs_rq q;
    CHECK(q.min_vruntime == u64{0} - (u64{1} << 20));
    CHECK(avg_vruntime(q) == q.min_vruntime);
    CHECK(q.nr_queued == 0);
    CHECK(q.load.weight == 0);
}

TEST_CASE("V of two nice-0 entities is their midpoint, floored") {
    cfs_rq q;
    sched_entity a, b;
    a.load = b.load = task_load_weight(0, false);
    a.vruntime = q.min_vruntime + 1000;
    b.vruntime = q.min_vruntime + 2001;
    a.on_rq = b.on_rq = true;
    timeline_insert(q, a);
    timeline_insert(q, b);
    CHECK(avg_vruntime(q) == q.min_vruntime + 1500); // 1500.5 floored
    CHECK(entity_eligible(q, a));
    CHECK_FALSE(entity_eligible(q, b));
    // Below min_vruntime the floor goes toward -inf: -1500.5 -> -1501.
    timeline_erase(q, b);
    b.vruntime = q.min_vruntime - 4001;
    timeline_insert(q, b);
    CHECK(avg_vruntime(q) == q.min_vruntime - 1501);
}

} // namespace test_cfs_rq
