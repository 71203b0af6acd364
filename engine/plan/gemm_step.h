// A GEMM step as the openblas device runs it: the product of a match, its operands gathered on
// the host where they are windows (contraction_matcher.h) and an epilogue where the step stores a
// class above the product (gemm_epilogue.h). Everything is derived from the graph, when the
// matches are timed and again when a plan is prepared.
#pragma once
#include <optional>
#include <vector>

#include "engine/devices/gemm_gather.h"
#include "engine/plan/gemm_epilogue.h"
#include "engine/plan/matmul_matcher.h"

namespace ks {

// The matches, each followed by the same GEMM with the longest epilogue above its product (a
// MatmulMatch whose `out` is the class the epilogue ends at), where one follows.
std::vector<MatmulMatch> withEpilogues(const Graph& g, const std::vector<ClassId>& outputs, std::vector<MatmulMatch> matches);

// Whether class c is a product findMatmuls turns into a GEMM.
bool isGemmProduct(const Graph& g, ClassId c);

// The operands the GEMM of product c (reading a and b under spec) gathers on the host, as
// contractionGathers, for any GEMM findMatmuls proposes.
GemmGathers gemmGathers(const Graph& g, ClassId c, const GemmSpec& spec, ClassId a, ClassId b);

// What a GEMM step runs, prepared once: its gathers, the product and its epilogue (a Kernel node
// storing `out`, reading a, b and then the epilogue's operands). Throws ks::Error (Internal) when
// `out` is neither a GEMM nor an epilogue of one.
struct GemmStep {
  GemmStep(const Graph& g, ClassId out, const GemmSpec& spec, ClassId a, ClassId b);
  // a and b: the buffers the Kernel node reads (a gathered operand's source); c: out's buffer.
  void run(const float* a, const float* b, float* c, const std::vector<const float*>& extra);
  GemmSpec spec;
  GemmGathers gathers;
  std::optional<GemmEpilogue> epilogue;

 private:
  std::vector<float> scratch[2], product_, windows_;
};

}  // namespace ks
