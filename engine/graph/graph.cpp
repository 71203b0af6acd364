// Hashconsing, shape/dtype inference and traversal of the e-graph.
#include "engine/graph/graph.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "engine/core/error.h"

namespace ks {

namespace {
std::string describe(const Graph& g, ClassId c) {
  return std::string(dtypeName(g.dtype(c))) + shapeStr(g.shape(c));
}
[[noreturn]] void fail(ErrorCode code, const Node& n, const std::string& msg) {
  throw Error(code, msg, {}, n.label());
}

// Ops whose result keeps the operand's dtype and moves, crops or removes its axes.
void inferShapeOp(const Graph& g, const Node& n, Shape& shape, DType& dtype) {
  switch (n.kind) {
    case NodeKind::Expand: {
      const Shape& s = g.shape(n.in[0]);
      if (n.attr.size() != s.size())
        fail(ErrorCode::Shape, n, "expand of " + describe(g, n.in[0]) + " to " + shapeStr(n.attr) +
                                      ": ranks differ (reshape first)");
      for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] != n.attr[i] && s[i] != 1)
          fail(ErrorCode::Shape, n, "cannot expand " + shapeStr(s) + " to " + shapeStr(n.attr) + " (dimension " +
                                        std::to_string(i) + " is " + std::to_string(s[i]) + ", not 1)");
      shape = n.attr;
      dtype = g.dtype(n.in[0]);
      return;
    }
    case NodeKind::Permute: {
      const Shape& s = g.shape(n.in[0]);
      std::vector<bool> seen(s.size(), false);
      if (n.attr.size() != s.size()) fail(ErrorCode::Axis, n, "permutation length differs from rank " + std::to_string(s.size()));
      shape.clear();
      for (int64_t a : n.attr) {
        if (a < 0 || a >= static_cast<int64_t>(s.size()) || seen[a])
          fail(ErrorCode::Axis, n, "not a permutation of the axes of " + shapeStr(s));
        seen[a] = true;
        shape.push_back(s[a]);
      }
      dtype = g.dtype(n.in[0]);
      return;
    }
    case NodeKind::Reshape: {
      for (int64_t d : n.attr)
        if (d < 0) fail(ErrorCode::Shape, n, "negative dimension in reshape target " + shapeStr(n.attr));
      if (numel(n.attr) != numel(g.shape(n.in[0])))
        fail(ErrorCode::Shape, n, "cannot reshape " + describe(g, n.in[0]) + " (" +
                                      std::to_string(numel(g.shape(n.in[0]))) + " elements) to " +
                                      shapeStr(n.attr) + " (" + std::to_string(numel(n.attr)) + " elements)");
      shape = n.attr;
      dtype = g.dtype(n.in[0]);
      return;
    }
    case NodeKind::Pad: {
      shape = g.shape(n.in[0]);
      if (n.attr.size() != 3 || n.attr[0] < 0 || n.attr[0] >= static_cast<int64_t>(shape.size()))
        fail(ErrorCode::Axis, n, "pad axis out of range for " + shapeStr(shape));
      const int64_t len = shape[n.attr[0]] + n.attr[1] + n.attr[2];
      if (len < 0 || -n.attr[1] > shape[n.attr[0]] || -n.attr[2] > shape[n.attr[0]])
        fail(ErrorCode::Shape, n, "pads crop more than the dimension of " + shapeStr(shape));
      shape[n.attr[0]] = len;
      dtype = g.dtype(n.in[0]);
      if (n.value.dtype() != dtype) fail(ErrorCode::DType, n, "pad value dtype differs from the tensor's");
      return;
    }
    case NodeKind::Narrow: {
      shape = g.shape(n.in[0]);
      if (n.attr.size() != 3 || n.attr[0] < 0 || n.attr[0] >= static_cast<int64_t>(shape.size()))
        fail(ErrorCode::Axis, n, "narrow axis out of range for " + shapeStr(shape));
      const int64_t d = shape[n.attr[0]];
      if (n.attr[1] < 0 || n.attr[2] < 0 || n.attr[1] + n.attr[2] > d)
        fail(ErrorCode::Shape, n, "range [" + std::to_string(n.attr[1]) + ", " + std::to_string(n.attr[1] + n.attr[2]) +
                                      ") is outside dimension of size " + std::to_string(d));
      shape[n.attr[0]] = n.attr[2];
      dtype = g.dtype(n.in[0]);
      return;
    }
    case NodeKind::Flip:
    case NodeKind::Reduce: {
      const Shape& s = g.shape(n.in[0]);
      for (std::size_t i = 0; i < n.attr.size(); ++i)
        if (n.attr[i] < 0 || n.attr[i] >= static_cast<int64_t>(s.size()) || (i && n.attr[i] <= n.attr[i - 1]))
          fail(ErrorCode::Axis, n, "axes must be sorted, unique and within rank " + std::to_string(s.size()));
      dtype = g.dtype(n.in[0]);
      if (n.kind == NodeKind::Flip) {
        shape = s;
        return;
      }
      shape.clear();
      for (std::size_t i = 0; i < s.size(); ++i)
        if (std::find(n.attr.begin(), n.attr.end(), static_cast<int64_t>(i)) == n.attr.end()) shape.push_back(s[i]);
      return;
    }
    default:
      fail(ErrorCode::Internal, n, "not a shape op");
  }
}

