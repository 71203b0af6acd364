// `diff A.kss.json B.kss.json [--json]`: two sessions matched by structure — per-kernel times,
// plan steps only one has or that changed, and the fusion and plan decisions that differ.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "engine/session/session_diff.h"
#include "engine/session/session_diff_json.h"

namespace ks::cli {

namespace {
std::string orDash(const std::optional<double>& ns) { return ns ? formatNs(*ns) : "-"; }
std::string orDash(const std::string& s) { return s.empty() ? "-" : s; }

void printSide(const char* tag, const DiffSide& s) {
  std::string devices;
  for (const std::string& d : s.devices) devices += (devices.empty() ? "" : ",") + d;
  std::printf("%s: %s  program %s  devices %s  tune %s  %zu kernels  %zu plan steps  predicted %s  last run %s (step times: %s)\n",
              tag, s.file.c_str(), s.program.c_str(), devices.c_str(), s.tune.c_str(), s.kernels, s.steps,
              formatNs(s.predictedNs).c_str(), orDash(s.runNs).c_str(), s.timesFromRun ? "the last run" : "tuned");
}

const char* statusOf(const DiffKernel& k) {
  if (!k.nsB) return "only A";
  if (!k.nsA) return "only B";
  return k.changed() ? "changed" : "same";
}

void printKernels(const SessionDiff& d) {
  std::printf("\n%-36s %-8s %12s %12s %12s %8s  %s\n", "kernel", "status", "A", "B", "B - A", "B / A", "A -> B (device, schedule)");
  double ta = 0, tb = 0;
  for (const DiffKernel& k : d.kernels) {
    std::string delta = "-", ratio = "-";
    if (k.nsA && k.nsB) {
      const double dn = *k.nsB - *k.nsA;
      delta = (dn < 0 ? "-" : "+") + formatNs(std::abs(dn));
      char r[32];
      std::snprintf(r, sizeof r, "%.2fx", *k.nsA > 0 ? *k.nsB / *k.nsA : 0.0);
      ratio = r;
    }
    ta += k.nsA.value_or(0);
    tb += k.nsB.value_or(0);
    std::string where = orDash(k.deviceA) + " " + orDash(k.scheduleA) + " -> " + orDash(k.deviceB) + " " + orDash(k.scheduleB);
    if (!k.changed()) where = k.nsA && k.nsB ? "" : !k.nsA && k.compiledA ? "(compiled in A, not launched)"
                                                  : !k.nsB && k.compiledB ? "(compiled in B, not launched)" : "";
    std::printf("%-36s %-8s %12s %12s %12s %8s  %s\n", k.name().c_str(), statusOf(k), orDash(k.nsA).c_str(),
                orDash(k.nsB).c_str(), delta.c_str(), ratio.c_str(), where.c_str());
  }
  std::printf("%-36s %-8s %12s %12s\n", "all launches", "", formatNs(ta).c_str(), formatNs(tb).c_str());
}

void printStep(const char* tag, const DiffStep& s) {
  std::printf("  %-8s step %-3d %s  (%s)\n", tag, s.index, s.label.c_str(), formatNs(s.ns).c_str());
}

void printPlan(const PlanDiff& p) {
  std::printf("\nplan: %d steps the same, %zu changed, %zu only in A, %zu only in B\n", p.same, p.changed.size(),
              p.onlyA.size(), p.onlyB.size());
  for (const DiffStepChange& c : p.changed) {
    std::string what;
    for (const std::string& w : c.what) what += (what.empty() ? "" : ", ") + w;
    std::printf("  %-8s step %d -> %d  %s -> %s  [%s]\n", "changed", c.a.index, c.b.index, c.a.label.c_str(),
                c.b.label.c_str(), what.c_str());
    if (c.a.schedule != c.b.schedule)
      std::printf("           schedule %s -> %s\n", orDash(c.a.schedule).c_str(), orDash(c.b.schedule).c_str());
  }
  for (const DiffStep& s : p.onlyA) printStep("only A", s);
  for (const DiffStep& s : p.onlyB) printStep("only B", s);
}

void printFusionStep(const char* tag, const std::optional<DiffFusionStep>& s) {
  if (!s) {
    std::printf("    %s: (the trace has ended)\n", tag);
    return;
  }
  std::printf("    %s: step %d %s %%%u %s, rule %s: %s\n", tag, s->index, s->action.c_str(), s->cls, s->node.c_str(),
              s->rule.c_str(), s->reason.c_str());
}

void printDecisions(const SessionDiff& d) {
  const FusionDecisionDiff& f = d.fusion;
  std::printf("\ndecisions:\n");
  if (f.firstDifference < 0) {
    std::printf("  fusion: the kernelizer made the same %d decisions\n", f.stepsA);
  } else {
    std::printf("  fusion: %d and %d steps; the first difference is at step %d (%d decisions only in A, %d only in B)\n",
                f.stepsA, f.stepsB, f.firstDifference, f.onlyA, f.onlyB);
    printFusionStep("A", f.a);
    printFusionStep("B", f.b);
  }
  std::printf("  plan choices: %zu classes have another producer\n", d.choices.size());
  for (const DiffChoice& c : d.choices)
    std::printf("    %%%u / %%%u %s: %s -> %s  (B: %s)\n", c.classA, c.classB, c.node.c_str(), c.chosenA.c_str(),
                c.chosenB.c_str(), c.whyB.c_str());
}

Session loadSide(const std::string& path) {
  try {
    return Session::load(path);
  } catch (const Error& e) {
    // A usage-coded load error would exit 2; a file that cannot be read is bad input (exit 1).
    if (e.code() == ErrorCode::Usage) throw Error(ErrorCode::Parse, e.what());
    throw;
  }
}
}  // namespace

int cmdDiff(int argc, char** argv) {
  Args args("diff");
  bool json = false;
  args.positionals("A B", "two session files (.kss.json): A is the baseline");
  args.app().add_flag("--json", json, "print a JSON object");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 2) throw UsageError{"expects two session files A.kss.json B.kss.json"};
  const std::string& fa = args.positional()[0];
  const std::string& fb = args.positional()[1];
  const Session a = loadSide(fa), b = loadSide(fb);
  SessionDiff d;
  try {
    d = diffSessions(a, b, fa, fb);
  } catch (const Error& e) {
    throw Error(ErrorCode::Parse, e.what());  // a session without a plan: bad input, exit 1
  }
  for (const std::string& w : a.trace().warnings) std::fprintf(stderr, "warning: %s: %s\n", fa.c_str(), w.c_str());
  for (const std::string& w : b.trace().warnings) std::fprintf(stderr, "warning: %s: %s\n", fb.c_str(), w.c_str());
  if (json) {
    std::printf("%s\n", sessionDiffJson(d).dump(2).c_str());
    return 0;
  }
  printSide("A", d.a);
  printSide("B", d.b);
  std::printf("classes: %zu matched by structure, %zu only in A, %zu only in B\n", d.matchedClasses, d.onlyAClasses.size(),
              d.onlyBClasses.size());
  printKernels(d);
  printPlan(d.plan);
  printDecisions(d);
  return 0;
}

}  // namespace ks::cli
