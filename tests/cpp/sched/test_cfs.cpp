// sched/cfs.hpp: the old CFS rules (before 6.6) against the kernel reference's formulas,
// on a machine with 8 online CPUs (factor 4: latency 24 ms, min_granularity 3 ms,
// wakeup_granularity 4 ms) unless stated.
#include <catch2/catch.hpp>
#include <libsched/sched/cfs.hpp>

using namespace libsched;

namespace test_cfs {

namespace {

constexpr kernel_version v515{5, 15};
constexpr kernel_version v61{6, 1};

// Exact division keeps the expected values free of the inverse-weight rounding; the
// rounding itself is checked once, in the first test case.
fair_params params_for(int online_cpus = 8, calc_delta_mode mode = calc_delta_mode::exact_division,
                       kernel_version v = v515) {
    return fair_params(v, default_tunables(v, online_cpus, 250), mode);
}

void enqueue_nice(cfs_rq& q, sched_entity& se, int nice, u64 vruntime = 0) {
    se.load = task_load_weight(nice, false);
    se.vruntime = vruntime;
    se.on_rq = true;
    account_entity_enqueue(q, se);
    ++q.h_nr_queued;
    timeline_insert(q, se);
}

} // namespace

TEST_CASE("two nice-0 tasks on 8 online CPUs get 12 ms slices") {
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity a, b;
    enqueue_nice(q, a, 0);
    enqueue_nice(q, b, 0);
    // period = latency = 24 ms (2 <= sched_nr_latency = 8); slice = 24 ms * 1024 / 2048.
    CHECK(cfs::sched_slice(params_for(), q, a) == 12'000'000);
    // With the 32-bit inverse of the queue weight, floor((2^32 - 1) / 2048) = 2^21 - 1:
    // 24e6 * 1024 * (2^21 - 1) / 2^32 = 12e6 - 5.72 -> 11,999,994.
    CHECK(cfs::sched_slice(params_for(8, calc_delta_mode::inverse_multiply), q, a) == 11'999'994);
}

TEST_CASE("the period stretches to nr * min_granularity past sched_nr_latency") {
    const fair_params p = params_for();
    CHECK(p.tun.nr_latency == 8);
    CHECK(cfs::sched_period(p, 8) == 24'000'000);
    CHECK(cfs::sched_period(p, 9) == 9 * 3'000'000);
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity se[9];
    for (sched_entity& e : se)
        enqueue_nice(q, e, 0);
    CHECK(cfs::sched_slice(p, q, se[0]) == 3'000'000); // 27 ms / 9
    // One CPU: latency 6 ms, min_granularity 0.75 ms.
    const fair_params one = params_for(1);
    CHECK(cfs::sched_period(one, 8) == 6'000'000);
    CHECK(cfs::sched_period(one, 9) == 6'750'000);
}

TEST_CASE("a not yet queued entity counts itself in the period and the load") {
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity a, b;
    enqueue_nice(q, a, 0);
    b.load = task_load_weight(0, false);
    CHECK(cfs::sched_slice(params_for(), q, b) == 12'000'000);
}

TEST_CASE("BASE_SLICE keeps a light task's slice at min_granularity") {
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity a, b;
    enqueue_nice(q, a, 0);
    enqueue_nice(q, b, 19);
    // 24 ms * 15 / 1039 = 346,487 ns, raised to 3 ms.
    CHECK(cfs::sched_slice(params_for(), q, b) == 3'000'000);
    fair_params off = params_for();
    off.feat.set(feature::base_slice, false);
    CHECK(cfs::sched_slice(off, q, b) == 346'487);
}

TEST_CASE("START_DEBIT places a new task one virtual slice after min_vruntime") {
    const fair_params p = params_for();
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity running;
    enqueue_nice(q, running, 0, q.min_vruntime);

    sched_entity child;
    child.load = task_load_weight(0, false);
    child.vruntime = q.min_vruntime;
    cfs::place_entity(p, q, child, true);
    CHECK(child.vruntime == q.min_vruntime + 12'000'000); // vslice of a 12 ms slice

    // nice 5: slice 24 ms * 335 / 1359 = 5,916,114 ns; vslice 5,916,114 * 1024 / 335.
    sched_entity light;
    light.load = task_load_weight(5, false);
    light.vruntime = q.min_vruntime;
    cfs::place_entity(p, q, light, true);
    CHECK(light.vruntime == q.min_vruntime + 18'083'882);

    fair_params no_debit = p;
    no_debit.feat.set(feature::start_debit, false);
    sched_entity plain;
    plain.load = task_load_weight(0, false);
    plain.vruntime = q.min_vruntime;
    cfs::place_entity(no_debit, q, plain, true);
    CHECK(plain.vruntime == q.min_vruntime);
}

TEST_CASE("GENTLE_FAIR_SLEEPERS credits a sleeper at most latency / 2") {
    const fair_params p = params_for();
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    q.min_vruntime = 5'000'000'000;
    sched_entity se;
    se.load = task_load_weight(0, false);

    se.vruntime = q.min_vruntime - 1'000'000'000; // slept long: credit capped
    cfs::place_entity(p, q, se, false);
    CHECK(se.vruntime == q.min_vruntime - 12'000'000);

    se.vruntime = q.min_vruntime - 5'000'000; // within the credit: never moved back
    cfs::place_entity(p, q, se, false);
    CHECK(se.vruntime == q.min_vruntime - 5'000'000);

    // SCHED_IDLE: 5.15 credits latency / 2 as for any entity; 5.16+ min_granularity / 2.
    se.idle = true;
    se.vruntime = q.min_vruntime - 1'000'000'000;
    cfs::place_entity(p, q, se, false);
    CHECK(se.vruntime == q.min_vruntime - 12'000'000);
    se.vruntime = q.min_vruntime - 1'000'000'000;
    cfs::place_entity(params_for(8, calc_delta_mode::exact_division, v61), q, se, false);
    CHECK(se.vruntime == q.min_vruntime - 1'500'000);
    se.idle = false;

    fair_params harsh = p;
    harsh.feat.set(feature::gentle_fair_sleepers, false);
    se.vruntime = q.min_vruntime - 1'000'000'000;
    cfs::place_entity(harsh, q, se, false);
    CHECK(se.vruntime == q.min_vruntime - 24'000'000);
}

TEST_CASE("wakeup_preempt_entity: -1 if not left of curr, 1 past the wakee's granularity") {
    const fair_params p = params_for();
    sched_entity curr, se;
    curr.load = task_load_weight(0, false);
    se.load = task_load_weight(0, false);
    const u64 x = 10'000'000'000;
    se.vruntime = x;
    const auto at = [&](s64 d) {
        curr.vruntime = x + static_cast<u64>(d);
        return cfs::wakeup_preempt_entity(p, curr, se);
    };
    // nice-0 wakee: granularity 4 ms.
    CHECK(at(-5) == -1);
    CHECK(at(0) == -1);
    CHECK(at(1) == 0);
    CHECK(at(4'000'000) == 0);
    CHECK(at(4'000'001) == 1);
    // nice 5 wakee: 4 ms * 1024 / 335 = 12.23 ms of its virtual time.
    se.load = task_load_weight(5, false);
    CHECK(at(12'200'000) == 0);
    CHECK(at(12'300'000) == 1);
    // nice -10 wakee: 4 ms * 1024 / 9548 = 0.429 ms.
    se.load = task_load_weight(-10, false);
    CHECK(at(428'000) == 0);
    CHECK(at(430'000) == 1);
}

TEST_CASE("check_preempt_tick: strictly more than the ideal slice, or a slice ahead") {
    const fair_params p = params_for();
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity curr, other;
    const u64 x = 1'000'000'000;
    enqueue_nice(q, other, 0, x);
    curr.load = task_load_weight(0, false);
    curr.on_rq = true;
    account_entity_enqueue(q, curr);
    ++q.h_nr_queued;
    q.curr = &curr; // running: outside the tree
    curr.prev_sum_exec_runtime = 100'000'000;
    const auto tick = [&](duration ran, s64 ahead) {
        curr.sum_exec_runtime = curr.prev_sum_exec_runtime + ran;
        curr.vruntime = x + static_cast<u64>(ahead);
        return cfs::check_preempt_tick(p, q, curr);
    };
    // ideal = 12 ms
    CHECK_FALSE(tick(12'000'000, 0));
    CHECK(tick(12'000'001, 0));
    // Under min_granularity (3 ms) the vruntime lead does not matter.
    CHECK_FALSE(tick(2'999'999, 100'000'000));
    // From min_granularity on, a lead of more than the ideal slice preempts.
    CHECK_FALSE(tick(3'000'000, 12'000'000));
    CHECK(tick(3'000'000, 12'000'001));
    CHECK_FALSE(tick(5'000'000, -1'000'000));
    // Preempting for the slice clears curr's buddy marks.
    q.next = &curr;
    q.last = &curr;
    CHECK(tick(20'000'000, 0));
    CHECK(q.next == nullptr);
    CHECK(q.last == nullptr);
}

TEST_CASE("pick_next_entity takes the leftmost, curr if further left, then buddies") {
    const fair_params p = params_for();
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity a, b, curr;
    const u64 x = 1'000'000'000;
    enqueue_nice(q, a, 0, x);
    enqueue_nice(q, b, 0, x + 3'000'000);
    curr.load = task_load_weight(0, false);
    curr.vruntime = x + 1'000'000;
    CHECK(cfs::pick_next_entity(p, q, &curr) == &a);
    curr.vruntime = x - 1;
    CHECK(cfs::pick_next_entity(p, q, &curr) == &curr);
    // The next buddy wins unless it is more than wakeup_gran (4 ms) right of the leftmost.
    curr.vruntime = x + 10'000'000;
    q.next = &b; // 3 ms right of a
    CHECK(cfs::pick_next_entity(p, q, &curr) == &b);
    q.next = &curr; // 10 ms right of a
    CHECK(cfs::pick_next_entity(p, q, &curr) == &a);
}

TEST_CASE("pick_next_entity passes over the skip buddy unless the second is too far right") {
    // sched_yield() made its task the skip buddy: the pick takes the entity after it (the
    // tree's next, or curr if further left) if that is at most wakeup_gran (4 ms) right of
    // the leftmost; the next buddy still comes first.
    const fair_params p = params_for();
    rq r(0, params_for());
    cfs_rq& q = r.cfs;
    sched_entity a, b, c, curr;
    const u64 x = 1'000'000'000;
    enqueue_nice(q, a, 0, x);
    enqueue_nice(q, b, 0, x + 3'000'000);
    enqueue_nice(q, c, 0, x + 4'000'000);
    curr.load = task_load_weight(0, false);
    curr.vruntime = x + 5'000'000;
    q.skip = &a;
    CHECK(cfs::pick_next_entity(p, q, &curr) == &b);
    curr.vruntime = x + 2'000'000; // left of b: curr is the second
    CHECK(cfs::pick_next_entity(p, q, &curr) == &curr);
    // The skip buddy running as curr: the second is the tree's leftmost.
    curr.vruntime = x - 1'000'000;
    q.skip = &curr;
    CHECK(cfs::pick_next_entity(p, q, &curr) == &a);
    curr.vruntime = x - 4'000'001; // a is more than 4 ms right of curr: curr runs on
    CHECK(cfs::pick_next_entity(p, q, &curr) == &curr);
    q.next = &b; // 7 ms right of curr: too far as well
    CHECK(cfs::pick_next_entity(p, q, &curr) == &curr);
    curr.vruntime = x - 1'000'000;
    CHECK(cfs::pick_next_entity(p, q, &curr) == &b);
}

TEST_CASE("clear_buddies walks up while the queue above names the entity's parent") {
    // __clear_buddies_next() and the others: a task's mark leaves with it, and so does its
    // group's on the queue above if it names that group, but not a mark of another entity.
    rq r(0, params_for());
    cfs_rq& top = r.cfs;
    cfs_rq inner;
    sched_entity group, other, t;
    group.cfs_rq = &top;
    group.my_q = &inner;
    other.cfs_rq = &top;
    t.cfs_rq = &inner;
    t.parent = &group;
    inner.next = inner.skip = &t;
    top.next = top.skip = &group;
    top.last = &other;
    inner.last = &t;
    cfs::clear_buddies(inner, t);
    CHECK(inner.next == nullptr);
    CHECK(inner.skip == nullptr);
    CHECK(inner.last == nullptr);
    CHECK(top.next == nullptr);
    CHECK(top.skip == nullptr);
    CHECK(top.last == &other);
    // A mark that does not name the entity stops the walk on its own level.
    inner.next = &t;
    top.next = &other;
    cfs::clear_buddies(inner, t);
    CHECK(top.next == &other);
}

TEST_CASE("a SCHED_IDLE task's slice floor is idle_min_granularity unless all are idle") {
    // 5.16+ (sched_slice() with sched_idle_cfs_rq()); 5.15 floors every entity at
    // min_granularity.
    const fair_params p = params_for(8, calc_delta_mode::exact_division, v61);
    const auto enqueue_idle = [](cfs_rq& q, sched_entity& se) {
        se.load = task_load_weight(0, true);
        se.idle = true;
        se.on_rq = true;
        account_entity_enqueue(q, se);
        ++q.h_nr_queued;
        ++q.h_nr_idle;
        timeline_insert(q, se);
    };
    SECTION("beside a nice-0 task: 24 ms * 3 / 1027 is below 0.75 ms, so 0.75 ms") {
        rq r(0, p);
        cfs_rq& q = r.cfs;
        sched_entity normal, idle;
        enqueue_nice(q, normal, 0);
        enqueue_idle(q, idle);
        CHECK(cfs::sched_slice(p, q, idle) == 750'000);
        CHECK(cfs::sched_slice(params_for(), q, idle) == 3'000'000); // 5.15
    }
    SECTION("idle tasks alone get the normal floor: latency 2 ms, two tasks -> 1 ms -> 3 ms") {
        fair_params short_latency = p;
        short_latency.tun.latency = 2'000'000; // sched_nr_latency left at 8: no stretching
        rq r(0, p);
        cfs_rq& q = r.cfs;
        sched_entity a, b;
        enqueue_idle(q, a);
        enqueue_idle(q, b);
        CHECK(cfs::sched_slice(short_latency, q, a) == 3'000'000);
    }
}

} // namespace test_cfs