bool sameOrConst(const Graph& g, ClassId a, ClassId b) { return g.shape(a) == g.shape(b) || g.isConst(a) || g.isConst(b); }

// Elementwise ops: operands of one dtype (conditions bool) and one shape, rank-0 constants aside.
void inferElementwise(const Graph& g, const Node& n, Shape& shape, DType& dtype) {
  switch (n.kind) {
    case NodeKind::Unary: {
      shape = g.shape(n.in[0]);
      dtype = g.dtype(n.in[0]);
      const UnaryOp u = n.unaryOp();
      if (u == UnaryOp::IsNan) {
        dtype = DType::Bool;
      } else if (u == UnaryOp::Not) {
        if (isFloat(dtype)) fail(ErrorCode::DType, n, "not of a float tensor");
      } else if (u != UnaryOp::Neg && u != UnaryOp::Abs && u != UnaryOp::Sign && !isFloat(dtype)) {
        fail(ErrorCode::DType, n, std::string(unaryOpName(u)) + " needs a float operand, got " + describe(g, n.in[0]));
      }
      return;
    }
    case NodeKind::Binary: {
      const ClassId x = n.in[0], y = n.in[1];
      if (g.dtype(x) != g.dtype(y))
        fail(ErrorCode::DType, n, "operand dtypes differ: " + describe(g, x) + " vs " + describe(g, y));
      if (!sameOrConst(g, x, y))
        fail(ErrorCode::Shape, n, "operand shapes differ: " + describe(g, x) + " vs " + describe(g, y));
      const BinaryOp b = n.binaryOp();
      if ((b == BinaryOp::And || b == BinaryOp::Or || b == BinaryOp::Xor) && isFloat(g.dtype(x)))
        fail(ErrorCode::DType, n, "logical/bitwise op on float operands");
      shape = g.isConst(x) ? g.shape(y) : g.shape(x);
      dtype = isComparison(b) ? DType::Bool : g.dtype(x);
      return;
    }
    case NodeKind::Where: {
      const ClassId c = n.in[0], a = n.in[1], b = n.in[2];
      if (g.dtype(c) != DType::Bool) fail(ErrorCode::DType, n, "condition must be bool, got " + describe(g, c));
      if (g.dtype(a) != g.dtype(b))
        fail(ErrorCode::DType, n, "branch dtypes differ: " + describe(g, a) + " vs " + describe(g, b));
      if (!sameOrConst(g, c, a) || !sameOrConst(g, c, b) || !sameOrConst(g, a, b))
        fail(ErrorCode::Shape, n, "shapes differ: " + describe(g, c) + ", " + describe(g, a) + ", " + describe(g, b));
      shape = {};
      for (ClassId o : n.in)
        if (!g.isConst(o)) shape = g.shape(o);
      dtype = g.dtype(a);
      return;
    }
    default:
      fail(ErrorCode::Internal, n, "not an elementwise op");
  }
}
}  // namespace

