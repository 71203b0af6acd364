// Greedy tree-cost extraction, then local search on the DAG cost.
#include "engine/plan/extractor.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_set>

#include "engine/core/error.h"

namespace ks {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

bool isProducer(const Node& n) { return n.kind == NodeKind::Kernel || n.kind == NodeKind::ToDevice; }

struct Search {
  const Graph& g;
  const std::vector<ClassId>& outputs;
  const ExtractionDevices& dev;
  std::vector<ClassId> order;  // all classes reachable through any alternative, operands first

  bool deviceOk(const Node& n) const {
    return n.device < dev.allowed.size() && dev.allowed[n.device];
  }
  // Own cost of a node given the producer chosen for its operand (copies within a pool are free).
  double ownCost(const Node& n, const std::unordered_map<ClassId, NodeId>& choice) const {
    if (n.kind != NodeKind::ToDevice) return n.timeNs;
    auto it = choice.find(n.in[0]);
    const uint32_t from = it == choice.end() ? 0 : producerPool(g, it->second, dev);
    return from == dev.poolOf.at(n.device) ? 0.0 : n.timeNs;
  }
  // A kernel reads its operands from its own pool: each operand's chosen producer (a leaf lives in
  // host memory) must leave the value there. ToDevice nodes are how values change pools.
  bool poolsMatch(const Node& n, const std::unordered_map<ClassId, NodeId>& choice) const {
    if (n.kind != NodeKind::Kernel) return true;
    const uint32_t pool = dev.poolOf.at(n.device);
    for (ClassId in : n.in) {
      if (g.isLeaf(in)) {
        if (pool != 0) return false;
        continue;
      }
      auto it = choice.find(in);
      if (it != choice.end() && producerPool(g, it->second, dev) != pool) return false;
    }
    return true;
  }
  // DAG cost of a full choice: walk from the outputs, count each chosen node once. A choice whose
  // producers depend on each other cannot run (alternatives of different kernelization passes can
  // form such cycles: a multi-output kernel reading a value made from one of its own stores).
  double evaluate(const std::unordered_map<ClassId, NodeId>& choice) const {
    std::unordered_map<uint32_t, uint8_t> state;  // class -> 1 on the walk's stack, 2 done
    std::unordered_set<uint32_t> seenNode;
    struct Frame {
      ClassId c;
      const Node* n;
      std::size_t next;
    };
    std::vector<Frame> stack;
    double total = 0;
    // Enters a class: false when the choice is invalid (no producer, wrong pool, a cycle).
    auto enter = [&](ClassId c) {
      uint8_t& st = state[c.v];
      if (st == 1) return false;
      if (st == 2) return true;
      if (g.isLeaf(c)) {
        st = 2;
        return true;
      }
      auto it = choice.find(c);
      if (it == choice.end() || !it->second.valid()) return false;
      const Node& n = g.node(it->second);
      if (!poolsMatch(n, choice)) return false;
      if (seenNode.insert(it->second.v).second) total += ownCost(n, choice);
      st = 1;
      stack.push_back({c, &n, 0});
      return true;
    };
    for (ClassId out : outputs) {
      if (!enter(out)) return kInf;
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next == f.n->in.size()) {
          state[f.c.v] = 2;
          stack.pop_back();
        } else if (!enter(f.n->in[f.next++])) {
          return kInf;
        }
      }
    }
    return total;
  }
};

}  // namespace

// The chosen producers reachable from the outputs, each after the producers of all its operands
// (an iterative depth-first walk: plans of long chains are deep). A cycle among the chosen
// producers cannot run and is an internal error.
static std::vector<NodeId> chosenOrder(const Graph& g, const std::vector<ClassId>& outputs,
                                const std::unordered_map<ClassId, NodeId>& choice) {
  std::vector<NodeId> order;
  std::unordered_map<uint32_t, uint8_t> state;  // node id -> 1 on the walk's stack, 2 emitted
  struct Frame {
    NodeId n;
    std::size_t next = 0;
  };
  auto producerOf = [&](ClassId c) -> NodeId {
    if (g.isLeaf(c)) return NodeId{};
    return choice.at(g.find(c));
  };
  for (ClassId out : outputs) {
    const NodeId root = producerOf(out);
    if (!root.valid() || state[root.v]) continue;
    std::vector<Frame> stack{{root}};
    state[root.v] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const std::vector<ClassId>& in = g.node(f.n).in;
      if (f.next == in.size()) {
        state[f.n.v] = 2;
        order.push_back(f.n);
        stack.pop_back();
        continue;
      }
      const NodeId d = producerOf(in[f.next++]);
      if (!d.valid()) continue;
      uint8_t& st = state[d.v];
      if (st == 1)
        throw Error(ErrorCode::Internal, "extraction chose producers that depend on each other (node " +
                                             std::to_string(d.v) + " needs its own result)");
      if (st == 0) {
        st = 1;
        stack.push_back({d});
      }
    }
  }
  return order;
}

uint32_t producerPool(const Graph& g, NodeId producer, const ExtractionDevices& d) {
  if (!producer.valid()) return 0;
  const Node& n = g.node(producer);
  if (isProducer(n)) return d.poolOf.at(n.device);
  return 0;
}

