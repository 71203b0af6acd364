// libFuzzer target for session files (.kss.json): any bytes must load or give ks::Error (never
// crash, hang or throw anything else). A session that loads is read the way the GUI's views and
// `kernelscope-cli export` read it (every stage's picture and table, the timeline, the OpenCL C
// of its kernels), each of which may refuse with ks::Error but nothing else, and it must save
// and load back.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "engine/core/error.h"
#include "engine/session/exporters.h"
#include "engine/session/session_pictures.h"
#include "engine/session/session.h"

namespace {

// A reader that is allowed to refuse a file it cannot show (a view without data), never to crash.
template <class F>
void reads(F&& f) {
  try {
    f();
  } catch (const ks::Error&) {
  }
}

void readLikeTheViews(const ks::Session& s) {
  using ks::ExportView;
  for (ExportView v : {ExportView::EGraph, ExportView::Fusion, ExportView::Plan, ExportView::Timeline})
    for (const char* format : {"json", "dot", "csv"}) reads([&] { (void)ks::exportView(s, v, format); });
  // The Fusion view steps through the plan's run: the first, a middle and the last state; and
  // draws every run on its own graph (its forms as structural nodes).
  const ks::KernelizerRun* shown = s.trace().shownRun();
  const int steps = shown ? static_cast<int>(shown->trace.steps.size()) : 0;
  for (std::size_t r = 0; r < s.trace().fusionRuns.size(); ++r) reads([&] { (void)ks::fusionPictureOf(s, -1, static_cast<int>(r)); });
  for (int step : {0, steps / 2, steps}) {
    ks::ExportOptions o;
    o.step = step;
    o.expand = "all";
    reads([&] { (void)ks::exportView(s, ExportView::Fusion, "json", o); });
  }
  // Lowering a kernel is the costliest read: the first few kernels, under the default schedule
  // and each schedule the file names for them.
  const uint32_t kernels = static_cast<uint32_t>(std::min<std::size_t>(s.trace().kernels.size(), 4));
  for (uint32_t k = 0; k < kernels; ++k) {
    reads([&] { (void)s.kernelSource(k, "default"); });
    for (const ks::KernelEntry& e : s.trace().entries)
      if (e.kind == ks::KernelEntry::Kind::Fused && e.fused == k) reads([&] { (void)s.kernelSource(k, e.schedule); });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 23)) return 0;  // the samples' sessions are 20-200 KiB
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    ks::Session s = [&] {
      try {
        return ks::Session::fromJson(text, "fuzz.kss.json");
      } catch (const ks::Error&) {
        throw;
      } catch (const std::exception&) {
        std::abort();  // a raw library exception: the loader let an unchecked value through
      }
    }();
    readLikeTheViews(s);
    std::string saved;
    try {
      saved = s.toJson();
      (void)ks::Session::fromJson(saved, "saved.kss.json");
    } catch (const ks::Error&) {
      std::abort();  // what loaded must save and load back
    }
  } catch (const ks::Error&) {
  } catch (const std::exception&) {
    std::abort();  // a reader threw something other than ks::Error
  }
  return 0;
}