void Graph::infer(const Node& n, Shape& shape, DType& dtype) const {
  for (ClassId c : n.in)
    if (!c.valid() || c.v >= classes_.size()) fail(ErrorCode::Internal, n, "operand class out of range");
  switch (n.kind) {
    case NodeKind::Const:
      shape = {};
      dtype = n.value.dtype();
      return;
    case NodeKind::Leaf:
      shape = leaves_.at(n.ref).shape;
      dtype = leaves_.at(n.ref).dtype;
      return;
    case NodeKind::Expand:
    case NodeKind::Permute:
    case NodeKind::Reshape:
    case NodeKind::Pad:
    case NodeKind::Narrow:
    case NodeKind::Flip:
    case NodeKind::Reduce:
      inferShapeOp(*this, n, shape, dtype);
      return;
    case NodeKind::Cast:
      shape = this->shape(n.in[0]);
      dtype = n.dtype;
      return;
    case NodeKind::Bitcast:
      shape = this->shape(n.in[0]);
      if (dtypeSize(n.dtype) != dtypeSize(this->dtype(n.in[0])))
        fail(ErrorCode::DType, n, "bitcast between dtypes of different sizes");
      dtype = n.dtype;
      return;
    case NodeKind::Unary:
    case NodeKind::Binary:
    case NodeKind::Where:
      inferElementwise(*this, n, shape, dtype);
      return;
    case NodeKind::Contiguous:
    case NodeKind::ToDevice:
      shape = this->shape(n.in[0]);
      dtype = this->dtype(n.in[0]);
      return;
    case NodeKind::Kernel:
      fail(ErrorCode::Internal, n, "kernel nodes join an existing class (addAlternative)");
  }
}

ClassId Graph::newClass(Node n, Shape shape, DType dtype) {
  const NodeId nid(static_cast<uint32_t>(nodes_.size()));
  const ClassId cid(static_cast<uint32_t>(classes_.size()));
  hashcons_.emplace(n, nid);
  nodes_.push_back({std::move(n), cid});
  classes_.push_back({{nid}, std::move(shape), dtype});
  parent_.push_back(cid);
  return cid;
}

ClassId Graph::add(Node n) {
  canonicalize(n);
  if (auto it = hashcons_.find(n); it != hashcons_.end()) return nodes_[it->second.v].cls;
  Shape shape;
  DType dtype;
  infer(n, shape, dtype);
  return newClass(std::move(n), std::move(shape), dtype);
}

ClassId Graph::addLeaf(LeafInfo leaf) {
  Node n;
  n.kind = NodeKind::Leaf;
  n.dtype = leaf.dtype;
  n.ref = static_cast<uint32_t>(leaves_.size());
  leaves_.push_back(std::move(leaf));
  const ClassId c = add(std::move(n));
  leafClasses_.push_back(c);
  return c;
}

ClassId Graph::addConst(Scalar v) {
  Node n;
  n.kind = NodeKind::Const;
  n.dtype = v.dtype();
  n.value = v;
  return add(std::move(n));
}

NodeId Graph::addAlternative(ClassId c, Node n) {
  canonicalize(n);
  c = find(c);
  if (auto it = hashcons_.find(n); it != hashcons_.end()) return it->second;
  const NodeId nid(static_cast<uint32_t>(nodes_.size()));
  hashcons_.emplace(n, nid);
  nodes_.push_back({std::move(n), c});
  classes_.at(c.v).nodes.push_back(nid);
  return nid;
}

void Graph::attachNode(ClassId c, NodeId n) {
  auto& nodes = classes_.at(find(c).v).nodes;
  if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
}

