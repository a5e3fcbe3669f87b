// sched/eevdf.hpp: pick_eevdf against an O(n) oracle, and the entity rules (deadline,
// placement, lag) against the kernel reference's formulas.
#include "random_cfs_rq.hpp"
#include <catch2/catch.hpp>
#include <libsched/sched/eevdf.hpp>
#include <string>

using namespace libsched;

namespace test_eevdf {

using libsched::testing::random_cfs_rq;

namespace {

fair_params params_for(kernel_version v, int online_cpus = 8, int hz = 250) {
    return fair_params(v, default_tunables(v, online_cpus, hz));
}

bool oracle_protected(const fair_params& p, const sched_entity& curr) {
    if (p.version >= kernel_version{6, 17})
        return static_cast<s64>(curr.vprot - curr.vruntime) > 0; // vruntime < vprot
    return p.feat(feature::run_to_parity) && static_cast<u64>(curr.vlag) == curr.deadline;
}

// The kernel's pick written as a search over every entity: the eligible entity with the
// earliest deadline (the earlier-inserted one among equal deadlines in the tree; a tie
// between curr and a tree entity goes to the tree entity), curr if RUN_TO_PARITY protects
// it, the only entity without any test on 6.8+, and the leftmost if nothing is eligible.
const sched_entity* oracle_pick(const fair_params& p, const random_cfs_rq& h) {
    const cfs_rq& q = h.q;
    const sched_entity* curr = q.curr != nullptr && q.curr->on_rq ? q.curr : nullptr;
    std::vector<const sched_entity*> tree;
    for (const sched_entity* se = q.tasks_timeline.first(); se != nullptr;
         se = q.tasks_timeline.next(*se))
        tree.push_back(se);
    if (p.version >= kernel_version{6, 8} && q.nr_queued == 1)
        return curr != nullptr ? curr : tree.front();
    const auto eligible = h.brute_eligibility();
    if (curr != nullptr && !eligible(curr->vruntime))
        curr = nullptr;
    if (curr != nullptr && oracle_protected(p, *curr))
        return curr;
    const sched_entity* best = nullptr;
    for (const sched_entity* se : tree) {
        if (!eligible(se->vruntime))
            continue;
        if (best == nullptr) {
            best = se;
            continue;
        }
        const s64 d = static_cast<s64>(se->deadline - best->deadline);
        if (d < 0 || (d == 0 && h.stamp(*se) < h.stamp(*best)))
            best = se;
    }
    if (best == nullptr ||
        (curr != nullptr && static_cast<s64>(curr->deadline - best->deadline) < 0))
        best = curr;
    return best != nullptr ? best : (tree.empty() ? nullptr : tree.front());
}

} // namespace

TEST_CASE("pick_eevdf equals an O(n) search for the eligible earliest deadline") {
    const kernel_version versions[] = {{6, 8}, {6, 12}, {6, 17}};
    for (const kernel_version v : versions) {
        for (const bool parity : {true, false}) {
            fair_params p = params_for(v);
            p.feat.set(feature::run_to_parity, parity);
            // Small queues, where curr often wins, and larger ones.
            for (const std::size_t pool : {4u, 8u, 24u, 96u}) {
                random_cfs_rq h(pool * 31 + static_cast<std::uint64_t>(v.minor), pool);
                int picks = 0, curr_picked = 0, past_leftmost = 0;
                for (int i = 0; i < 4000; ++i) {
                    h.step();
                    if (h.q.nr_queued == 0)
                        continue;
                    INFO(v.str() << ", RUN_TO_PARITY " << parity << ", pool " << pool << ", step "
                                 << i);
                    const sched_entity* want = oracle_pick(p, h);
                    const sched_entity* got = eevdf::pick_eevdf(p, h.q);
                    REQUIRE(got == want);
                    ++picks;
                    curr_picked += got == h.q.curr ? 1 : 0;
                    past_leftmost += got != h.q.curr && got != h.q.tasks_timeline.first() ? 1 : 0;
                }
                // The mix must exercise curr, the leftmost and the descent past it.
                INFO(v.str() << ", RUN_TO_PARITY " << parity << ", pool " << pool);
                CHECK(picks > 3000);
                CHECK(curr_picked > 20);
                CHECK(picks - curr_picked - past_leftmost > 20);
                CHECK(past_leftmost > 20);
            }
        }
    }
}

namespace {
// An entity of the given nice, queued in the tree with all accounting.
void enqueue_at(cfs_rq& q, sched_entity& se, int nice, u64 vruntime, duration slice) {
    se.load = task_load_weight(nice, false);
    se.vruntime = vruntime;
    se.slice = slice;
    se.deadline = vruntime + calc_delta_fair(static_cast<u64>(slice), se.load);
    se.on_rq = true;
    account_entity_enqueue(q, se);
    timeline_insert(q, se);
}
} // namespace

TEST_CASE("update_deadline starts a new request from the current vruntime") {
    const fair_params p = params_for({6, 12}); // 8 CPUs: base slice 4 x 0.75 ms = 3 ms
    sched_entity se;
    se.load = task_load_weight(0, false);
    se.vruntime = 10'000'000;
    se.deadline = 10'000'001;
    CHECK_FALSE(eevdf::update_deadline(p, se)); // not reached yet: nothing changes
    CHECK(se.deadline == 10'000'001);
    CHECK(se.slice == 0);

    se.vruntime = 10'000'777; // 776 ns past the deadline: forgiven, not carried over
    CHECK(eevdf::update_deadline(p, se));
    CHECK(se.slice == 3'000'000);
    CHECK(se.deadline == 13'000'777);

    // Exactly at the deadline counts as reached (vruntime < deadline is false).
    se.vruntime = se.deadline;
    CHECK(eevdf::update_deadline(p, se));
    CHECK(se.deadline == 16'000'777);

    // nice 5: the virtual slice is 3 ms * 1024 / 335 = 9,170,149.25 ns.
    se.load = task_load_weight(5, false);
    se.vruntime = se.deadline;
    const u64 start = se.vruntime;
    CHECK(eevdf::update_deadline(p, se));
    CHECK(se.deadline - start == calc_delta_fair(3'000'000, se.load));
    CHECK(std::llabs(static_cast<long long>(se.deadline - start) - 9'170'149) <= 1);

    // A custom slice is kept; 6.15+ uses 4 x 0.70 ms.
    sched_entity custom;
    custom.load = task_load_weight(0, false);
    custom.custom_slice = true;
    custom.slice = 1'000'000;
    CHECK(eevdf::update_deadline(p, custom));
    CHECK(custom.deadline == 1'000'000);
    sched_entity late;
    late.load = task_load_weight(0, false);
    CHECK(eevdf::update_deadline(params_for({6, 15}), late));
    CHECK(late.deadline == 2'800'000);
}

TEST_CASE("a new task on an empty queue starts at V with half a slice") {
    const fair_params p = params_for({6, 12});
    cfs_rq q;
    sched_entity se;
    se.load = task_load_weight(0, false);
    se.vlag = 123'456; // an empty queue discards any lag
    eevdf::place_entity(p, q, se, enqueue_flags::initial);
    CHECK(se.vruntime == q.min_vruntime); // V of an empty queue
    CHECK(se.deadline == q.min_vruntime + 1'500'000);
    CHECK(se.slice == 3'000'000);

    // Without ENQUEUE_INITIAL, or with PLACE_DEADLINE_INITIAL off: the whole slice.
    eevdf::place_entity(p, q, se, enqueue_flags::none);
    CHECK(se.deadline == q.min_vruntime + 3'000'000);
    fair_params no_half = p;
    no_half.feat.set(feature::place_deadline_initial, false);
    eevdf::place_entity(no_half, q, se, enqueue_flags::initial);
    CHECK(se.deadline == q.min_vruntime + 3'000'000);

    // nice 10: half of its virtual slice (3 ms * 1024 / 110 = 27.9 ms).
    se.load = task_load_weight(10, false);
    eevdf::place_entity(p, q, se, enqueue_flags::initial);
    CHECK(se.deadline - se.vruntime == calc_delta_fair(3'000'000, se.load) / 2);
}

TEST_CASE("placement inflates the saved lag by (W + w) / W so that it survives insertion") {
    const fair_params p = params_for({6, 12});
    SECTION("one nice-0 entity queued, a nice-0 wakee with lag 1000") {
        cfs_rq q;
        sched_entity a, se;
        const u64 x = q.min_vruntime + 5'000'000;
        enqueue_at(q, a, 0, x, 3'000'000);
        se.load = task_load_weight(0, false);
        se.vlag = 1000;
        eevdf::place_entity(p, q, se, enqueue_flags::none);
        CHECK(se.vruntime == x - 2000); // 1000 * (1024 + 1024) / 1024
        CHECK(se.deadline == se.vruntime + 3'000'000);
        timeline_insert(q, se);
        CHECK(static_cast<s64>(avg_vruntime(q) - se.vruntime) == 1000);
    }
    SECTION("three nice-0 entities, a nice-5 wakee with lag -1001: truncated toward zero") {
        cfs_rq q;
        sched_entity a, b, c, se;
        const u64 x = q.min_vruntime + 7'000'000;
        enqueue_at(q, a, 0, x, 3'000'000);
        enqueue_at(q, b, 0, x, 3'000'000);
        enqueue_at(q, c, 0, x, 3'000'000);
        se.load = task_load_weight(5, false);
        se.vlag = -1001;
        eevdf::place_entity(p, q, se, enqueue_flags::none);
        // -1001 * (3072 + 335) / 3072 = -1110.16 -> -1110
        CHECK(se.vruntime == x + 1110);
        timeline_insert(q, se);
        // V' = x + floor(335 * 1110 / 3407) = x + 109: the lag is -1001 again.
        CHECK(static_cast<s64>(avg_vruntime(q) - se.vruntime) == -1001);
    }
    SECTION("curr counts in W") {
        cfs_rq q;
        sched_entity curr, se;
        const u64 x = q.min_vruntime + 3'000'000;
        curr.load = task_load_weight(0, false);
        curr.vruntime = x;
        curr.on_rq = true;
        account_entity_enqueue(q, curr);
        q.curr = &curr;
        se.load = task_load_weight(0, false);
        se.vlag = -500;
        eevdf::place_entity(p, q, se, enqueue_flags::none);
        CHECK(se.vruntime == x + 1000);
    }
    SECTION("PLACE_LAG off: placed at V") {
        fair_params no_lag = p;
        no_lag.feat.set(feature::place_lag, false);
        cfs_rq q;
        sched_entity a, se;
        const u64 x = q.min_vruntime + 5'000'000;
        enqueue_at(q, a, 0, x, 3'000'000);
        se.load = task_load_weight(0, false);
        se.vlag = 1000;
        eevdf::place_entity(no_lag, q, se, enqueue_flags::none);
        CHECK(se.vruntime == x);
    }
    SECTION("6.12 PLACE_REL_DEADLINE: a relative deadline is re-based") {
        cfs_rq q;
        sched_entity a, se;
        const u64 x = q.min_vruntime + 5'000'000;
        enqueue_at(q, a, 0, x, 3'000'000);
        se.load = task_load_weight(0, false);
        se.rel_deadline = true;
        se.deadline = 777;
        eevdf::place_entity(p, q, se, enqueue_flags::none);
        CHECK(se.vruntime == x);
        CHECK(se.deadline == x + 777);
        CHECK_FALSE(se.rel_deadline);
    }
}

TEST_CASE("update_entity_lag clamps to the virtual max(2 * slice, TICK_NSEC)") {
    cfs_rq q;
    sched_entity a, b;
    const u64 x = q.min_vruntime + 1'000'000;
    enqueue_at(q, a, 0, x, 3'000'000);
    enqueue_at(q, b, 0, x + 100'000'000, 3'000'000); // V = x + 50 ms
    // HZ 250: TICK_NSEC 4 ms < 2 x 3 ms, the limit is 6 ms.
    const fair_params hz250 = params_for({6, 12}, 8, 250);
    eevdf::update_entity_lag(hz250, q, a);
    eevdf::update_entity_lag(hz250, q, b);
    CHECK(a.vlag == 6'000'000);
    CHECK(b.vlag == -6'000'000);
    // HZ 100: TICK_NSEC 10 ms > 6 ms.
    const fair_params hz100 = params_for({6, 12}, 8, 100);
    eevdf::update_entity_lag(hz100, q, a);
    CHECK(a.vlag == 10'000'000);
    // A lag inside the limit is V - vruntime exactly.
    cfs_rq q2;
    sched_entity c, d;
    enqueue_at(q2, c, 0, x, 3'000'000);
    enqueue_at(q2, d, 0, x + 2'000'001, 3'000'000); // V = x + 1'000'000 (floored)
    eevdf::update_entity_lag(hz250, q2, c);
    eevdf::update_entity_lag(hz250, q2, d);
    CHECK(c.vlag == 1'000'000);
    CHECK(d.vlag == -1'000'001);
    // nice 5: the limit is 6 ms of its virtual time, 6 ms * 1024 / 335 = 18.34 ms.
    cfs_rq q3;
    sched_entity e, f;
    enqueue_at(q3, e, 0, x, 3'000'000);
    enqueue_at(q3, f, 5, x + 500'000'000, 3'000'000);
    eevdf::update_entity_lag(hz250, q3, f);
    CHECK(f.vlag == -static_cast<s64>(calc_delta_fair(6'000'000, f.load)));
    CHECK(std::llabs(f.vlag + 18'340'298) <= 1);
}

TEST_CASE("6.18.17+, 6.19.7+: the lag clamp is the longest slice queued plus a tick") {
    // a with a 3 ms slice, b with 1 ms, V = x + 50 ms: each lag is far past any limit.
    cfs_rq q;
    sched_entity a, b;
    const u64 x = q.min_vruntime + 1'000'000;
    enqueue_at(q, a, 0, x, 3'000'000);
    enqueue_at(q, b, 0, x + 100'000'000, 1'000'000);
    CHECK(eevdf::cfs_rq_max_slice(q) == 3'000'000);
    struct release_case {
        kernel_version v;
        s64 limit_a, limit_b;
    };
    // Before: max(2 x own slice, TICK_NSEC 4 ms): 6 ms and 4 ms. After (6e3c0a4e1ad1): the
    // longest slice queued, 3 ms, plus 4 ms for both.
    const release_case cases[] = {{{6, 18, 16}, 6'000'000, 4'000'000},
                                  {{6, 18, 17}, 7'000'000, 7'000'000},
                                  {{6, 19, 6}, 6'000'000, 4'000'000},
                                  {{6, 19, 7}, 7'000'000, 7'000'000},
                                  {{6, 12, 94}, 6'000'000, 4'000'000}};
    for (const release_case& c : cases) {
        INFO(c.v.str() << "." << c.v.patch);
        const fair_params p = params_for(c.v, 8, 250);
        eevdf::update_entity_lag(p, q, a);
        eevdf::update_entity_lag(p, q, b);
        CHECK(a.vlag == c.limit_a);
        CHECK(b.vlag == -c.limit_b);
    }
    // The running entity counts too, and the tree's value follows erases.
    sched_entity curr;
    curr.slice = 5'000'000;
    curr.on_rq = true;
    q.curr = &curr;
    CHECK(eevdf::cfs_rq_max_slice(q) == 5'000'000);
    q.curr = nullptr;
    timeline_erase(q, a);
    CHECK(eevdf::cfs_rq_max_slice(q) == 1'000'000);
    CHECK(q.tasks_timeline.verify());
}

TEST_CASE("run-to-parity protection: the vlag marker (6.6-6.16) and vprot (6.17+)") {
    sched_entity curr;
    curr.load = task_load_weight(0, false);
    curr.vruntime = 1000;
    curr.deadline = 4000;
    curr.slice = 3'000'000;
    const fair_params p612 = params_for({6, 12});
    curr.vlag = static_cast<s64>(curr.deadline);
    CHECK(eevdf::protect_slice(p612, curr));
    eevdf::cancel_protect_slice(p612, curr);
    CHECK_FALSE(eevdf::protect_slice(p612, curr));

    // 6.17: with nothing shorter queued, vprot is the deadline.
    const fair_params p617 = params_for({6, 17});
    cfs_rq q;
    eevdf::set_protect_slice(p617, q, curr);
    CHECK(curr.vprot == curr.deadline);
    CHECK(eevdf::protect_slice(p617, curr));
    curr.vruntime = curr.deadline; // used up
    CHECK_FALSE(eevdf::protect_slice(p617, curr));
}

TEST_CASE("6.17+: a shorter slice queued shortens the protection (RUN_TO_PARITY)") {
    const fair_params p617 = params_for({6, 17});
    cfs_rq q;
    sched_entity other, curr;
    const u64 x = q.min_vruntime + 1'000'000;
    enqueue_at(q, other, 0, x, 500'000); // a custom slice
    CHECK(eevdf::cfs_rq_min_slice(q) == 500'000);
    curr.load = task_load_weight(0, false);
    curr.vruntime = x;
    curr.slice = 2'800'000;
    curr.deadline = x + 2'800'000;
    eevdf::set_protect_slice(p617, q, curr);
    CHECK(curr.vprot == x + 500'000);

    // Without RUN_TO_PARITY the protection is the normalized base slice, 0.7 ms.
    fair_params no_parity = p617;
    no_parity.feat.set(feature::run_to_parity, false);
    eevdf::set_protect_slice(no_parity, q, curr);
    CHECK(curr.vprot == x + 700'000);
}

} // namespace test_eevdf
