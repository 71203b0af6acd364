// `explain-fusion FILE CLASS_A CLASS_B`: the step and rule that put two classes in different kernels.
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/program_loader.h"
#include "engine/kernelizer/kernelizer.h"

namespace ks::cli {

namespace {
ClassId parseClass(const std::string& s, const Graph& g) {
  const std::string digits = !s.empty() && s[0] == '%' ? s.substr(1) : s;
  try {
    std::size_t used = 0;
    const unsigned long v = std::stoul(digits, &used);
    if (used == digits.size() && v < g.classCount()) return ClassId(static_cast<uint32_t>(v));
  } catch (const std::exception&) {
  }
  throw UsageError{"'" + s + "' is not a class of this program (expected %N with N < " + std::to_string(g.classCount()) + ")"};
}
}  // namespace

int cmdExplainFusion(int argc, char** argv) {
  Args args("explain-fusion");
  args.positionals("FILE CLASS_A CLASS_B", "a program and two classes as %N");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 3) throw UsageError{"expects FILE CLASS_A CLASS_B (classes as %N, see `print`)"};
  const Program p = loadProgram(args.positional()[0]);
  const ClassId a = parseClass(args.positional()[1], p.graph), b = parseClass(args.positional()[2], p.graph);
  const KernelizeResult r = kernelize(p.graph, p.outputClasses());
  if (r.error) std::fprintf(stderr, "note: the kernelizer stopped early: %s\n", r.error->what());
  const Separation s = r.trace.explainSeparation(a, b, &p.graph);
  std::printf("%%%u %s and %%%u %s: %s\n", a.v, p.graph.structural(a).label().c_str(), b.v,
              p.graph.structural(b).label().c_str(), s.sameKernel ? "same kernel" : "different kernels");
  if (s.step >= 0) std::printf("step %d, rule %s\n", s.step, s.rule.c_str());
  std::printf("%s\n", s.text.c_str());
  return 0;
}

}  // namespace ks::cli
