#pragma once
// Test support: a cfs_rq driven by random enqueues, dequeues, reweights and curr changes
// through the raw queue operations (timeline_insert/erase, account_entity_*,
// update_min_vruntime), with brute-force versions of V and eligibility to check it against.
#include <algorithm>
#include <cstdint>
#include <libsched/sched/cfs_rq.hpp>
#include <random>
#include <vector>

namespace libsched::testing {

class random_cfs_rq {
public:
    explicit random_cfs_rq(std::uint64_t seed, std::size_t pool_size = 64)
        : rng_(seed), pool_(pool_size), stamp_(pool_size, 0) {}

    cfs_rq q;

    // One random step. Curr, when set, is outside the tree as in the kernel; it may also be
    // dequeued while still curr (a task that blocked and has not been switched out yet).
    void step() {
        switch (rng_() % 8) {
        case 0:
        case 1:
            enqueue_one();
            break;
        case 2:
            dequeue_one();
            break;
        case 3:
            reweight_one();
            break;
        case 4:
            run_curr();
            break;
        case 5:
            switch_curr();
            break;
        case 6:
            if (q.curr != nullptr && q.curr->on_rq && rng_() % 4 == 0) { // curr blocks
                q.curr->on_rq = false;
                account_entity_dequeue(q, *q.curr);
                update_min_vruntime(q);
            } else {
                enqueue_one();
            }
            break;
        default:
            make_deadline_tie();
            break;
        }
    }

    // Entities V is taken over: the tree, and curr while it is on the queue.
    std::vector<const sched_entity*> candidates() const {
        std::vector<const sched_entity*> out;
        for (const sched_entity* se = q.tasks_timeline.first(); se != nullptr;
             se = q.tasks_timeline.next(*se))
            out.push_back(se);
        if (q.curr != nullptr && q.curr->on_rq)
            out.push_back(q.curr);
        return out;
    }

    // Sum of (v - ref) * w and of w over the candidates, w at 1024 resolution, in 128 bits.
    struct sums {
        s128 weighted = 0;
        s128 load = 0;
    };
    sums brute_sums(u64 ref) const {
        sums s;
        for (const sched_entity* se : candidates()) {
            const s128 w = static_cast<s128>(se->load.weight >> sched_fixedpoint_shift);
            s.weighted += static_cast<s128>(static_cast<s64>(se->vruntime - ref)) * w;
            s.load += w;
        }
        return s;
    }

    // V = floor(sum (v - ref) w / sum w) + ref, rounded toward -inf; any integer ref gives
    // the same result. An empty queue leaves V at min_vruntime.
    u64 brute_avg_vruntime() const {
        const u64 ref = reference();
        const sums s = brute_sums(ref);
        if (s.load == 0)
            return q.min_vruntime;
        s128 quot = s.weighted / s.load;
        if (s.weighted % s.load != 0 && s.weighted < 0)
            --quot;
        return ref + static_cast<u64>(static_cast<s64>(quot));
    }

    // lag >= 0 <=> sum w * v >= v_i * sum w, cross-multiplied so no rounding enters. The
    // sums are taken once, for any number of queries on the same queue state.
    struct eligibility {
        u64 ref;
        sums s;
        bool operator()(u64 vruntime) const {
            return s.weighted >= static_cast<s128>(static_cast<s64>(vruntime - ref)) * s.load;
        }
    };
    eligibility brute_eligibility() const { return {reference(), brute_sums(reference())}; }

    // Insertion order of a tree entity (for FIFO among equal deadlines).
    std::uint64_t stamp(const sched_entity& se) const {
        return stamp_[static_cast<std::size_t>(&se - pool_.data())];
    }

    std::mt19937_64& rng() { return rng_; }

private:
    // A reference point unrelated to min_vruntime: the first pool entity's vruntime.
    u64 reference() const { return pool_.front().vruntime + 12345; }

    sched_entity* random_entity(bool queued_in_tree) {
        std::vector<sched_entity*> pick;
        for (sched_entity& se : pool_)
            if (&se != q.curr && se.on_rq == queued_in_tree)
                pick.push_back(&se);
        if (pick.empty())
            return nullptr;
        return pick[rng_() % pick.size()];
    }

    void set_random_weight(sched_entity& se) {
        const bool idle = rng_() % 20 == 0;
        const int nice = static_cast<int>(rng_() % 40) + min_nice;
        se.load = task_load_weight(nice, idle);
    }

    void insert(sched_entity& se) {
        stamp_[static_cast<std::size_t>(&se - pool_.data())] = next_stamp_++;
        timeline_insert(q, se);
    }

    // A new request: vruntime within +-20 ms of V, a slice between 0.1 and 10 ms.
    void enqueue_one() {
        sched_entity* se = random_entity(false);
        if (se == nullptr)
            return;
        set_random_weight(*se);
        const u64 v = brute_avg_vruntime();
        se->vruntime = v + static_cast<u64>(static_cast<s64>(rng_() % 40'000'001) - 20'000'000);
        const u64 slice = 100'000 + rng_() % 9'900'001;
        se->deadline = se->vruntime + calc_delta_fair(slice, se->load);
        se->vlag = 0;
        se->on_rq = true;
        account_entity_enqueue(q, *se);
        insert(*se);
    }

    void dequeue_one() {
        sched_entity* se = random_entity(true);
        if (se == nullptr)
            return;
        timeline_erase(q, *se);
        se->on_rq = false;
        account_entity_dequeue(q, *se);
        update_min_vruntime(q);
    }

    void reweight_one() {
        sched_entity* se = random_entity(true);
        if (se == nullptr)
            return;
        timeline_erase(q, *se);
        account_entity_dequeue(q, *se);
        set_random_weight(*se);
        account_entity_enqueue(q, *se);
        insert(*se);
    }

    // Curr runs for up to 5 ms of real time.
    void run_curr() {
        if (q.curr == nullptr)
            return;
        q.curr->vruntime += calc_delta_fair(rng_() % 5'000'001, q.curr->load);
        update_min_vruntime(q);
    }

    // Put curr back (if still queued) and, half of the time, make a tree entity curr,
    // protected (RUN_TO_PARITY marker or vprot ahead) or not.
    void switch_curr() {
        if (sched_entity* c = q.curr; c != nullptr) {
            if (c->on_rq)
                insert(*c);
            q.curr = nullptr;
            return;
        }
        sched_entity* se = random_entity(true);
        if (se == nullptr)
            return;
        timeline_erase(q, *se);
        q.curr = se;
        const bool protect = rng_() % 2 == 0;
        se->vlag = protect ? static_cast<s64>(se->deadline) : 0;
        se->vprot = protect ? se->vruntime + 1 + rng_() % 3'000'000 : se->vruntime - rng_() % 2;
    }

    // Give a tree entity (or curr) the deadline of another one.
    void make_deadline_tie() {
        sched_entity* a = random_entity(true);
        sched_entity* b = random_entity(true);
        if (a == nullptr || b == nullptr || a == b)
            return;
        if (q.curr != nullptr && q.curr->on_rq && rng_() % 2 == 0) {
            q.curr->deadline = b->deadline;
            return;
        }
        timeline_erase(q, *a);
        a->deadline = b->deadline;
        insert(*a);
    }

    std::mt19937_64 rng_;
    std::vector<sched_entity> pool_;
    std::vector<std::uint64_t> stamp_;
    std::uint64_t next_stamp_ = 0;
};

} // namespace libsched::testing
