// `explain-plan FILE CLASS [--json]`: why the plan computes a class the way it does, with measured times.
#include <cstdio>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/program_loader.h"
#include "engine/session/plan_explanation_json.h"

namespace ks::cli {

namespace {
ClassId classArg(const std::string& s, const Graph& g) {
  const std::string digits = !s.empty() && s[0] == '%' ? s.substr(1) : s;
  std::size_t used = 0;
  unsigned long v = 0;
  try {
    v = std::stoul(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size() || v >= g.classCount())
    throw UsageError{"'" + s + "' is not a class of this program (expected %N with N < " + std::to_string(g.classCount()) + ", see `print`)"};
  return ClassId(static_cast<uint32_t>(v));
}
}  // namespace

int cmdExplainPlan(int argc, char** argv) {
  Args args("explain-plan");
  args.positionals("FILE CLASS", "a program and a class as %N");
  SessionFlags flags;
  addSessionFlags(args, flags);
  bool json = false;
  args.app().add_flag("--json", json, "print a JSON object");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 2) throw UsageError{"expects FILE CLASS (a class as %N, see `print`)"};
  const SessionOptions options = sessionOptions(flags);
  Program p = loadProgram(args.positional()[0]);
  const ClassId c = classArg(args.positional()[1], p.graph);
  Session s(std::move(p), options);
  if (!s.devices().empty() && s.devices().size() == 1 && s.devices()[0].kind == DeviceKind::Host)
    throw UsageError{"explain-plan needs a compiling device: the host executor has no plan"};
  s.runTo(Stage::Planned);
  const PlanExplanation e = explainPlan(s, c);
  if (json)
    std::printf("%s\n", explanationJson(s, e).dump(2).c_str());
  else
    std::fputs(explanationText(s, e).c_str(), stdout);
  return 0;
}

}  // namespace ks::cli
