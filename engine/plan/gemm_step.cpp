// GEMM steps: the matches findMatmuls makes, with their gathers and epilogues.
#include "engine/plan/gemm_step.h"

#include "engine/core/error.h"
#include "engine/devices/openblas_gemm.h"
#include "engine/plan/contraction_matcher.h"

namespace ks {

std::vector<MatmulMatch> withEpilogues(const Graph& g, const std::vector<ClassId>& outputs, std::vector<MatmulMatch> matches) {
  const StructuralUses uses = structuralUses(g, outputs);
  std::vector<MatmulMatch> r;
  for (MatmulMatch& m : matches) {
    const auto end = epilogueEnd(g, m.out, uses, outputs);
    r.push_back(m);
    if (!end) continue;
    m.out = *end;
    r.push_back(std::move(m));
  }
  return r;
}

GemmStep::GemmStep(const Graph& g, ClassId out, const GemmSpec& s, ClassId a, ClassId b) : spec(s) {
  ClassId product = out;
  if (!isGemmProduct(g, out)) {
    epilogue = epilogueOf(g, out, [&g](ClassId x) { return isGemmProduct(g, x); });
    if (!epilogue) throw Error(ErrorCode::Internal, "%" + std::to_string(out.v) + " is neither a GEMM nor its epilogue");
    product = epilogue->product;
  }
  gathers = gemmGathers(g, product, spec, a, b);
  for (int f = 0; f < 2; ++f)
    if (gathers[f]) scratch[f].resize(static_cast<std::size_t>(gathers[f]->batchElements));
  if (epilogue) {
    product_.resize(static_cast<std::size_t>(epilogue->productElements + 1));
    windows_.resize(static_cast<std::size_t>(epilogue->scratchElements()));
  }
}

void GemmStep::run(const float* a, const float* b, float* c, const std::vector<const float*>& extra) {
  float* product = epilogue ? product_.data() : c;
  runGemm(spec, gathers[0] ? &*gathers[0] : nullptr, gathers[1] ? &*gathers[1] : nullptr, a, b, product, scratch[0].data(),
          scratch[1].data());
  if (epilogue) epilogue->apply(product, c, extra, windows_.data());
}


bool isGemmProduct(const Graph& g, ClassId c) { return matchMatmul(g, c) || matchContraction(g, c); }

GemmGathers gemmGathers(const Graph& g, ClassId c, const GemmSpec& spec, ClassId a, ClassId b) {
  if (matchMatmul(g, c)) return {};
  return contractionGathers(g, c, spec, a, b);
}

}  // namespace ks
