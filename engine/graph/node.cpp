// Equality, hashing and labels of e-nodes.
#include "engine/graph/node.h"

#include <array>

namespace ks {

std::string_view nodeKindName(NodeKind k) {
  static constexpr std::array<std::string_view, kNumNodeKinds> names{
      "const", "leaf", "expand", "permute", "reshape", "pad", "narrow", "flip", "reduce", "cast",
      "bitcast", "unary", "binary", "where", "contiguous", "to_device", "kernel"};
  return names[static_cast<std::size_t>(k)];
}

bool Node::operator==(const Node& o) const {
  return kind == o.kind && op == o.op && dtype == o.dtype && in == o.in && attr == o.attr &&
         value == o.value && ref == o.ref && device == o.device && out == o.out;
}

uint64_t Node::hash() const {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  mix(static_cast<uint64_t>(kind));
  mix(op);
  mix(static_cast<uint64_t>(dtype));
  for (ClassId c : in) mix(c.v);
  mix(0xffff);
  for (int64_t a : attr) mix(static_cast<uint64_t>(a));
  mix(value.hash());
  mix(ref);
  mix(device);
  for (ClassId c : out) mix(c.v);
  return h;
}

namespace {
std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

std::string Node::label() const {
  switch (kind) {
    case NodeKind::Const: return "const " + value.str();
    case NodeKind::Leaf: return "leaf #" + std::to_string(ref);
    case NodeKind::Expand: return "expand " + list(attr);
    case NodeKind::Permute: return "permute " + list(attr);
    case NodeKind::Reshape: return "reshape " + list(attr);
    case NodeKind::Pad:
      if (attr.size() != 3) return "pad " + list(attr);  // malformed: infer names the problem
      return "pad axis=" + std::to_string(attr[0]) + " (" + std::to_string(attr[1]) + "," +
             std::to_string(attr[2]) + ")" + (value.toDouble() != 0.0 ? " value=" + value.str() : "");
    case NodeKind::Narrow:
      if (attr.size() != 3) return "narrow " + list(attr);
      return "narrow axis=" + std::to_string(attr[0]) + " start=" + std::to_string(attr[1]) +
             " len=" + std::to_string(attr[2]);
    case NodeKind::Flip: return "flip " + list(attr);
    case NodeKind::Reduce: return "reduce " + std::string(reduceOpName(reduceOp())) + " " + list(attr);
    case NodeKind::Cast: return "cast " + std::string(dtypeName(dtype));
    case NodeKind::Bitcast: return "bitcast " + std::string(dtypeName(dtype));
    case NodeKind::Unary: return std::string(unaryOpName(unaryOp()));
    case NodeKind::Binary: return std::string(binaryOpName(binaryOp()));
    case NodeKind::Where: return "where";
    case NodeKind::Contiguous: return "contiguous";
    case NodeKind::ToDevice: return "to_device d" + std::to_string(device);
    case NodeKind::Kernel: return "kernel #" + std::to_string(ref) + " d" + std::to_string(device);
  }
  return "?";
}

}  // namespace ks
