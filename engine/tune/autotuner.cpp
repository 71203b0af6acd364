// Schedule search per kernel and device, with one program build per kernel and a result check.
#include "engine/tune/autotuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/cancellable.h"
#include "engine/core/json_read.h"
#include "engine/core/median.h"
#include "engine/core/tolerance.h"
#include "engine/kernel/lowering.h"
#include "engine/program/random.h"
#include "engine/tune/cost_model.h"
#include "engine/tune/tune_candidates.h"

namespace ks {

TuneBudget defaultBudget(TuneLevel level) {
  switch (level) {
    case TuneLevel::None: return {1, std::numeric_limits<double>::infinity(), 0, 1};
    case TuneLevel::Quick: return {8, 10.0, 1, 3, 30.0};
    case TuneLevel::Full: return {64, 60.0, 2, 7, 600.0};
  }
  return {};
}

const char* tuneLevelName(TuneLevel level) {
  switch (level) {
    case TuneLevel::None: return "none";
    case TuneLevel::Quick: return "quick";
    case TuneLevel::Full: return "full";
  }
  return "?";
}

Autotuner::Autotuner(TuningCache& cache, TuneLevel level, TuneBudget budget) : settings_{cache, level, budget} {}

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Terms summed into one output value: the product of the kernel's reduce lengths.
int64_t reduceTerms(const Kernel& k) {
  int64_t t = 1;
  for (const KOp& o : k.ops)
    if (o.kind == KOpKind::Reduce) t *= k.at(o.src[0]).shape.back();
  return t;
}

HostTensor randomTensor(DType t, int64_t n, uint64_t seed) {
  HostTensor h(t, {n});
  Random rng(seed);
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(t)) h.setDouble(i, rng.uniform(-1.0, 1.0));
    else if (t == DType::Bool) h.setInt(i, rng.next() >> 63);
    else h.setInt(i, static_cast<int64_t>(1 + rng.next() % 9));  // no zero divisors
  }
  return h;
}

std::string firstLine(const std::string& s, std::size_t max = 300) {
  std::string r = s.substr(0, s.find('\n'));
  return r.size() > max ? r.substr(0, max) + "..." : r;
}
// One tuneDevice call: the device, where records go, and per kernel the work of its search.
class DeviceTuning {
 public:
  DeviceTuning(const Autotuner::Settings& settings, const std::shared_ptr<OpenCLDevice>& device, uint32_t deviceIndex,
               const std::vector<KernelRecord>& kernels, const Progress& progress, TuneRecords& out)
      : s_(settings),
        device_(device),
        info_(device->info()),
        limits_(info_.limits()),
        rates_(deviceRates(limits_, 0, 0)),
        deviceIndex_(deviceIndex),
        kernels_(kernels),
        progress_(progress),
        out_(out),
        level_(tuneLevelName(s_.level)),
        cacheDevice_(info_.fingerprint + " | codegen " + std::to_string(kCodegenVersion)),
        work_(kernels.size()),
        winners_(kernels.size()) {}

  std::vector<std::optional<TunedKernel>> run() {
    planWork();
    if (std::isfinite(s_.budget.maxModelSeconds)) {
      runWithinModelBudget();
    } else {
      progress_.report(0.05, "building " + std::to_string(kernels_.size()) + " kernels on " + info_.id);
      const auto buildStart = Clock::now();
      buildCandidates();
      const double buildMs = msSince(buildStart);
      for (std::size_t ki = 0; ki < kernels_.size(); ++ki) {
        work_[ki].search.buildMs = buildMs / static_cast<double>(kernels_.size());
        if (work_[ki].sameAs < 0) searchKernel(ki);
      }
    }
    rebuildWinners();
    serveDuplicates();
    return std::move(winners_);
  }

 private:
  // Per kernel: its search record and the candidates to build (all of them, or only the winner
  // the tuning cache already knows).
  struct Work {
    TuneSearch search;
    uint64_t hash = 0;
    bool cached = false;
    int sameAs = -1;  // an earlier kernel of this call with the same structure: its winner serves
    std::vector<Schedule> scheds;
    std::vector<LoweredKernel> lowered;
    std::vector<OpenCLKernel> built;
    std::vector<Schedule> builtScheds;
  };

