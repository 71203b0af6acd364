// A kernelizer run of the pipeline: which candidate term it fused, before or after AOT matching,
// with its own FusionTrace; and which run's kernels the plan uses, the one views open on.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/kernelizer/fusion_trace.h"
#include "engine/rewrite/term.h"

namespace ks {

// Class ids in `trace` and `forms` are the e-graph's (a runner-up term's own ids mapped through
// its origin and find), so `explain-fusion A B` takes the same %N in every run.
struct KernelizerRun {
  int candidate = 0;      // index into RewriteTrace::candidates (0: the static best, or the only term)
  std::string term;       // that candidate's source: "static best", "runner-up 1", "as built"; "program" without rewrites
  bool afterAot = false;  // the AOT kernels (GEMMs) were region boundaries: the run that fills the gaps between them
  FusionTrace trace;
  std::vector<uint32_t> kernels;  // the trace kernel (CompileTrace::kernels) each kernel it made is, shared ones too
  std::vector<uint32_t> gemms;    // the AOT matches (CompileTrace::matches) that bounded it (afterAot only)
  // The e-nodes its term computes where they are not the e-graph's structural ones, as (class,
  // node): what a runner-up or the as-built term does differently. Empty for the static best.
  std::vector<std::pair<uint32_t, uint32_t>> forms;
};

// "static best, after AOT matching" — what a person needs to tell the runs apart.
std::string runTitle(const KernelizerRun& r);

// The plan's kernel steps, as indices into CompileTrace::kernels (fused) and ::matches (GEMMs).
struct PlanKernels {
  std::vector<uint32_t> fused;
  std::vector<uint32_t> gemms;
};

// The run whose kernels the plan uses: the most of the plan's kernel steps made by it (a GEMM
// counts for the runs it bounded); on a tie, the one with fewest kernels the plan does not use,
// then the earliest. -1 when there is no run.
int planRunOf(const std::vector<KernelizerRun>& runs, const PlanKernels& plan);

// The graph a run kernelized, as far as its trace needs it (labels, operands): the e-graph with
// the run's forms as structural nodes. Throws Error(Invariant) when the forms are not the
// graph's (chooseStructural's check).
Graph runGraph(const Graph& egraph, const KernelizerRun& r);

// The trace of a term's own graph with its classes named as the e-graph's, in the reasons too.
FusionTrace traceInEGraph(FusionTrace t, const Graph& egraph, const std::vector<ClassId>& origin);
// The e-nodes a materialised term computes that are not the e-graph's structural ones (its forms),
// except those reading their own class (they would make the structural nodes cycle).
std::vector<std::pair<uint32_t, uint32_t>> formsOf(const Graph& egraph, const MaterializedTerm& term);

}  // namespace ks
