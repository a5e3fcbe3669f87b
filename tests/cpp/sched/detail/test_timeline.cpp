// sched/detail/timeline.hpp: randomized inserts and erases against a brute-force list, in
// both orders (by deadline, augmented; by vruntime, plain), with duplicate keys and virtual
// times across the u64 wrap.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <libsched/sched/detail/timeline.hpp>
#include <random>
#include <vector>

using namespace libsched;

namespace test_timeline {

using libsched::detail::timeline;

namespace {

struct queued {
    sched_entity* se;
    std::uint64_t stamp; // insertion order
};

// All values of one run lie within 2^40 of base, so signed offsets from base order them
// the way the kernel's wrapping comparison does.
s64 offset(u64 v, u64 base) {
    return static_cast<s64>(v - base);
}

u64 key_of(const sched_entity& se, bool by_deadline) {
    return by_deadline ? se.deadline : se.vruntime;
}

// The brute-force tree: sorted by key, FIFO among equal keys.
std::vector<sched_entity*> expected_order(std::vector<queued> q, bool by_deadline, u64 base) {
    std::sort(q.begin(), q.end(),
              [](const queued& a, const queued& b) { return a.stamp < b.stamp; });
    std::stable_sort(q.begin(), q.end(), [&](const queued& a, const queued& b) {
        return offset(key_of(*a.se, by_deadline), base) < offset(key_of(*b.se, by_deadline), base);
    });
    std::vector<sched_entity*> out;
    for (const queued& e : q)
        out.push_back(e.se);
    return out;
}

std::vector<sched_entity*> traversal(const timeline& tl) {
    std::vector<sched_entity*> out;
    for (sched_entity* se = tl.first(); se != nullptr; se = tl.next(*se))
        out.push_back(se);
    return out;
}

void check_against(const timeline& tl, const std::vector<queued>& q, bool by_deadline, u64 base) {
    REQUIRE(tl.verify());
    REQUIRE(tl.size() == q.size());
    REQUIRE(tl.empty() == q.empty());
    if (q.empty()) {
        REQUIRE(tl.first() == nullptr);
        REQUIRE(tl.root() == nullptr);
        return;
    }
    const std::vector<sched_entity*> want = expected_order(q, by_deadline, base);
    REQUIRE(tl.first() == want.front());
    REQUIRE(traversal(tl) == want);
    s64 min_v = offset(q.front().se->vruntime, base);
    for (const queued& e : q)
        min_v = std::min(min_v, offset(e.se->vruntime, base));
    // The root's augmented minimum (EEVDF), or the leftmost's vruntime (the CFS tree).
    REQUIRE(tl.min_vruntime() == base + static_cast<u64>(min_v));
}

} // namespace

TEST_CASE("timeline matches a brute-force list under random inserts and erases") {
    constexpr std::size_t pool_size = 300;
    constexpr int ops = 6000;
    // Near the u64 wrap, near the s64 wrap, and an ordinary value.
    const u64 bases[] = {u64{0} - 40'000, (u64{1} << 63) - 40'000, 123'456'789};
    for (const bool by_deadline : {true, false}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const u64 base = bases[seed - 1];
            INFO("by_deadline " << by_deadline << ", seed " << seed);
            std::mt19937_64 rng(seed * 7919 + (by_deadline ? 1 : 0));
            // Keys from a small set (many duplicates) or a wide range (across the wrap).
            auto draw = [&]() -> u64 {
                const bool dup = rng() % 2 == 0;
                const s64 off = dup ? static_cast<s64>(rng() % 40) * 1000 - 20'000
                                    : static_cast<s64>(rng() % 2'000'000) - 1'000'000;
                return base + static_cast<u64>(off);
            };
            std::vector<sched_entity> pool(pool_size);
            std::vector<queued> q;
            std::vector<bool> in_tree(pool_size, false);
            timeline tl(by_deadline);
            REQUIRE(tl.by_deadline() == by_deadline);
            REQUIRE(tl.augmented() == by_deadline);
            std::uint64_t stamp = 0;
            for (int op = 0; op < ops; ++op) {
                const std::size_t i = rng() % pool_size;
                // Insert more often than erase while small, so the tree grows to ~200.
                const bool want_insert = rng() % 100 < (q.size() < 200 ? 70u : 40u);
                if (!in_tree[i] && want_insert) {
                    pool[i].vruntime = draw();
                    pool[i].deadline = draw();
                    tl.insert(pool[i]);
                    q.push_back({&pool[i], stamp++});
                    in_tree[i] = true;
                } else if (in_tree[i] && !want_insert) {
                    tl.erase(pool[i]);
                    q.erase(std::find_if(q.begin(), q.end(),
                                         [&](const queued& e) { return e.se == &pool[i]; }));
                    in_tree[i] = false;
                } else {
                    continue;
                }
                check_against(tl, q, by_deadline, base);
            }
            // Drain in random order.
            std::shuffle(q.begin(), q.end(), rng);
            while (!q.empty()) {
                tl.erase(*q.back().se);
                q.pop_back();
                check_against(tl, q, by_deadline, base);
            }
        }
    }
}

TEST_CASE("equal keys leave the timeline in insertion order") {
    for (const bool by_deadline : {true, false}) {
        std::vector<sched_entity> se(5);
        timeline tl(by_deadline);
        for (std::size_t i = 0; i < se.size(); ++i) {
            se[i].vruntime = 1000;
            se[i].deadline = 2000;
            tl.insert(se[i]);
        }
        CHECK(tl.first() == &se[0]);
        tl.erase(se[0]);
        CHECK(tl.first() == &se[1]);
        tl.insert(se[0]); // re-inserted: now the last of the equals
        std::vector<sched_entity*> order = traversal(tl);
        CHECK(order == std::vector<sched_entity*>{&se[1], &se[2], &se[3], &se[4], &se[0]});
    }
}

TEST_CASE("the order compares across the wrap: just past 2^64 is later") {
    sched_entity before_wrap, after_wrap;
    before_wrap.vruntime = before_wrap.deadline = u64{0} - 10;
    after_wrap.vruntime = after_wrap.deadline = 5; // 15 later, numerically smaller
    for (const bool by_deadline : {true, false}) {
        timeline tl(by_deadline);
        tl.insert(after_wrap);
        tl.insert(before_wrap);
        CHECK(tl.first() == &before_wrap);
        CHECK(tl.min_vruntime() == u64{0} - 10);
        tl.erase(before_wrap);
        tl.erase(after_wrap);
        CHECK(tl.empty());
    }
}

} // namespace test_timeline