  void record(Work& w, const Schedule& sched, TuneStatus status, double ns, const std::string& reason) {
    out_.measurements.push_back({w.search.kernel, deviceIndex_, sched.str(), status, ns, reason, false});
    s_.cache.putMeasurement(w.hash, cacheDevice_, {sched.toJson().dump(), toString(status), ns, reason});
  }
  void warn(std::size_t ki, const std::string& what) {
    out_.warnings.push_back("tuning cache: " + kernels_[ki].name + " on " + info_.id + ": " + what);
  }
  void resetWork(std::size_t ki) {
    Work& w = work_[ki];
    w = Work{};
    w.hash = kernels_[ki].fused.kernel.hash();
    w.search.kernel = static_cast<uint32_t>(ki);
    w.search.device = deviceIndex_;
  }

  // Phases 2 and 3 under the program's budget: every kernel's first schedule is built (one
  // program) and timed; then the kernels with more candidates are searched slowest first, each
  // built as its own program, while the budget lasts; the rest keep their first schedule. A
  // large model's many small kernels then cost one build, not one per schedule.
  void runWithinModelBudget() {
    std::vector<Work> rest(work_.size());  // the candidates after the first, held back
    for (std::size_t ki = 0; ki < work_.size(); ++ki) {
      Work& w = work_[ki];
      if (w.cached || w.lowered.size() < 2) continue;
      rest[ki].lowered.assign(std::make_move_iterator(w.lowered.begin() + 1), std::make_move_iterator(w.lowered.end()));
      rest[ki].scheds.assign(w.scheds.begin() + 1, w.scheds.end());
      w.lowered.resize(1), w.scheds.resize(1);
    }
    progress_.report(0.05, "building the first schedule of " + std::to_string(kernels_.size()) + " kernels on " + info_.id);
    auto start = Clock::now();
    buildCandidates();
    const double firstBuildMs = msSince(start) / static_cast<double>(std::max<std::size_t>(kernels_.size(), 1));
    std::vector<std::pair<double, std::size_t>> firstNs;  // (time of the first schedule, kernel)
    std::vector<double> rankNs(work_.size(), -1);          // that time, when it ran and checked
    for (std::size_t ki = 0; ki < work_.size(); ++ki) {
      Work& w = work_[ki];
      w.search.buildMs = firstBuildMs;
      if (w.sameAs >= 0 || w.cached || rest[ki].lowered.empty()) continue;
      if (w.built.empty()) {  // the first schedule did not build: search the others first
        firstNs.emplace_back(std::numeric_limits<double>::infinity(), ki);
        continue;
      }
      progress_.check("autotune");
      CandidateTimer timer(*this, ki, /*keep=*/false, /*brief=*/true);  // a search times it again, for the record
      timer.measure(0);
      if (std::isfinite(timer.best)) rankNs[ki] = timer.best;
      firstNs.emplace_back(std::isfinite(timer.best) ? timer.best : 0.0, ki);
    }
    std::stable_sort(firstNs.begin(), firstNs.end(), [](auto& a, auto& b) { return a.first > b.first; });
    start = Clock::now();
    std::vector<bool> searched(work_.size(), false);
    for (std::size_t i = 0; i < firstNs.size(); ++i) {
      const std::size_t ki = firstNs[i].second;
      if (msSince(start) > s_.budget.maxModelSeconds * 1000.0) break;
      progress_.report(0.1 + 0.9 * static_cast<double>(i) / static_cast<double>(firstNs.size()),
                       "searching " + kernels_[ki].name + " on " + info_.id + " (" + std::to_string(i + 1) + " of " +
                           std::to_string(firstNs.size()) + " by time)");
      Work& w = work_[ki];
      rest[ki].hash = w.hash;  // build errors are recorded under the kernel's own search
      rest[ki].search.kernel = w.search.kernel;
      const auto buildStart = Clock::now();
      buildOneByOne(rest[ki]);
      w.search.buildMs += msSince(buildStart);
      for (std::size_t c = 0; c < rest[ki].built.size(); ++c) {
        w.built.push_back(std::move(rest[ki].built[c]));
        w.builtScheds.push_back(rest[ki].builtScheds[c]);
      }
      searchKernel(ki);  // its timing counts against the budget too
      searched[ki] = true;
    }
    char spent[64];
    std::snprintf(spent, sizeof spent, "%g s for the program", s_.budget.maxModelSeconds);
    for (std::size_t ki = 0; ki < work_.size(); ++ki) {
      Work& w = work_[ki];
      if (w.sameAs >= 0 || searched[ki]) continue;
      const bool stopped = !w.cached && !rest[ki].lowered.empty();
      if (stopped) {
        for (const Schedule& sched : rest[ki].scheds) record(w, sched, TuneStatus::Skipped, 0, "model budget reached");
        w.search.stopReason = StopReason::ModelBudget;
        w.search.stopDetail = spent;
      }
      // A kernel left at its first schedule keeps the time that ranked it (one run after the
      // checked one, as the none level times): no schedule competes with it.
      if (stopped && rankNs[ki] >= 0) {
        record(w, w.builtScheds[0], TuneStatus::Ok, rankNs[ki], "");
        ++w.search.measured;
        finishSearch(ki, 0, rankNs[ki]);
        continue;
      }
      searchKernel(ki, /*brief=*/stopped);
    }
  }

