// Structural hashes of e-classes (see term_hash.h).
#include "engine/graph/term_hash.h"

namespace ks {

uint64_t hashString(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  return h;
}

namespace {
uint64_t leafHash(const LeafInfo& l) {
  uint64_t h = hashMix(hashString(l.name), static_cast<uint64_t>(l.kind));
  h = hashMix(h, static_cast<uint64_t>(l.dtype));
  for (Dim d : l.shape) h = hashMix(h, static_cast<uint64_t>(d));
  if (l.kind == LeafKind::Constant && l.data) h = hashMix(h, l.data->contentHash());
  return h;
}

uint64_t deviceHash(uint32_t device, const std::vector<std::string>& names) {
  return device < names.size() ? hashString(names[device]) : hashMix(0xde71ceull, device);
}

uint64_t nodeHash(const Graph& g, ClassId c, const std::vector<uint64_t>& hashes, const std::vector<std::string>& names) {
  const Node& n = g.structural(c);
  uint64_t h = hashMix(0x7e12ull, static_cast<uint64_t>(n.kind));
  h = hashMix(h, n.op);
  h = hashMix(h, static_cast<uint64_t>(n.dtype));
  for (int64_t a : n.attr) h = hashMix(h, static_cast<uint64_t>(a));
  h = hashMix(h, n.value.hash());
  if (n.kind == NodeKind::Leaf) h = hashMix(h, leafHash(g.leaf(n.ref)));
  if (n.kind == NodeKind::ToDevice || n.kind == NodeKind::Kernel) h = hashMix(h, deviceHash(n.device, names));
  for (ClassId in : n.in) h = hashMix(h, hashes[g.find(in).v]);
  h = hashMix(h, static_cast<uint64_t>(g.dtype(c)));
  for (Dim d : g.shape(c)) h = hashMix(h, static_cast<uint64_t>(d));
  return h;
}
}  // namespace

std::vector<uint64_t> termHashes(const Graph& g, const std::vector<std::string>& deviceNames) {
  std::vector<uint64_t> hashes(g.classCount(), 0);
  // topoOrder walks structural operands only, operands first: each class's operands are hashed
  // before it.
  for (ClassId c : g.topoOrder(g.canonicalClasses())) hashes[c.v] = nodeHash(g, c, hashes, deviceNames);
  for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = hashes[g.find(ClassId(static_cast<uint32_t>(i))).v];
  return hashes;
}

}  // namespace ks
