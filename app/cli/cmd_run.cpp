// `run FILE ...`: compile, tune, extract one plan over the listed devices, execute, print the
// outputs and a per-kernel timing table (or one JSON object with --json).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "engine/core/file_io.h"
#include "engine/io/npy.h"
#include "engine/io/program_source.h"
#include "engine/session/run_json.h"

namespace ks::cli {

namespace {
// " loss=0.693147" for every output of one element: a training curve line per step.
std::string scalarSummary(const RunRecord& r) {
  std::string s;
  char buf[96];
  for (const OutputValue& o : r.outputs) {
    if (o.value.numel() != 1) continue;
    std::snprintf(buf, sizeof buf, " %s=%.9g", o.name.c_str(), o.value.getDouble(0));
    s += buf;
  }
  return s;
}

// "step 2: update 'v1' (index 3: got 0.1, expected 0.2)": updates are only checked, not printed,
// so a mismatch in one must say which.
std::string describeMismatch(const RunRecord& r, int steps) {
  std::string where = steps > 1 ? "step " + std::to_string(r.step + 1) + ": " : "";
  for (const OutputValue& o : r.outputs)
    if (!o.mismatch.empty()) return where + "output '" + o.name + "' (" + o.mismatch + ")";
  for (const OutputValue& o : r.updates)
    if (!o.mismatch.empty()) return where + "the update of param '" + o.name + "' (" + o.mismatch + ")";
  return where + "a value";
}

// " (2 of 4 values NaN)": min and max skip NaN values, so their count is said.
std::string nanNote(const HostTensor& t) {
  int64_t nans = 0;
  for (int64_t e = 0; e < t.numel(); ++e) nans += std::isnan(t.getDouble(e));
  if (nans == 0) return {};
  return nans == t.numel() ? " (all " + std::to_string(nans) + " values NaN)"
                           : " (" + std::to_string(nans) + " of " + std::to_string(t.numel()) + " values NaN)";
}
}  // namespace

namespace {
// The candidate plans measured before the run, and why the kept one won.
void printPlanChoice(const PlanChoice& c) {
  if (c.candidates.empty()) return;
  std::printf("plan: %s\n", c.why.c_str());
  const PlanCandidate* kept = c.chosen >= 0 ? &c.candidates.at(static_cast<std::size_t>(c.chosen)) : nullptr;
  for (const PlanCandidate& x : c.candidates) {
    std::printf("  %s %-28s %-12s predicted %10s  measured %10s%s%s\n", x.chosen ? "*" : " ", x.devices.c_str(),
                x.blasThreads ? "blas 1 thr" : "", formatNs(x.predictedNs).c_str(),
                x.measuredNs >= 0 ? formatNs(x.measuredNs).c_str() : "-", x.note.empty() ? "" : "  ", x.note.c_str());
    if (!x.variant.empty()) std::printf("      local search: %s\n", x.variant.c_str());
    const std::string differs = kept && kept != &x ? planDifference(x, *kept) : "";
    if (!differs.empty()) std::printf("      vs the kept plan: %s\n", differs.c_str());
  }
  if (!c.policy.empty()) std::printf("  %s\n", c.policy.c_str());
}
}  // namespace

int cmdRun(int argc, char** argv) {
  Args args("run");
  SessionFlags flags;
  addSessionFlags(args, flags);
  std::vector<std::string> inputSpecs;
  std::string saveOutputs, sessionPath;
  bool verify = false, json = false;
  int steps = 1, repeat = 20, warmup = 3;
  args.repeatable("--input", inputSpecs, "NAME=FILE (.npy or ONNX TensorProto .pb)");
  args.app().add_flag("--verify", verify, "compare every output with the host reference");
  args.app().add_option("--save-outputs", saveOutputs, "write every output as DIR/NAME.npy");
  args.app().add_option("--session", sessionPath, "save the session as OUT.kss.json");
  args.app().add_flag("--json", json, "print one JSON object");
  args.app()
      .add_option("--steps", steps, "run the program N times in one session; params updated with '<-' carry over")
      ->check(atLeast(1));
  args.app().add_option("--repeat", repeat, "steady-state runs after the cold one (medians; 0: only the cold run)")
      ->check(atLeast(0));
  args.app().add_option("--warmup", warmup, "untimed runs before the steady-state ones")->check(atLeast(0));
  args.positionals("FILE", "a .ks program or an .onnx model");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 1) throw UsageError{"expects one FILE (.ks or .onnx)"};
  const SessionOptions options = sessionOptions(flags);
  // Before the compile, not after it: a path that cannot hold the session (a directory) fails fast.
  if (!sessionPath.empty()) checkWritableFile(sessionPath, "a session file (.kss.json)");
  // The data is known before the program is built: a model exported with a dynamic batch takes
  // the batch of the data it is given.
  LoadedProgram loaded = loadProgramFile(args.positional()[0], inputsFrom(inputSpecs));
  Session session(std::move(loaded.program), options);
  const bool tty = !json && isatty(fileno(stderr));
  Progress progress([tty](double, const std::string& what) {
    if (tty) std::fprintf(stderr, "\r\033[K%s", what.c_str());
  });
  nlohmann::json stepOutputs = nlohmann::json::array();
  std::string firstMismatch;  // the first value that differs from the host: step, output or update
  for (int k = 0; k < steps; ++k) {
    const RunRecord& step = session.run(loaded.inputs, verify, progress);
    if (firstMismatch.empty() && step.verifyMismatch()) firstMismatch = describeMismatch(step, steps);
    nlohmann::json list = nlohmann::json::array();
    for (const OutputValue& o : step.outputs) list.push_back(outputJson(o));
    stepOutputs.push_back(std::move(list));
    if (!json && steps > 1) std::printf("step %d:%s\n", k + 1, scalarSummary(step).c_str());
  }
  const RunRecord& r = session.runs().back();
  // The steady state (params as the last step left them) stops early after 10 s of timed runs (the JSON
  // says how many ran).
  const SteadyState steady = repeat > 0 ? session.repeatRuns(warmup, repeat, 10.0, progress) : SteadyState{};
  if (tty) std::fprintf(stderr, "\r\033[K");
  for (const std::string& w : session.trace().warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());