ClassId Graph::addToDevice(ClassId x, uint32_t device, double timeNs) {
  Node n;
  n.kind = NodeKind::ToDevice;
  n.in = {x};
  n.device = device;
  n.timeNs = timeNs;
  canonicalize(n);
  if (auto it = hashcons_.find(n); it != hashcons_.end()) return nodes_[it->second.v].cls;
  return newClass(std::move(n), shape(x), dtype(x));
}

std::vector<ClassId> Graph::topoOrder(const std::vector<ClassId>& outputs, bool followAlternatives,
                                      const std::unordered_set<ClassId>* stopAt,
                                      const std::unordered_set<ClassId>* allowed) const {
  std::vector<ClassId> order;
  std::vector<uint8_t> state(classes_.size(), 0);  // by canonical id: 0 new, 1 on stack, 2 done
  // Iterative DFS: graphs of transformer stacks are deep enough to overflow a recursive one.
  struct Frame {
    ClassId c;
    std::vector<ClassId> deps;
    std::size_t next = 0;
  };
  auto depsOf = [&](ClassId c) {
    std::vector<ClassId> deps;
    if (stopAt && stopAt->count(c)) return deps;
    const auto& nodes = eclass(c).nodes;
    const std::size_t count = followAlternatives ? nodes.size() : 1;
    for (std::size_t i = 0; i < count; ++i)
      for (ClassId d0 : node(nodes[i]).in) {
        const ClassId d = find(d0);
        if ((!allowed || allowed->count(d) || allowed->count(d0)) && std::find(deps.begin(), deps.end(), d) == deps.end())
          deps.push_back(d);
      }
    return deps;
  };
  for (ClassId out0 : outputs) {
    const ClassId out = find(out0);
    if (state[out.v]) continue;
    std::vector<Frame> stack;
    stack.push_back({out, depsOf(out)});
    state[out.v] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.deps.size()) {
        const ClassId d = f.deps[f.next++];
        if (state[d.v] == 0) {
          state[d.v] = 1;
          stack.push_back({d, depsOf(d)});
        }
      } else {
        state[f.c.v] = 2;
        order.push_back(f.c);
        stack.pop_back();
      }
    }
  }
  return order;
}

uint64_t Graph::cacheKey(const std::vector<ClassId>& outputs) const {
  uint64_t h = 0x84222325cbf29ce4ull;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  for (const NodeData& nd : nodes_) {
    mix(nd.node.hash());
    mix(nd.cls.v);
    if (nd.node.kind == NodeKind::Leaf) {
      const LeafInfo& l = leaves_[nd.node.ref];
      mix(static_cast<uint64_t>(l.kind));
      if (l.kind == LeafKind::Constant && l.data) mix(l.data->contentHash());
    }
  }
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    const EClass& c = classes_[i];
    mix(parent_[i].v);
    mix(static_cast<uint64_t>(c.dtype));
    mix(c.shape.size());
    for (Dim d : c.shape) mix(static_cast<uint64_t>(d));
  }
  mix(0x07u);
  for (ClassId c : outputs) mix(find(c).v);
  return h;
}

std::string Graph::dump() const {
  std::ostringstream os;
  for (std::size_t ci = 0; ci < classes_.size(); ++ci) {
    const EClass& c = classes_[ci];
    if (!isCanonical(ClassId(static_cast<uint32_t>(ci)))) {
      os << "%" << ci << " = %" << find(ClassId(static_cast<uint32_t>(ci))).v << " (merged)\n";
      continue;
    }
    for (std::size_t k = 0; k < c.nodes.size(); ++k) {
      const Node& n = node(c.nodes[k]);
      os << (k == 0 ? "%" + std::to_string(ci) + " = " : "     | ") << n.label();
      if (n.kind == NodeKind::Leaf) os << " '" << leaves_[n.ref].name << "'";
      os << "(";
      for (std::size_t i = 0; i < n.in.size(); ++i) os << (i ? ", %" : "%") << find(n.in[i]).v;
      os << ")";
      if (n.kind == NodeKind::Kernel || n.kind == NodeKind::ToDevice) os << " time=" << n.timeNs << "ns";
      if (k == 0) os << " : " << dtypeName(c.dtype) << shapeStr(c.shape);
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace ks
