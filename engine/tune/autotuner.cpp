// Schedule search per kernel and device, with one program build per kernel and a result check.
#include "engine/tune/autotuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/cancellable.h"
#include "engine/core/tolerance.h"
#include "engine/kernel/lowering.h"
#include "engine/program/random.h"

namespace ks {

TuneBudget defaultBudget(TuneLevel level) {
  switch (level) {
    case TuneLevel::None: return {1, std::numeric_limits<double>::infinity(), 0, 1};
    case TuneLevel::Quick: return {8, 10.0, 1, 3};
    case TuneLevel::Full: return {64, 60.0, 2, 7};
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

Autotuner::Autotuner(TuningCache& cache, TuneLevel level, TuneBudget budget)
    : cache_(cache), level_(level), budget_(budget) {}

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
}  // namespace

std::vector<std::optional<TunedKernel>> Autotuner::tuneDevice(const std::shared_ptr<OpenCLDevice>& device,
                                                              uint32_t deviceIndex,
                                                              const std::vector<KernelRecord>& kernels,
                                                              const Progress& progress,
                                                              std::vector<TuneMeasurement>& measurements,
                                                              std::vector<TuneSearch>& searches) {
  const OpenCLDeviceInfo& info = device->info();
  const DeviceLimits limits = info.limits();
  const std::string level = tuneLevelName(level_);
  const std::string cacheDevice = info.fingerprint + " | codegen " + std::to_string(kCodegenVersion);
  std::vector<std::optional<TunedKernel>> winners(kernels.size());

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
  std::vector<Work> work(kernels.size());
  auto record = [&](Work& w, const Schedule& s, TuneStatus status, double ns, const std::string& reason) {
    measurements.push_back({w.search.kernel, deviceIndex, s.str(), status, ns, reason, false});
    cache_.putMeasurement(w.hash, cacheDevice, {s.toJson().dump(), toString(status), ns, reason});
  };

  std::map<uint64_t, int> firstWithHash;
  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    progress.check("autotune");
    Work& w = work[ki];
    const Kernel& k = kernels[ki].fused.kernel;
    w.hash = k.hash();
    w.search.kernel = static_cast<uint32_t>(ki);
    w.search.device = deviceIndex;
    if (auto [it, fresh] = firstWithHash.emplace(w.hash, static_cast<int>(ki)); !fresh) {
      w.sameAs = it->second, w.cached = true;
      continue;
    }
    if (auto cached = cache_.search(w.hash, cacheDevice, level)) {
      try {
        const Schedule s = Schedule::fromJson(nlohmann::json::parse(cached->winner));
        // The cache holds measurements of every level; show those this level's search covers.
        std::vector<std::string> levelSchedules;
        for (const Schedule& c : enumerateSchedules(k, limits, level_)) levelSchedules.push_back(c.str());
        for (const CachedMeasurement& m : cache_.measurements(w.hash, cacheDevice)) {
          TuneMeasurement tm{w.search.kernel, deviceIndex, m.schedule, tuneStatusFrom(m.status).value_or(TuneStatus::Skipped),
                             m.ns, m.reason, true};
          try {
            tm.schedule = Schedule::fromJson(nlohmann::json::parse(m.schedule)).str();
          } catch (...) {
          }
          if (std::find(levelSchedules.begin(), levelSchedules.end(), tm.schedule) == levelSchedules.end()) continue;
          measurements.push_back(tm);
          ++w.search.cacheHits;
        }
        w.search.winner = s.str();
        w.search.winnerNs = cached->winnerNs;
        w.search.stopReason = StopReason::Cached;
        w.search.stopDetail = cached->stopReason;
        w.search.candidates = cached->measured;
        w.cached = true;
        w.scheds = {s};
        w.lowered = {lowerKernel(k, s, limits)};
        continue;
      } catch (const Error&) {
        w = Work{};  // an unusable cached winner: search again
        w.hash = k.hash();
        w.search.kernel = static_cast<uint32_t>(ki);
        w.search.device = deviceIndex;
      } catch (const nlohmann::json::exception&) {
      }
    }
    bool nothingToStore = true;
    for (int32_t st : k.storeOps()) nothingToStore = nothingToStore && numel(k.at(st).shape) == 0;
    if (nothingToStore) {  // zero-element values: no launch, nothing to tune
      w.search.stopReason = StopReason::NothingToCompute;
      w.search.stopDetail = "zero elements";
      w.cached = true;
      continue;
    }
    std::vector<Schedule> candidates = enumerateSchedules(k, limits, level_);
    w.search.candidates = static_cast<int>(candidates.size());
    if (static_cast<int>(candidates.size()) > budget_.maxCandidates) {
      candidates.resize(budget_.maxCandidates);
      w.search.stopReason = StopReason::CountBudget;
      w.search.stopDetail = std::to_string(budget_.maxCandidates) + " of " + std::to_string(w.search.candidates) + " schedules";
    }
    for (const Schedule& s : candidates) {
      try {
        w.lowered.push_back(lowerKernel(k, s, limits));
        w.scheds.push_back(s);
      } catch (const Error& e) {
        record(w, s, TuneStatus::Skipped, 0, e.message());
      }
    }
  }

  // One program for every candidate of every kernel (a PoCL build costs about a second whatever
  // its size). If it fails, build kernel by kernel, then candidate by candidate, to find culprits.
  progress.report(0.05, "building " + std::to_string(kernels.size()) + " kernels on " + info.id);
  const auto buildStart = Clock::now();
  auto build = [&](const std::vector<LoweredKernel>& ls) {
    return runCancellable([device, ls] { return device->build(ls); }, progress, "kernel build");
  };
  auto buildAll = [&]() {
    std::vector<LoweredKernel> all;
    for (Work& w : work) all.insert(all.end(), w.lowered.begin(), w.lowered.end());
    if (all.empty()) return;
    try {
      std::vector<OpenCLKernel> built = build(all);
      std::size_t i = 0;
      for (Work& w : work)
        for (std::size_t c = 0; c < w.lowered.size(); ++c, ++i) {
          w.built.push_back(std::move(built[i]));
          w.builtScheds.push_back(w.scheds[c]);
        }
      return;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
    }
    for (Work& w : work) {
      try {
        if (w.lowered.empty()) continue;
        w.built = build(w.lowered);
        w.builtScheds = w.scheds;
        continue;
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
  };
  buildAll();
  const double buildMs = msSince(buildStart);

  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    Work& w = work[ki];
    TuneSearch& search = w.search;
    search.buildMs = buildMs / static_cast<double>(kernels.size());
    if (w.sameAs >= 0) continue;
    if (w.cached) {
      if (w.lowered.empty()) winners[ki] = TunedKernel{Schedule{}, 1.0, OpenCLKernel{}};
      if (!w.built.empty()) winners[ki] = TunedKernel{w.scheds[0], search.winnerNs, std::move(w.built[0])};
      searches.push_back(search);
      continue;
    }
    progress.check("autotune");
    progress.report(0.1 + 0.9 * static_cast<double>(ki) / kernels.size(), "timing " + kernels[ki].name + " on " + info.id);
    const auto start = Clock::now();
    std::vector<OpenCLBuffer> params;
    std::vector<HostTensor> reference;
    double best = std::numeric_limits<double>::infinity();
    int bestIndex = -1;
    if (!w.built.empty()) {
      const auto& lp = w.built.front().lowered.params;
      for (std::size_t p = 0; p < lp.size(); ++p) {
        params.push_back(device->alloc(static_cast<std::size_t>(std::max<int64_t>(lp[p].numel, 1)) * dtypeSize(lp[p].dtype)));
        HostTensor h = lp[p].kind == ParamKind::Read ? randomTensor(lp[p].dtype, lp[p].numel, 1234 + p)
                                                     : HostTensor(lp[p].dtype, {lp[p].numel});
        device->write(params.back(), h.bytes(), h.byteSize());
      }
    }
    auto readOutputs = [&]() {
      std::vector<HostTensor> out;
      const auto& lp = w.built.front().lowered.params;
      for (std::size_t p = 0; p < lp.size(); ++p)
        if (lp[p].kind == ParamKind::ReadWrite) {
          HostTensor h(lp[p].dtype, {lp[p].numel});
          device->read(params[p], h.bytes(), h.byteSize());
          out.push_back(std::move(h));
        }
      return out;
    };
    const int64_t terms = reduceTerms(kernels[ki].fused.kernel);
    for (std::size_t c = 0; c < w.built.size(); ++c) {
      progress.check("autotune");
      if (msSince(start) > budget_.maxSeconds * 1000.0) {
        for (std::size_t r = c; r < w.built.size(); ++r) record(w, w.builtScheds[r], TuneStatus::Skipped, 0, "time budget reached");
        search.stopReason = StopReason::TimeBudget;
        search.stopDetail = std::to_string(static_cast<int>(budget_.maxSeconds)) + " s";
        break;
      }
      try {
        const OpenCLKernel& ck = w.built[c];
        auto launch = [&] {
          return static_cast<double>(
              runCancellable([device, &ck, &params] { return device->run(ck, params); }, progress, "kernel launch"));
        };
        const double first = launch();
        auto out = readOutputs();
        if (reference.empty()) {
          reference = std::move(out);
        } else {
          std::string bad;
          for (std::size_t o = 0; o < out.size() && bad.empty(); ++o) bad = compareWithTolerance(out[o], reference[o], terms);
          if (!bad.empty()) {
            record(w, w.builtScheds[c], TuneStatus::WrongResult, first, "differs from the first schedule's result: " + bad);
            continue;
          }
        }
        if (std::isfinite(best) && first > 20 * best) {
          record(w, w.builtScheds[c], TuneStatus::TooSlow, first, "first run over 20x the best so far");
          continue;
        }
        std::vector<double> t;
        // Without tuning the one candidate's first run is its measurement: at this level every
        // launch saved matters more (PoCL compiles a kernel at its first launch).
        const int runs = level_ == TuneLevel::None ? 0 : budget_.warmup + budget_.repeats;
        for (int r = 0; r < runs; ++r) {
          const double ns = launch();
          if (r >= budget_.warmup) t.push_back(ns);
        }
        if (t.empty()) t.push_back(first);
        std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
        const double median = t[t.size() / 2];
        record(w, w.builtScheds[c], TuneStatus::Ok, median, "");
        ++search.measured;
        if (median < best) {
          best = median;
          bestIndex = static_cast<int>(c);
        }
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Cancelled) {
          search.stopReason = StopReason::Cancelled;
          search.stopDetail.clear();
          searches.push_back(search);
          throw;
        }
        record(w, w.builtScheds[c], TuneStatus::LaunchError, 0, firstLine(e.message()));
      }
    }
    if (bestIndex >= 0) {
      search.winner = w.builtScheds[bestIndex].str();
      search.winnerNs = best;
      winners[ki] = TunedKernel{w.builtScheds[bestIndex], best, std::move(w.built[bestIndex])};
      cache_.putSearch(w.hash, cacheDevice, level,
                       {w.builtScheds[bestIndex].toJson().dump(), best, search.stopText(), search.measured});
    }
    searches.push_back(search);
  }
  // A warm compile builds the cached winners alone, as one program (above). Building that same
  // program now puts it in the driver's own cache (PoCL, NVIDIA), where the warm compile then
  // finds it: about a second saved there for one more build here.
  bool searched = false;
  for (const Work& w : work) searched = searched || !w.cached;
  std::vector<LoweredKernel> chosen;
  std::vector<std::size_t> owner;
  for (std::size_t ki = 0; ki < winners.size(); ++ki)
    if (work[ki].sameAs < 0 && winners[ki] && !winners[ki]->compiled.lowered.launches.empty()) {
      chosen.push_back(winners[ki]->compiled.lowered);
      owner.push_back(ki);
    }
  if (searched && !chosen.empty()) {
    try {
      std::vector<OpenCLKernel> built = build(chosen);
      for (std::size_t i = 0; i < owner.size(); ++i) winners[owner[i]]->compiled = std::move(built[i]);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;  // otherwise the candidates' builds serve
    }
  }
  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    Work& w = work[ki];
    if (w.sameAs < 0) continue;
    const TuneSearch& first = work[static_cast<std::size_t>(w.sameAs)].search;
    w.search.winner = first.winner;
    w.search.winnerNs = first.winnerNs;
    w.search.stopReason = StopReason::SameKernel;
    w.search.stopDetail = kernels[static_cast<std::size_t>(w.sameAs)].name;
    winners[ki] = winners[static_cast<std::size_t>(w.sameAs)];
    searches.push_back(w.search);
  }
  return winners;
}

}  // namespace ks