  // Phase 1: per kernel, what to build: nothing (a duplicate, zero elements), the cached winner,
  // or every candidate schedule that lowers.
  void planWork() {
    std::map<uint64_t, int> firstWithHash;
    for (std::size_t ki = 0; ki < kernels_.size(); ++ki) {
      progress_.check("autotune");
      resetWork(ki);
      Work& w = work_[ki];
      if (auto [it, fresh] = firstWithHash.emplace(w.hash, static_cast<int>(ki)); !fresh) {
        w.sameAs = it->second, w.cached = true;
        continue;
      }
      if (readCache(ki)) continue;
      const Kernel& k = kernels_[ki].fused.kernel;
      bool nothingToStore = true;
      for (int32_t st : k.storeOps()) nothingToStore = nothingToStore && numel(k.at(st).shape) == 0;
      if (nothingToStore) {  // zero-element values: no launch, nothing to tune
        w.search.stopReason = StopReason::NothingToCompute;
        w.search.stopDetail = "zero elements";
        w.cached = true;
        continue;
      }
      lowerCandidates(ki);
    }
  }

  // The winner the tuning cache knows for this level, with the cached measurements this level's
  // search covers. False (and a warning) when the cached entry cannot be used: search again.
  bool readCache(std::size_t ki) {
    Work& w = work_[ki];
    const auto cached = s_.cache.search(w.hash, cacheDevice_, level_);
    if (!cached) return false;
    const Kernel& k = kernels_[ki].fused.kernel;
    try {
      const Schedule sched = Schedule::fromJson(parseJson(cached->winner));
      w.lowered = {lowerKernel(k, sched, limits_)};
      w.scheds = {sched};
      w.search.winner = sched.str();
    } catch (const Error& e) {
      warn(ki, "the cached winner cannot be used (" + e.message() + "); searched again");
      resetWork(ki);
      return false;
    } catch (const nlohmann::json::exception& e) {
      warn(ki, std::string("the cached winner is corrupt (") + e.what() + "); searched again");
      resetWork(ki);
      return false;
    }
    std::vector<std::string> levelSchedules;
    for (const Schedule& c : tuneCandidates(k, limits_, rates_, s_.level, 4, &progress_)) levelSchedules.push_back(c.str());
    int unreadable = 0;
    for (const CachedMeasurement& m : s_.cache.measurements(w.hash, cacheDevice_)) {
      const std::optional<TuneStatus> status = tuneStatusFrom(m.status);
      std::string sched;
      try {
        if (status) sched = Schedule::fromJson(parseJson(m.schedule)).str();
      } catch (const std::exception&) {
        sched.clear();
      }
      if (sched.empty()) {
        ++unreadable;
        continue;
      }
      if (std::find(levelSchedules.begin(), levelSchedules.end(), sched) == levelSchedules.end()) continue;
      out_.measurements.push_back({w.search.kernel, deviceIndex_, sched, *status, m.ns, m.reason, true});
      ++w.search.cacheHits;
    }
    if (unreadable) warn(ki, std::to_string(unreadable) + " cached measurement(s) unreadable (schedule or status); left out");
    w.search.winnerNs = cached->winnerNs;
    w.search.stopReason = StopReason::Cached;
    w.search.stopDetail = cached->stopReason;
    w.search.candidates = cached->measured;
    w.cached = true;
    return true;
  }

