// Session: one program and the whole pipeline run on it stage by stage (so a GUI can stop after
// any stage), with the CompileTrace of every stage and the RunRecords of every run. Saves to and
// loads from one versioned JSON file (.kss.json); a loaded session needs no device.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/progress.h"
#include "engine/devices/device_info.h"
#include "engine/kernel/schedule.h"
#include "engine/plan/steady_state.h"
#include "engine/program/program.h"
#include "engine/rewrite/rule_set.h"
#include "engine/rewrite/term.h"
#include "engine/session/compile_trace.h"
#include "engine/session/host_check.h"
#include "engine/tune/cost_model.h"

namespace ks {

class DeviceRuntime;  // live OpenCL/OpenBLAS state; absent in a loaded session
class PreparedPlan;   // the plan with its buffers and resident parameters, between runs
class TuningCache;    // opened with the devices; absent in a loaded session

struct SessionOptions {
  std::string devices = "all";     // --devices list (see selectDevices)
  TuneLevel tune = TuneLevel::Quick;
  int budgetCount = 0;             // max schedules measured per kernel and device (0: the level's default)
  double budgetSeconds = 0;        // max wall time per kernel and device (0: the level's default)
  double budgetModelSeconds = 0;   // max wall time per device beyond each kernel's first schedule (0: the level's)
  std::string cache;               // tuning cache: "" default file, "none" in memory, or a path
  uint64_t seed = 0;               // random inputs
  // Rewrite rules run before AOT matching (mode, and rules or families switched off or on). The
  // engine's default is none, so a library caller opts in; the CLI and the GUI default to default.
  RuleSelection rewrite{RewriteMode::None, {}, {}};
  VerifyBudget verify;             // how much host checking a verified run may cost
  // Devices whose memory is host memory (PoCL) share values with host and openblas in place
  // (--zero-copy on); off: every pool boundary is a real copy, as on a device with its own memory.
  bool zeroCopy = true;
  // Candidate plans measured on the devices before one is kept (-1: by tune level: none 1, quick
  // 3, full 6; 1: the extraction's plan, unmeasured).
  int planCandidates = -1;
  // Terms of the saturated e-graph compiled side by side, the static cost's best first, then its
  // runners-up and the program as built (-1: by tune level: none 2, quick 2, full 6; 1: the
  // static best alone). Extraction picks between their kernels by measured time.
  int termCandidates = -1;
};

// The number of candidate terms options ask for (termCandidates, or its tune level's default).
int termCandidateCount(const SessionOptions& o);

// Saturation limits of a tune level (docs/cli.md lists them); aggressive doubles each.
RewriteLimits rewriteLimits(TuneLevel level, RewriteMode mode);

class Session {
 public:
  explicit Session(Program program, SessionOptions options = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  const Program& program() const { return program_; }
  const Graph& graph() const { return program_.graph; }
  const SessionOptions& options() const { return options_; }
  const std::vector<DeviceInfo>& devices() const { return devices_; }
  const CompileTrace& trace() const { return trace_; }
  const std::vector<RunRecord>& runs() const { return runs_; }
  Stage stage() const { return stage_; }
  bool hasStage(Stage s) const { return reached_ && s <= stage_; }
  bool live() const { return !loaded_; }  // false for a session loaded from a file

  // Runs the stages up to and including `s` that have not run yet. Throws ks::Error; a
  // cancelled stage throws Error(Cancelled) and leaves the session at the previous stage.
  void runTo(Stage s, const Progress& progress = {});
  // Compiles if needed, executes the plan, optionally checks every output against `host`. The
  // first run prepares the plan (allocations, parameter uploads: a cold run); later runs reuse it
  // and upload only the inputs. One run is one step: a program with `p <- expr` updates leaves
  // the new param values for the next run (setParam, so a prepared plan keeps them resident); the
  // host check of a step starts from the same params as the step itself.
  const RunRecord& run(const std::vector<std::pair<std::string, HostTensor>>& inputs, bool verify,
                       const Progress& progress = {});
  // Steady state after a run: `warmups` runs, then up to `runs` timed ones with the same state
  // (inputs and parameters of the last run; outputs discarded), stopping early once the timed
  // runs took `maxSeconds`. Needs a run first (ks::Error Usage otherwise).
  SteadyState repeatRuns(int warmups, int runs, double maxSeconds, const Progress& progress = {});
  // Replaces a parameter's values (same dtype and shape) for the following runs; a prepared plan
  // uploads it once more and keeps it resident again. Throws ks::Error naming an unknown parameter.
  void setParam(const std::string& name, HostTensor value);
  // The current value of a parameter (its initializer's until setParam or a step's update).
  HostTensor param(const std::string& name) const;
  // The current value of every param, by param index.
  std::vector<HostTensor> paramValues() const;
  int stepsRun() const { return steps_; }

  // The plan's extraction again with `excluded` nodes never chosen, over the devices the kept plan
  // may use: what the plan would cost without them. Needs the plan stage of a live session.
  Extraction extractWithout(const std::vector<NodeId>& excluded) const;

  // Makes candidate `i` of the plan choice the session's plan (the next run prepares it): runs a
  // plan the measurement did not keep. Needs the plan stage of a live session (ks::Error Usage).
  void keepPlanCandidate(std::size_t i);

  // Lowered IR and OpenCL C of a kernel under a schedule (needs no device).
  std::string kernelSource(uint32_t kernel, const std::string& schedule, std::string* lowered = nullptr) const;

  void save(const std::string& path) const;
  static Session load(const std::string& path);  // throws ks::Error naming the file and the problem
  std::string toJson() const;
  static Session fromJson(const std::string& text, const std::string& file = "");

 private:
  Session();
  void match(const Progress& progress);
  void rewrite(const Progress& progress);
  void kernelize();
  void chooseTerms(const std::vector<ClassId>& outputs, const DeviceRates& rates);
  void compileTerms();
  std::vector<uint32_t> kernelizeTerm(const MaterializedTerm& term, KernelizerRun run);
  std::vector<uint32_t> matchTerm(MaterializedTerm& term, uint32_t blas);
  void addGemmLayouts(uint32_t blas);
  std::vector<uint32_t> addKernels(const std::vector<FusedKernel>& kernels, int pass);
  PlanKernels planKernels() const;
  void recordPlanForms();
  void tune(const Progress& progress);
  void memoryOps();
  void extract();
  void plan(const Progress& progress);
  void choosePlanByMeasurement(int max, const Progress& progress);
  PreparedCandidate prepareCandidate(const PlanCandidate& c, const Progress& progress);
  uint64_t planKey() const;
  void snapshot(Stage s);
  std::vector<HostTensor> execute(const std::vector<HostTensor>& leaves, const Progress& progress, RunRecord& rec);
  std::vector<HostTensor> boundLeaves(const std::vector<std::pair<std::string, HostTensor>>& inputs) const;
  std::size_t paramIndex(const std::string& name) const;

  Program program_;
  SessionOptions options_;
  std::vector<DeviceInfo> devices_;  // the selection; Kernel/ToDevice nodes index this list
  std::vector<uint32_t> poolOf_;     // device index -> memory pool (0 = host memory)
  CompileTrace trace_;
  std::vector<RunRecord> runs_;
  Stage stage_ = Stage::Loaded;
  bool reached_ = false;
  bool loaded_ = false;  // restored from a file: viewable, not runnable
  std::unique_ptr<DeviceRuntime> runtime_;
  std::unique_ptr<TuningCache> cache_;
  std::unique_ptr<Graph> preAotGraph_;  // the graph before AOT kernels joined it (kernelize pass 0)
  std::unique_ptr<PreparedPlan> prepared_;  // trace_.plan made ready; reset when the plan changes
  std::vector<std::pair<std::size_t, HostTensor>> paramValues_;  // setParam's values by param index
  int steps_ = 0;
  std::unique_ptr<Graph> original_;     // the graph before rewriting: what the oracle runs
  // The runner-up candidate terms (trace_.rewrite.candidates[1...]) until kernelize compiled them.
  std::vector<MaterializedTerm> terms_;
  std::vector<HostTensor> hostLeaves_;  // a host-only session's last leaves (repeatRuns reruns them)
};

}  // namespace ks