Extraction extract(const Graph& g, const std::vector<ClassId>& outputs, const ExtractionDevices& devices,
                   const std::vector<NodeId>& excluded) {
  Search s{g, outputs, devices, g.topoOrder(outputs, true)};
  Extraction ex;
  // 1. Greedy: in topological order, the producer with the lowest tree cost.
  std::unordered_map<ClassId, double> tree;
  std::unordered_map<ClassId, NodeId> choice;
  std::unordered_map<ClassId, std::vector<AlternativeCost>> alts;
  auto greedyPass = [&] {
    bool lowered = false;
    alts.clear();
    for (ClassId c : s.order) {
      if (g.isLeaf(c)) {
        tree[c] = 0;
        continue;
      }
      double best = kInf;
      NodeId bestNode;
      for (NodeId nid : g.eclass(c).nodes) {
        const Node& n = g.node(nid);
        if (!isProducer(n) || !s.deviceOk(n) || std::find(excluded.begin(), excluded.end(), nid) != excluded.end()) continue;
        AlternativeCost a{nid, s.ownCost(n, choice), 0, true};
        double sum = s.poolsMatch(n, choice) ? a.ownNs : kInf;
        for (ClassId in : n.in) {
          auto it = tree.find(in);
          sum += it == tree.end() ? kInf : it->second;
        }
        a.treeNs = sum;
        a.valid = std::isfinite(sum);
        alts[c].push_back(a);
        if (sum < best) {
          best = sum;
          bestNode = nid;
        }
      }
      auto known = tree.find(c);
      lowered = lowered || (known != tree.end() && best < known->second);
      tree[c] = best;
      if (bestNode.valid()) choice[c] = bestNode;
    }
    return lowered;
  };
  // Rewrites make the e-graph cyclic (x*1 lives in x's class), so the walk can order a class
  // before an operand of one of its producers: a second pass sees the operand's cost, and passes
  // repeat while a cost falls (bounded by the class count, as in Bellman-Ford).
  greedyPass();
  for (std::size_t pass = 0; pass < s.order.size(); ++pass)
    if (!greedyPass()) break;
  for (ClassId out : outputs)
    if (!std::isfinite(tree[out]))
      throw Error(ErrorCode::Unsupported,
                  "output class %" + std::to_string(out.v) + " has no producer on the selected devices "
                  "(a device that compiles kernels is needed; openblas only runs matmuls)");
  const std::unordered_map<ClassId, NodeId> greedy = choice;
  double cost = s.evaluate(choice);
  ex.greedyTreeNs = cost;
  // 2. Local search on the DAG cost. A single switch can look worse on its own (it makes a shared
  // producer needed) and pay off once other consumers switch to that producer too, so each trial
  // switch is followed by a sweep of improving single switches before it is judged.
  std::vector<ClassId> decisionClasses;
  for (ClassId c : s.order)
    if (auto it = alts.find(c); it != alts.end() && it->second.size() >= 2) decisionClasses.push_back(c);
  auto sweep = [&](std::unordered_map<ClassId, NodeId>& ch, double& total) {
    bool any = false;
    for (ClassId c : decisionClasses)
      for (const AlternativeCost& a : alts[c]) {
        if (!a.valid || ch[c] == a.node) continue;
        const NodeId old = ch[c];
        ch[c] = a.node;
        const double t = s.evaluate(ch);
        if (t + 1e-9 < total) {
          total = t;
          any = true;
        } else {
          ch[c] = old;
        }
      }
    return any;
  };
  for (int round = 0; round < 8 && sweep(choice, cost); ++round) ++ex.improvements;
  const bool lookahead = decisionClasses.size() <= 300;
  for (int round = 0; lookahead && round < 4; ++round) {
    bool improved = false;
    for (ClassId c : decisionClasses)
      for (const AlternativeCost& a : alts[c]) {
        if (!a.valid || choice[c] == a.node) continue;
        auto trial = choice;
        trial[c] = a.node;
        double t = s.evaluate(trial);
        sweep(trial, t);
        if (t + 1e-9 < cost) {
          choice = std::move(trial);
          cost = t;
          ++ex.improvements;
          improved = true;
        }
      }
    if (!improved) break;
  }
  ex.totalNs = cost;
  // 3. The chosen producers in dependency order, and the decisions. The order is taken from the
  // chosen nodes' own operands, not from the class order: that order follows every alternative,
  // and where alternatives form a cycle it is broken at an arbitrary class, which can put a
  // multi-output kernel before the producer of one of its operands.
  ex.order = chosenOrder(g, outputs, choice);
  std::unordered_set<uint32_t> needed;
  std::vector<ClassId> stack(outputs.begin(), outputs.end());
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (!needed.insert(c.v).second || g.isLeaf(c)) continue;
    for (ClassId in : g.node(choice.at(c)).in) stack.push_back(in);
  }
  for (ClassId c : s.order) {
    auto it = choice.find(c);
    if (!needed.count(c.v) || g.isLeaf(c) || it == choice.end()) continue;
    const NodeId n = it->second;
    ex.chosen[c] = n;
    ClassDecision d{c, n, alts[c], {}};
    const auto& al = d.alternatives;
    const auto bestTree = std::min_element(al.begin(), al.end(), [](auto& a, auto& b) { return a.treeNs < b.treeNs; });
    if (al.size() == 1) d.why = "only producer";
    else if (bestTree->node == n) d.why = "lowest cost among " + std::to_string(al.size()) + " alternatives";
    else {
      std::ostringstream os;
      os << "not the lowest tree cost, but shares producers with other classes: whole-plan (DAG) cost "
         << (greedy.at(c) == n ? "unchanged" : "lower") << " this way";
      d.why = os.str();
    }
    ex.decisions.push_back(std::move(d));
  }
  return ex;
}

}  // namespace ks