  // The level's candidates within the count budget; a schedule lowering refuses is recorded as skipped.
  void lowerCandidates(std::size_t ki) {
    Work& w = work_[ki];
    const Kernel& k = kernels_[ki].fused.kernel;
    std::vector<Schedule> candidates = tuneCandidates(k, limits_, rates_, s_.level, 4, &progress_);
    if (std::isfinite(s_.budget.maxModelSeconds) && s_.level != TuneLevel::None) {
      // Under a program budget the first schedule may be all a kernel gets: the none level's
      // default, so a kernel the budget leaves out is never worse off than at --tune none.
      const std::vector<Schedule> none = enumerateSchedules(k, limits_, TuneLevel::None);
      if (!none.empty()) {
        candidates.erase(std::remove(candidates.begin(), candidates.end(), none.front()), candidates.end());
        candidates.insert(candidates.begin(), none.front());
      }
    }
    w.search.candidates = static_cast<int>(candidates.size());
    if (static_cast<int>(candidates.size()) > s_.budget.maxCandidates) {
      candidates.resize(s_.budget.maxCandidates);
      w.search.stopReason = StopReason::CountBudget;
      w.search.stopDetail = std::to_string(s_.budget.maxCandidates) + " of " + std::to_string(w.search.candidates) + " schedules";
    }
    for (const Schedule& sched : candidates) {
      progress_.check("autotune");  // lowering every candidate of a large kernel takes a while
      try {
        w.lowered.push_back(lowerKernel(k, sched, limits_));
        w.scheds.push_back(sched);
      } catch (const Error& e) {
        record(w, sched, TuneStatus::Skipped, 0, e.message());
      }
    }
  }

  // The kernels move to the build's thread: a cancelled build frees them there, not on the worker.
  std::vector<OpenCLKernel> build(std::vector<LoweredKernel> ls) {
    auto device = device_;
    return runCancellable([device, ls = std::move(ls)] { return device->build(ls); }, progress_, "kernel build");
  }

  // Phase 2: one program for every candidate of every kernel (a PoCL build costs about a second
  // whatever its size). If it fails, build kernel by kernel, then candidate by candidate, to find
  // the culprits.
  void buildCandidates() {
    std::vector<LoweredKernel> all;
    for (Work& w : work_) {
      progress_.check("autotune");  // copying every candidate of a full search takes a while
      all.insert(all.end(), w.lowered.begin(), w.lowered.end());
    }
    if (all.empty()) return;
    try {
      std::vector<OpenCLKernel> built = build(std::move(all));
      std::size_t i = 0;
      for (Work& w : work_)
        for (std::size_t c = 0; c < w.lowered.size(); ++c, ++i) {
          w.built.push_back(std::move(built[i]));
          w.builtScheds.push_back(w.scheds[c]);
        }
      return;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
    }
    for (Work& w : work_) buildOneByOne(w);
  }

