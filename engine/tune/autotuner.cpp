// Schedule search per kernel and device, with one program build per kernel and a result check.
#include "engine/tune/autotuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/core/tolerance.h"
#include "engine/kernel/lowering.h"
#include "engine/program/random.h"
#include "engine/tune/cancellable.h"

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
  std::vector<std::optional<TunedKernel>> winners(kernels.size());
  // Kernels whose search the cache already holds: only their winners are built, all in one program.
  std::vector<std::pair<std::size_t, Schedule>> fromCache;

  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    progress.check("autotune");
    progress.report(static_cast<double>(ki) / kernels.size(), "tuning " + kernels[ki].name + " on " + info.id);
    const Kernel& k = kernels[ki].fused.kernel;
    const uint64_t hash = k.hash();
    TuneSearch search;
    search.kernel = static_cast<uint32_t>(ki);
    search.device = deviceIndex;

    if (auto cached = cache_.search(hash, info.fingerprint, level)) {
      for (const CachedMeasurement& m : cache_.measurements(hash, info.fingerprint)) {
        TuneMeasurement tm{search.kernel, deviceIndex, m.schedule, m.status, m.ns, m.reason, true};
        try {
          tm.schedule = Schedule::fromJson(nlohmann::json::parse(m.schedule)).str();
        } catch (...) {
        }
        measurements.push_back(tm);
        ++search.cacheHits;
      }
      try {
        const Schedule s = Schedule::fromJson(nlohmann::json::parse(cached->winner));
        search.winner = s.str();
        search.winnerNs = cached->winnerNs;
        search.stopReason = "cached (" + cached->stopReason + ")";
        search.measured = 0;
        search.candidates = cached->measured;
        fromCache.push_back({ki, s});
        searches.push_back(search);
        continue;
      } catch (...) {
        // An unreadable cached winner: search again.
        search.cacheHits = 0;
      }
    }

    const auto start = Clock::now();
    std::vector<Schedule> candidates = enumerateSchedules(k, limits, level_);
    search.candidates = static_cast<int>(candidates.size());
    if (static_cast<int>(candidates.size()) > budget_.maxCandidates) {
      candidates.resize(budget_.maxCandidates);
      search.stopReason = "count budget (" + std::to_string(budget_.maxCandidates) + " of " +
                          std::to_string(search.candidates) + " schedules)";
    }
    // Lower every candidate; schedules the lowering rejects are recorded, not fatal.
    std::vector<Schedule> scheds;
    std::vector<LoweredKernel> lowered;
    auto record = [&](const Schedule& s, const std::string& status, double ns, const std::string& reason) {
      measurements.push_back({search.kernel, deviceIndex, s.str(), status, ns, reason, false});
      cache_.putMeasurement(hash, info.fingerprint, {s.toJson().dump(), status, ns, reason});
    };
    for (const Schedule& s : candidates) {
      try {
        lowered.push_back(lowerKernel(k, s, limits));
        scheds.push_back(s);
      } catch (const Error& e) {
        record(s, "skipped", 0, e.message());
      }
    }
    // One build for all candidates; if it fails, build them one by one to find the culprits.
    std::vector<OpenCLKernel> built;
    std::vector<Schedule> builtScheds;
    const auto buildStart = Clock::now();
    try {
      built = runCancellable([device, lowered] { return device->build(lowered); }, progress, "kernel build");
      builtScheds = scheds;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled) throw;
      for (std::size_t c = 0; c < lowered.size(); ++c) {
        try {
          auto one = runCancellable([device, l = lowered[c]] { return device->build({l}); }, progress, "kernel build");
          built.push_back(std::move(one.front()));
          builtScheds.push_back(scheds[c]);
        } catch (const Error& e2) {
          if (e2.code() == ErrorCode::Cancelled) throw;
          record(scheds[c], "build error", 0, e2.message());
        }
      }
    }
    search.buildMs = msSince(buildStart);

    // Buffers for timing: random inputs, zeroed outputs.
    std::vector<OpenCLBuffer> params;
    std::vector<HostTensor> reference;
    double best = std::numeric_limits<double>::infinity();
    int bestIndex = -1;
    if (!built.empty()) {
      const auto& lp = built.front().lowered.params;
      for (std::size_t p = 0; p < lp.size(); ++p) {
        params.push_back(device->alloc(static_cast<std::size_t>(lp[p].numel) * dtypeSize(lp[p].dtype)));
        HostTensor h = lp[p].kind == ParamKind::Read ? randomTensor(lp[p].dtype, lp[p].numel, 1234 + p)
                                                     : HostTensor(lp[p].dtype, {lp[p].numel});
        device->write(params.back(), h.bytes(), h.byteSize());
      }
    }
    auto readOutputs = [&]() {
      std::vector<HostTensor> out;
      const auto& lp = built.front().lowered.params;
      for (std::size_t p = 0; p < lp.size(); ++p)
        if (lp[p].kind == ParamKind::ReadWrite) {
          HostTensor h(lp[p].dtype, {lp[p].numel});
          device->read(params[p], h.bytes(), h.byteSize());
          out.push_back(std::move(h));
        }
      return out;
    };
    const int64_t terms = reduceTerms(k);
    for (std::size_t c = 0; c < built.size(); ++c) {
      progress.check("autotune");
      if (msSince(start) > budget_.maxSeconds * 1000.0) {
        for (std::size_t r = c; r < built.size(); ++r) record(builtScheds[r], "skipped", 0, "time budget reached");
        search.stopReason = "time budget (" + std::to_string(budget_.maxSeconds) + " s)";
        break;
      }
      try {
        const OpenCLKernel& ck = built[c];
        const double first = static_cast<double>(
            runCancellable([device, &ck, &params] { return device->run(ck, params); }, progress, "kernel launch"));
        auto out = readOutputs();
        if (reference.empty()) {
          reference = std::move(out);
        } else {
          std::string bad;
          for (std::size_t o = 0; o < out.size() && bad.empty(); ++o) bad = compareWithTolerance(out[o], reference[o], terms);
          if (!bad.empty()) {
            record(builtScheds[c], "wrong result", first, "differs from the default schedule: " + bad);
            continue;
          }
        }
        if (std::isfinite(best) && first > 20 * best) {
          record(builtScheds[c], "too slow", first, "first run over 20x the best so far");
          continue;
        }
        std::vector<double> t;
        const int runs = budget_.warmup + budget_.repeats;
        for (int r = 0; r < runs; ++r) {
          const double ns = static_cast<double>(
              runCancellable([device, &ck, &params] { return device->run(ck, params); }, progress, "kernel launch"));
          if (r >= budget_.warmup) t.push_back(ns);
        }
        if (t.empty()) t.push_back(first);
        std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
        const double median = t[t.size() / 2];
        record(builtScheds[c], "ok", median, "");
        ++search.measured;
        if (median < best) {
          best = median;
          bestIndex = static_cast<int>(c);
        }
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Cancelled) {
          search.stopReason = "cancelled";
          searches.push_back(search);
          throw;
        }
        record(builtScheds[c], "launch error", 0, firstLine(e.message()));
      }
    }
    if (search.stopReason.empty()) search.stopReason = "exhausted";
    if (bestIndex >= 0) {
      search.winner = builtScheds[bestIndex].str();
      search.winnerNs = best;
      winners[ki] = TunedKernel{builtScheds[bestIndex], best, std::move(built[bestIndex])};
      cache_.putSearch(hash, info.fingerprint, level, {builtScheds[bestIndex].toJson().dump(), best, search.stopReason, search.measured});
    } else {
      search.stopReason += "; no schedule ran";
    }
    searches.push_back(search);
  }

  // Build the cached winners together: one program for all of them.
  if (!fromCache.empty()) {
    progress.report(1.0, "building cached winners on " + info.id);
    std::vector<LoweredKernel> lowered;
    for (auto& [ki, s] : fromCache) lowered.push_back(lowerKernel(kernels[ki].fused.kernel, s, limits));
    auto built = runCancellable([device, lowered] { return device->build(lowered); }, progress, "kernel build");
    for (std::size_t i = 0; i < fromCache.size(); ++i) {
      const std::size_t ki = fromCache[i].first;
      double ns = 0;
      for (auto& sr : searches)
        if (sr.kernel == ki && sr.device == deviceIndex) ns = sr.winnerNs;
      winners[ki] = TunedKernel{fromCache[i].second, ns, std::move(built[i])};
    }
  }
  return winners;
}

}  // namespace ks
