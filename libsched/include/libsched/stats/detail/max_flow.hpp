#pragma once
// A small max-flow solver (Dinic's algorithm) over real capacities, for the theory
// predictor's feasibility tests (stats/theory.hpp): can these CPU rates be given at once,
// with every task on CPUs it may use? O(V^2 E) per flow; the networks it sees have a node
// per group, task and CPU.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <queue>
#include <vector>

namespace libsched::stats::detail {

class max_flow {
public:
    static constexpr double infinite = std::numeric_limits<double>::infinity();

    explicit max_flow(std::size_t nodes) : out_(nodes) {}

    std::size_t size() const { return out_.size(); }

    // An edge from -> to of this capacity; its index, to change the capacity later.
    std::size_t add_edge(std::size_t from, std::size_t to, double capacity) {
        const std::size_t e = edges_.size();
        edges_.push_back({to, capacity, 0});
        edges_.push_back({from, 0, 0});
        out_[from].push_back(e);
        out_[to].push_back(e + 1);
        return e;
    }

    void set_capacity(std::size_t e, double capacity) { edges_[e].capacity = capacity; }

    // The largest flow from source to sink; residual capacities below eps count as none.
    double solve(std::size_t source, std::size_t sink, double eps) {
        for (arc& e : edges_)
            e.flow = 0;
        eps_ = eps;
        double total = 0;
        while (levels_from(source, sink)) {
            next_.assign(out_.size(), 0);
            while (true) {
                const double pushed = augment(source, sink, infinite);
                if (pushed <= eps_)
                    break;
                total += pushed;
            }
        }
        return total;
    }

    // After solve(): which nodes reach `to` through edges with more residual capacity than
    // eps (a flow found to within eps leaves that much on its bottlenecks). One search
    // backwards from `to`, whatever the number of nodes asked about.
    std::vector<bool> reaching(std::size_t to, double eps) const {
        std::vector<bool> seen(out_.size(), false);
        std::vector<std::size_t> stack{to};
        seen[to] = true;
        while (!stack.empty()) {
            const std::size_t v = stack.back();
            stack.pop_back();
            // Each edge out of v has a partner into v from the same node.
            for (std::size_t e : out_[v]) {
                const std::size_t u = edges_[e].to;
                if (!seen[u] && residual(e ^ 1) > eps) {
                    seen[u] = true;
                    stack.push_back(u);
                }
            }
        }
        return seen;
    }

private:
    struct arc {
        std::size_t to;
        double capacity;
        double flow;
    };

    // An edge's partner (the reverse edge) is its index xor 1; a reverse edge's capacity
    // is 0, so its residual is the flow on its partner.
    double residual(std::size_t e) const { return edges_[e].capacity - edges_[e].flow; }

    bool levels_from(std::size_t source, std::size_t sink) {
        level_.assign(out_.size(), -1);
        std::queue<std::size_t> q;
        level_[source] = 0;
        q.push(source);
        while (!q.empty()) {
            const std::size_t v = q.front();
            q.pop();
            for (std::size_t e : out_[v])
                if (residual(e) > eps_ && level_[edges_[e].to] < 0) {
                    level_[edges_[e].to] = level_[v] + 1;
                    q.push(edges_[e].to);
                }
        }
        return level_[sink] >= 0;
    }

    double augment(std::size_t v, std::size_t sink, double limit) {
        if (v == sink)
            return limit;
        for (std::size_t& i = next_[v]; i < out_[v].size(); ++i) {
            const std::size_t e = out_[v][i];
            const std::size_t to = edges_[e].to;
            if (residual(e) <= eps_ || level_[to] != level_[v] + 1)
                continue;
            const double pushed = augment(to, sink, std::min(limit, residual(e)));
            if (pushed > eps_) {
                edges_[e].flow += pushed;
                edges_[e ^ 1].flow -= pushed;
                return pushed;
            }
        }
        return 0;
    }

    std::vector<arc> edges_;
    std::vector<std::vector<std::size_t>> out_;
    std::vector<int> level_;
    std::vector<std::size_t> next_;
    double eps_ = 0;
};

} // namespace libsched::stats::detail
