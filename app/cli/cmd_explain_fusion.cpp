// `explain-fusion FILE CLASS_A CLASS_B [--run N]`: the step and rule that put two classes in
// different kernels, in the kernelizer run the plan's kernels come from or in run N.
#include <algorithm>
#include <cstdio>

#include "app/cli/cli_common.h"
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

void printSeparation(const Graph& g, ClassId a, ClassId b, const Separation& s) {
  std::printf("%%%u %s and %%%u %s: %s\n", a.v, g.structural(a).label().c_str(), b.v, g.structural(b).label().c_str(),
              s.sameKernel ? "same kernel" : "different kernels");
  if (s.step >= 0) std::printf("step %d, rule %s\n", s.step, s.rule.c_str());
  std::printf("%s\n", s.text.c_str());
}

std::string runList(const CompileTrace& t) {
  std::string out;
  for (std::size_t i = 0; i < t.fusionRuns.size(); ++i)
    out += "\n  run " + std::to_string(i) + ": " + runTitle(t.fusionRuns[i]) + (static_cast<int>(i) == t.planRun ? " (the plan's)" : "");
  return out;
}

// With no compiling device nothing is planned: the program as built is kernelized, as the
// pipeline's first run would.
int explainAsBuilt(const Program& p, ClassId a, ClassId b) {
  const KernelizeResult r = kernelize(p.graph, p.outputClasses());
  if (r.error) std::fprintf(stderr, "note: the kernelizer stopped early: %s\n", r.error->what());
  std::printf("run: the program as built (no compiling device, so no plan)\n");
  printSeparation(p.graph, a, b, r.trace.explainSeparation(a, b, &p.graph));
  return 0;
}
}  // namespace

int cmdExplainFusion(int argc, char** argv) {
  Args args("explain-fusion");
  args.positionals("FILE CLASS_A CLASS_B", "a program (or a .kss.json session) and two classes as %N");
  SessionFlags flags;
  addSessionFlags(args, flags);
  int runArg = -1;
  args.app().add_option("--run", runArg, "answer for kernelizer run N (default: the one the plan's kernels come from)")
      ->check(atLeast(0));
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 3) throw UsageError{"expects FILE CLASS_A CLASS_B (classes as %N, see `print`)"};
  const std::string path = args.positional()[0];
  const bool isSession = path.size() > 9 && path.substr(path.size() - 9) == ".kss.json";
  Session s = isSession ? Session::load(path) : Session(loadProgram(path), sessionOptions(flags));
  const Graph& g = s.graph();
  const ClassId a = g.find(parseClass(args.positional()[1], g)), b = g.find(parseClass(args.positional()[2], g));
  if (!isSession) {
    if (std::none_of(s.devices().begin(), s.devices().end(), [](const DeviceInfo& d) { return d.compiles(); })) {
      if (runArg >= 0) throw UsageError{"--run needs a compiling device: the host executor runs no kernelizer"};
      return explainAsBuilt(s.program(), a, b);
    }
    s.runTo(Stage::Planned);
  }
  const CompileTrace& t = s.trace();
  if (runArg >= static_cast<int>(t.fusionRuns.size()))
    throw UsageError{"--run " + std::to_string(runArg) + " is not a kernelizer run of this compile; its runs:" + runList(t)};
  const int index = runArg >= 0 ? runArg : t.planRun >= 0 ? t.planRun : 0;
  if (t.fusionRuns.empty()) throw Error(ErrorCode::Unsupported, "no kernelizer run to explain: the session was not kernelized");
  const KernelizerRun& run = t.fusionRuns[static_cast<std::size_t>(index)];
  std::printf("run %d (of %zu): %s, %zu kernels%s\n", index, t.fusionRuns.size(), runTitle(run).c_str(), run.kernels.size(),
              index == t.planRun ? ", the run the plan's kernels come from" : "");
  const Graph rg = runGraph(g, run);
  printSeparation(rg, a, b, run.trace.explainSeparation(a, b, &rg));
  return 0;
}

}  // namespace ks::cli
