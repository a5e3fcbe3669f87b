#pragma once
// A multiset of durations (wakeup latencies, lateness) in memory bounded by the number of
// distinct values, not by the number of samples: values are kept with their counts, exactly
// while there are at most max_distinct different ones; beyond that each is kept to its 8
// most significant bits (within 0.4 % below its value, at most 128 distinct values per
// power of two), for good. Count, sum, minimum and maximum stay exact either way.
//
// A statistics-only instance (statistics_only()) keeps just those four, in constant memory:
// a task's samples when a run keeps the values per [[tasks]] entry instead.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <libsched/sched/types.hpp>
#include <utility>
#include <vector>

namespace libsched {

class duration_samples {
public:
    static constexpr std::size_t max_distinct = 256;
    static constexpr int kept_bits = 8; // once folded

    duration_samples() = default;
    duration_samples(std::initializer_list<duration> values) {
        for (const duration v : values)
            add(v);
    }
    // Count, sum, minimum and maximum only: no values, so no percentiles.
    static duration_samples statistics_only() {
        duration_samples d;
        d.values_kept_ = false;
        return d;
    }

    void add(duration v) {
        sum_ += v;
        min_ = count_ == 0 ? v : std::min(min_, v);
        max_ = count_ == 0 ? v : std::max(max_, v);
        ++count_;
        if (!values_kept_)
            return;
        pending_.push_back(v);
        if (pending_.size() >= pending_limit)
            compact();
    }

    // Every value of other, as if added here; the values are dropped if other kept none.
    void merge(const duration_samples& other) {
        if (other.count_ == 0)
            return;
        sum_ += other.sum_;
        min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
        max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
        count_ += other.count_;
        if (!other.values_kept_ && values_kept_) {
            values_kept_ = folded_ = false;
            counts_ = {};
            pending_ = {};
        }
        if (!values_kept_)
            return;
        std::vector<value_count> theirs = other.sorted_counts();
        if (other.folded_ && !folded_) {
            folded_ = true;
            counts_ = folded(counts_);
        } else if (folded_ && !other.folded_) {
            theirs = folded(theirs);
        }
        merge_into(counts_, theirs.data(), theirs.size());
        compact();
    }

    std::size_t size() const { return static_cast<std::size_t>(count_); }
    bool empty() const { return count_ == 0; }
    // Whether every value is kept exactly (false once past max_distinct different ones, or
    // without values).
    bool exact() const { return values_kept_ && !folded_; }
    // Whether the values are kept at all (false: statistics_only()).
    bool values_kept() const { return values_kept_; }
    duration min() const { return min_; }
    duration max() const { return max_; }
    s128 sum() const { return sum_; }

    struct value_count {
        duration value;
        std::uint64_t count;
        bool operator==(const value_count&) const = default;
    };
    // The values with their counts, ascending (none without values).
    const std::vector<value_count>& sorted_counts() const {
        settle();
        return counts_;
    }

    // The values one by one, ascending, each as many times as it was added.
    class const_iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = duration;
        using difference_type = std::ptrdiff_t;
        using pointer = const duration*;
        using reference = duration;
        const_iterator() = default;
        explicit const_iterator(const value_count* at) : at_(at) {}
        duration operator*() const { return at_->value; }
        const_iterator& operator++() {
            if (++nth_ == at_->count) {
                ++at_;
                nth_ = 0;
            }
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator old = *this;
            ++*this;
            return old;
        }
        bool operator==(const const_iterator& o) const { return at_ == o.at_ && nth_ == o.nth_; }

    private:
        const value_count* at_ = nullptr;
        std::uint64_t nth_ = 0;
    };
    const_iterator begin() const {
        settle();
        return const_iterator(counts_.data());
    }
    const_iterator end() const {
        settle();
        return const_iterator(counts_.data() + counts_.size());
    }

    // The same multiset of values.
    bool operator==(const duration_samples& other) const {
        return count_ == other.count_ && sum_ == other.sum_ && min_ == other.min_ &&
               max_ == other.max_ && values_kept_ == other.values_kept_ &&
               sorted_counts() == other.sorted_counts();
    }

    // A value kept to its kept_bits most significant bits.
    static duration fold(duration v) {
        if (v <= 0)
            return v;
        const int width = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(v)));
        if (width <= kept_bits)
            return v;
        const int drop = width - kept_bits;
        return (v >> drop) << drop;
    }

private:
    static constexpr std::size_t pending_limit = 64;

    // Merges n ascending distinct counts into the ascending distinct counts c, in place:
    // from the back, then the slots freed by equal values closed up.
    static void merge_into(std::vector<value_count>& c, const value_count* b, std::size_t n) {
        std::size_t i = c.size(), j = n;
        c.resize(c.size() + n);
        std::size_t out = c.size();
        while (j > 0) {
            if (i > 0 && b[j - 1].value < c[i - 1].value) {
                c[--out] = c[--i];
            } else if (i > 0 && c[i - 1].value == b[j - 1].value) {
                --out, --i, --j;
                c[out] = {b[j].value, c[i].count + b[j].count};
            } else {
                c[--out] = b[--j];
            }
        }
        c.erase(c.begin() + static_cast<std::ptrdiff_t>(i),
                c.begin() + static_cast<std::ptrdiff_t>(out));
    }

    // Pending values join the counts (folded if the counts are). Reading does this too, but
    // only adding decides to fold, so that reading never changes what is kept.
    void settle() const {
        if (pending_.empty())
            return;
        std::sort(pending_.begin(), pending_.end());
        // At most pending_limit values are pending (add() compacts there): their run
        // lengths fit on the stack.
        std::array<value_count, pending_limit> runs;
        std::size_t n = 0;
        for (const duration v0 : pending_) {
            const duration v = folded_ ? fold(v0) : v0;
            if (n > 0 && runs[n - 1].value == v)
                ++runs[n - 1].count;
            else
                runs[n++] = {v, 1};
        }
        pending_.clear();
        merge_into(counts_, runs.data(), n);
    }

    // Settles, and past max_distinct folds the counts.
    void compact() {
        settle();
        if (!folded_ && counts_.size() > max_distinct) {
            folded_ = true;
            counts_ = folded(counts_);
        }
    }

    // Counts with their values folded; folding keeps the order, so they stay ascending.
    static std::vector<value_count> folded(const std::vector<value_count>& counts) {
        std::vector<value_count> f;
        for (const value_count& vc : counts) {
            const duration v = fold(vc.value);
            if (!f.empty() && f.back().value == v)
                f.back().count += vc.count;
            else
                f.push_back({v, vc.count});
        }
        return f;
    }

    // The 16-byte sum first: no padding before it (96 bytes in all, not 112; a task has
    // up to four of these).
    s128 sum_ = 0;
    mutable std::vector<value_count> counts_; // ascending, distinct
    mutable std::vector<duration> pending_;   // added since the last settle(), unsorted
    std::uint64_t count_ = 0;
    duration min_ = 0, max_ = 0;
    bool folded_ = false;
    bool values_kept_ = true;
};

} // namespace libsched
