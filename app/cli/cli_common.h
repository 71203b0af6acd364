// Helpers shared by the CLI commands: session options from flags, printing of tables and values.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "app/cli/args.h"
#include "engine/plan/timing_gap.h"
#include "engine/session/session.h"

namespace ks::cli {

// The values of --devices, --tune, --cache, --seed, --rewrite, --rewrite-off, --rewrite-on,
// --budget-count, --budget-seconds.
struct SessionFlags {
  std::string devices = "all", tune = "quick", cache;
  std::string rewrite = "default", rewriteOff, rewriteOn;  // comma lists of rules or families
  std::string zeroCopy = "on";
  uint64_t seed = 0;
  int budgetCount = 0;
  int planCandidates = -1;
  int termCandidates = -1;  // --rewrite-candidates
  double budgetSeconds = 0;
  double budgetModel = 0;  // --budget-model
  double verifyBudget = VerifyBudget{}.hostWork;
  int64_t verifySamples = VerifyBudget{}.samples;
};
// Registers those flags (the budgets only when `budgets`; --devices unless the command registered
// its own), each with its validator.
void addSessionFlags(Args& args, SessionFlags& flags, bool budgets = true);
// The options they give; a device list that cannot run a program is a UsageError.
SessionOptions sessionOptions(const SessionFlags& flags);
// --input NAME=FILE (.npy or ONNX TensorProto .pb), repeatable.
std::vector<std::pair<std::string, HostTensor>> inputsFrom(const std::vector<std::string>& specs);
// "1.5, -2, 3, ... (1024 values)"
std::string previewValues(const HostTensor& t, int count = 8);
std::string formatNs(double ns);  // "1.23 ms"
// A verified run's host check in words: "ok", "ok (sampled, 256 of 16777216 elements)",
// "not verified (budget)" or "MISMATCH".
std::string verificationText(const RunRecord& r);
// The per-step timing table of a run, with achieved GFLOP/s and GB/s; with `gap`, each step's predicted time and measured/predicted ratio beside it
// ("!" past 2x), the totals line and the reasons of the flagged steps.
std::string timingTable(const RunRecord& r, const TimingGap* gap = nullptr);

}  // namespace ks::cli