  void buildOneByOne(Work& w) {
    if (w.lowered.empty()) return;
    try {
      w.built = build(w.lowered);
      w.builtScheds = w.scheds;
      return;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
    }
    for (std::size_t c = 0; c < w.lowered.size(); ++c) {
      try {
        w.built.push_back(std::move(build({w.lowered[c]}).front()));
        w.builtScheds.push_back(w.scheds[c]);
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Cancelled) throw;
        if (!w.cached) record(w, w.scheds[c], TuneStatus::BuildError, 0, e.message());
      }
    }
  }

  // Phase 3 for one kernel: a cached or empty search just takes its winner; otherwise every built
  // candidate is timed and checked against the first one's result, and the fastest wins.
  void searchKernel(std::size_t ki, bool brief = false) {
    Work& w = work_[ki];
    TuneSearch& search = w.search;
    if (w.cached) {
      if (w.lowered.empty()) winners_[ki] = TunedKernel{Schedule{}, 0.0, OpenCLKernel{}};  // nothing to launch
      if (!w.built.empty()) winners_[ki] = TunedKernel{w.scheds[0], search.winnerNs, std::move(w.built[0])};
      out_.searches.push_back(search);
      return;
    }
    progress_.check("autotune");
    progress_.report(0.1 + 0.9 * static_cast<double>(ki) / kernels_.size(), "timing " + kernels_[ki].name + " on " + info_.id);
    CandidateTimer timer(*this, ki, /*keep=*/true, brief);
    const auto start = Clock::now();
    for (std::size_t c = 0; c < w.built.size(); ++c) {
      progress_.check("autotune");
      if (msSince(start) > s_.budget.maxSeconds * 1000.0) {
        for (std::size_t r = c; r < w.built.size(); ++r) record(w, w.builtScheds[r], TuneStatus::Skipped, 0, "time budget reached");
        search.stopReason = StopReason::TimeBudget;
        search.stopDetail = std::to_string(static_cast<int>(s_.budget.maxSeconds)) + " s";
        break;
      }
      timer.measure(c);
    }
    finishSearch(ki, timer.bestIndex, timer.best);
  }

  // The search's end: candidate `best` (-1: none ran) wins at `ns`, goes to the cache, and the
  // search is recorded.
  void finishSearch(std::size_t ki, int best, double ns) {
    Work& w = work_[ki];
    TuneSearch& search = w.search;
    if (best >= 0) {
      const Schedule& sched = w.builtScheds[static_cast<std::size_t>(best)];
      search.winner = sched.str();
      search.winnerNs = ns;
      winners_[ki] = TunedKernel{sched, ns, std::move(w.built[static_cast<std::size_t>(best)])};
      s_.cache.putSearch(w.hash, cacheDevice_, level_, {sched.toJson().dump(), ns, search.stopText(), search.measured});
    }
    out_.searches.push_back(search);
  }

  // Times the candidates of one kernel on shared random inputs and keeps the fastest correct one.
  class CandidateTimer {
   public:
    // keep = false: a look at the time only, nothing recorded or counted; brief: one timed run
    // after the checked one, no warm-up (the none level's count).
    CandidateTimer(DeviceTuning& t, std::size_t ki, bool keep = true, bool brief = false)
        : t_(t), w_(t.work_[ki]), terms_(reduceTerms(t.kernels_[ki].fused.kernel)), keep_(keep), brief_(brief) {
      if (w_.built.empty()) return;
      const auto& lp = w_.built.front().lowered.params;
      for (std::size_t p = 0; p < lp.size(); ++p) {
        params_.push_back(t_.device_->alloc(static_cast<std::size_t>(std::max<int64_t>(lp[p].numel, 1)) * dtypeSize(lp[p].dtype)));
        HostTensor h = lp[p].kind == ParamKind::Read ? randomTensor(lp[p].dtype, lp[p].numel, 1234 + p)
                                                     : HostTensor(lp[p].dtype, {lp[p].numel});
        t_.device_->write(params_.back(), h.bytes(), h.byteSize());
      }
    }

    void measure(std::size_t c) {
      const Schedule& sched = w_.builtScheds[c];
      try {
        const double first = launch(c);
        std::vector<HostTensor> out = readOutputs();
        if (reference_.empty()) {
          reference_ = std::move(out);
        } else {
          std::string bad;
          for (std::size_t o = 0; o < out.size() && bad.empty(); ++o) bad = compareWithTolerance(out[o], reference_[o], terms_);
          if (!bad.empty()) {
            note(sched, TuneStatus::WrongResult, first, "differs from the first schedule's result: " + bad);
            return;
          }
        }
        if (std::isfinite(best) && first > 20 * best) {
          note(sched, TuneStatus::TooSlow, first, "first run over 20x the best so far");
          return;
        }
        const double median = timed(c);
        note(sched, TuneStatus::Ok, median, "");
        if (keep_) ++w_.search.measured;
        if (median < best) {
          best = median;
          bestIndex = static_cast<int>(c);
        }
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Cancelled) {
          w_.search.stopReason = StopReason::Cancelled;
          w_.search.stopDetail.clear();
          t_.out_.searches.push_back(w_.search);
          throw;
        }
        note(sched, TuneStatus::LaunchError, 0, firstLine(e.message()));
      }
    }

    double best = std::numeric_limits<double>::infinity();
    int bestIndex = -1;

   private:
    void note(const Schedule& sched, TuneStatus status, double ns, const std::string& reason) {
      if (keep_) t_.record(w_, sched, status, ns, reason);
    }
    double launch(std::size_t c) {
      const OpenCLKernel& ck = w_.built[c];
      auto device = t_.device_;
      auto& params = params_;
      return static_cast<double>(
          runCancellable([device, &ck, &params] { return device->run(ck, params); }, t_.progress_, "kernel launch"));
    }
    // The median of the timed runs after the warm-up.
    double timed(std::size_t c) {
      std::vector<double> t;
      // The first launch (the result check) is never a measurement, at any level: PoCL compiles
      // a kernel at its first launch, so it times the compiler, not the kernel.
      const int warmup = brief_ ? 0 : t_.s_.budget.warmup;
      const int runs = warmup + (brief_ ? 1 : std::max(1, t_.s_.budget.repeats));
      for (int r = 0; r < runs; ++r) {
        const double ns = launch(c);
        if (r >= warmup) t.push_back(ns);
      }
      return median(std::move(t));
    }
    std::vector<HostTensor> readOutputs() {
      std::vector<HostTensor> out;
      const auto& lp = w_.built.front().lowered.params;
      for (std::size_t p = 0; p < lp.size(); ++p)
        if (lp[p].kind == ParamKind::ReadWrite) {
          HostTensor h(lp[p].dtype, {lp[p].numel});
          t_.device_->read(params_[p], h.bytes(), h.byteSize());
          out.push_back(std::move(h));
        }
      return out;
    }

    DeviceTuning& t_;
    Work& w_;
    const int64_t terms_;
    const bool keep_, brief_;
    std::vector<OpenCLBuffer> params_;
    std::vector<HostTensor> reference_;
  };

  // Phase 4: a warm compile builds the cached winners alone, as one program (phase 2). Building
  // that same program now puts it in the driver's own cache (PoCL, NVIDIA), where the warm compile
  // then finds it: about a second saved there for one more build here.
  void rebuildWinners() {
    bool searched = false;
    for (const Work& w : work_) searched = searched || !w.cached;
    std::vector<LoweredKernel> chosen;
    std::vector<std::size_t> owner;
    for (std::size_t ki = 0; ki < winners_.size(); ++ki)
      if (work_[ki].sameAs < 0 && winners_[ki] && !winners_[ki]->compiled.lowered.launches.empty()) {
        chosen.push_back(winners_[ki]->compiled.lowered);
        owner.push_back(ki);
      }
    if (!searched || chosen.empty()) return;
    try {
      std::vector<OpenCLKernel> built = build(chosen);
      for (std::size_t i = 0; i < owner.size(); ++i) winners_[owner[i]]->compiled = std::move(built[i]);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;  // otherwise the candidates' builds serve
    }
  }

  // Phase 5: a kernel of the same structure as an earlier one takes that one's winner.
  void serveDuplicates() {
    for (std::size_t ki = 0; ki < kernels_.size(); ++ki) {
      Work& w = work_[ki];
      if (w.sameAs < 0) continue;
      const auto first = static_cast<std::size_t>(w.sameAs);
      w.search.winner = work_[first].search.winner;
      w.search.winnerNs = work_[first].search.winnerNs;
      w.search.stopReason = StopReason::SameKernel;
      w.search.stopDetail = kernels_[first].name;
      winners_[ki] = winners_[first];
      out_.searches.push_back(w.search);
    }
  }

  const Autotuner::Settings& s_;
  std::shared_ptr<OpenCLDevice> device_;
  const OpenCLDeviceInfo& info_;
  const DeviceLimits limits_;
  const DeviceRates rates_;  // nominal for the device's kind: the order of candidates, not a time
  const uint32_t deviceIndex_;
  const std::vector<KernelRecord>& kernels_;
  const Progress& progress_;
  TuneRecords& out_;
  const std::string level_;        // the tuning cache's level key
  const std::string cacheDevice_;  // the tuning cache's device key
  std::vector<Work> work_;
  std::vector<std::optional<TunedKernel>> winners_;
};

}  // namespace

std::vector<std::optional<TunedKernel>> Autotuner::tuneDevice(const std::shared_ptr<OpenCLDevice>& device,
                                                              uint32_t deviceIndex,
                                                              const std::vector<KernelRecord>& kernels,
                                                              const Progress& progress, TuneRecords& out) {
  return DeviceTuning(settings_, device, deviceIndex, kernels, progress, out).run();
}

}  // namespace ks
