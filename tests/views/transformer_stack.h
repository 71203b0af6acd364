// Test generator: a stack of transformer blocks (layer norm, attention, MLP, residuals) with a
// kernel alternative added to every reduction class, to give the views a large, real e-graph.
#pragma once
#include <string>

#include "engine/program/builder.h"

namespace ks::testgen {

struct TransformerStack {
  Program program;
  int alternatives = 0;
};

inline TransformerStack makeTransformerStack(int blocks, int seq = 16, int dModel = 32, int heads = 2) {
  ProgramBuilder b("transformer_stack");
  const int dHead = dModel / heads;
  Value x = b.input("x", DType::F32, {seq, dModel});
  auto p = [&](const std::string& name, Shape s, uint64_t seed) {
    return b.param(name, DType::F32, s, ParamInit{ParamInit::Kind::Normal, 0.0, 0.05, seed, nullptr});
  };
  for (int i = 0; i < blocks; ++i) {
    const std::string k = "b" + std::to_string(i) + "_";
    const uint64_t s = 100 * static_cast<uint64_t>(i);
    Value h = op::layerNorm(x, p(k + "ln1_w", {dModel}, s + 1), p(k + "ln1_b", {dModel}, s + 2));
    auto heads3 = [&](Value t) { return op::permute(op::reshape(t, {seq, heads, dHead}), {1, 0, 2}); };
    Value q = heads3(op::linear(h, p(k + "wq", {dModel, dModel}, s + 3)));
    Value kk = heads3(op::linear(h, p(k + "wk", {dModel, dModel}, s + 4)));
    Value v = heads3(op::linear(h, p(k + "wv", {dModel, dModel}, s + 5)));
    Value a = op::scaledDotProductAttention(q, kk, v, true);
    a = op::reshape(op::permute(a, {1, 0, 2}), {seq, dModel});
    x = op::add(x, op::linear(a, p(k + "wo", {dModel, dModel}, s + 6), p(k + "bo", {dModel}, s + 7)));
    Value m = op::layerNorm(x, p(k + "ln2_w", {dModel}, s + 8), p(k + "ln2_b", {dModel}, s + 9));
    m = op::gelu(op::linear(m, p(k + "w1", {dModel, 4 * dModel}, s + 10), p(k + "b1", {4 * dModel}, s + 11)));
    x = op::add(x, op::linear(m, p(k + "w2", {4 * dModel, dModel}, s + 12), p(k + "b2", {dModel}, s + 13)));
  }
  b.output("y", x);
  TransformerStack out{b.finish(), 0};
  // Kernel alternatives: one "compiled kernel" node per reduction, as autotuning would add.
  Graph& g = out.program.graph;
  const std::size_t n = g.classCount();
  for (uint32_t c = 0; c < n; ++c) {
    const Node& s = g.structural(ClassId(c));
    if (s.kind != NodeKind::Reduce) continue;
    Node kn;
    kn.kind = NodeKind::Kernel;
    kn.in = s.in;
    kn.out = {ClassId(c)};
    kn.ref = c;
    kn.device = 1;
    kn.timeNs = 1000.0 + c;
    g.addAlternative(ClassId(c), kn);
    ++out.alternatives;
  }
  return out;
}

}  // namespace ks::testgen