  if (!saveOutputs.empty()) {
    std::filesystem::create_directories(saveOutputs);
    for (const OutputValue& o : r.outputs) writeNpy((std::filesystem::path(saveOutputs) / (o.name + ".npy")).string(), o.value);
  }
  if (!sessionPath.empty()) session.save(sessionPath);

  if (json) {
    nlohmann::json j = runJson(session, r, steady);
    j["step_outputs"] = std::move(stepOutputs);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    const CompileTrace& t = session.trace();
    std::printf("program %s: %zu classes, %zu fused kernels, %zu matmuls matched for openblas, compiled in %s\n",
                session.program().name.c_str(), session.graph().classCount(), t.kernels.size(), t.matches.size(),
                formatNs(t.compileMs * 1e6).c_str());
    std::printf("devices: ");
    for (std::size_t i = 0; i < r.devices.size(); ++i) std::printf("%s%s", i ? ", " : "", r.devices[i].c_str());
    std::printf("\n");
    printPlanChoice(t.planChoice);
    std::printf("\noutputs:\n");
    for (const OutputValue& o : r.outputs) {
      std::printf("  %s: %s%s  min %.6g max %.6g mean %.6g%s\n    [%s]\n", o.name.c_str(),
                  std::string(dtypeName(o.value.dtype())).c_str(), shapeStr(o.value.shape()).c_str(), o.min, o.max,
                  o.mean, nanNote(o.value).c_str(), previewValues(o.value).c_str());
      if (o.verified)
        std::printf("    verify vs host: %s (max |diff| %.3g)\n", o.mismatch.empty() ? "ok" : ("MISMATCH " + o.mismatch).c_str(),
                    o.maxAbsError);
    }
    if (r.verified && r.verifyMode != VerifyMode::Full)
      std::printf("verification: %s: %s\n", verificationText(r).c_str(), r.verifyReason.c_str());
    const TimingGap gap = timingGap(session.graph(), t.plan, r, t.tuneLevel != "none");
    std::printf("\ncold run (allocations, every upload):\n%s", timingTable(r, &gap).c_str());
    if (steady.runs > 0) {
      RunRecord s;
      s.steps = steady.steps;
      s.totalNs = steady.totalNs;
      s.peakBytes = r.peakBytes;
      std::printf("\nsteady state (medians of %d runs after %d warm-ups; device time: kernels %s, copies %s):\n%s",
                  steady.runs, steady.warmups, formatNs(steady.kernelNs).c_str(), formatNs(steady.copyNs).c_str(),
                  timingTable(s).c_str());
    }
  }
  if (!firstMismatch.empty()) {
    std::fprintf(stderr, "error: %s: %s differs from the host reference\n", args.positional()[0].c_str(), firstMismatch.c_str());
    return 1;
  }
  return 0;
}

}  // namespace ks::cli
