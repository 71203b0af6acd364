// Shared by the deep-program tests: chain programs, a 1 MiB-stack thread and the host pipeline
// they go through.
#pragma once
#include <QThread>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "engine/core/error.h"
#include "engine/io/program_source.h"
#include "engine/session/exporters.h"
#include "engine/session/session.h"

namespace ks::testing::deep {
namespace fs = std::filesystem;

// "y = x + x + ... (terms)": one class per term, all in one fused kernel.
inline std::string chain(int terms, const char* op = " + x") {
  std::string s = "input x: f32[4]\ny = x";
  for (int i = 1; i < terms; ++i) s += op;
  return s + "\noutput y\n";
}

// Runs `f` on a thread with a 1 MiB stack; returns what it threw ("" when nothing).
inline std::string onSmallStack(const std::function<void()>& f) {
  std::string error;
  QThread* t = QThread::create([&] {
    try {
      f();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  t->setStackSize(1u << 20);
  t->start();
  t->wait();
  delete t;
  return error;
}

// The whole pipeline on `text` (the rewrite stage in `rewrite` mode: the CLI's and the GUI's
// default is RewriteMode::Default); fails the test on a wrong value.
inline void pipeline(const std::string& text, const std::string& devices, RewriteMode rewrite = RewriteMode::None) {
  Program p = parseKs(text, "chain.ks");
  const std::string printed = printKs(p);
  const Program again = parseKs(printed, "printed.ks");
  if (again.cacheKey() != p.cacheKey()) throw Error(ErrorCode::Internal, "print and parse gave another program");
  SessionOptions o;
  o.tune = TuneLevel::None;
  o.cache = "none";
  o.devices = devices;
  o.rewrite.mode = rewrite;
  Session s(std::move(p), o);
  const RunRecord& r = s.run({}, true);
  if (!r.verified || !r.verifyPassed) throw Error(ErrorCode::Internal, "the run differs from the host executor: " + r.outputs.at(0).mismatch);
  const std::string path = (fs::temp_directory_path() / ("ks_deep_" + std::to_string(::getpid()) + ".kss.json")).string();
  s.save(path);
  const Session back = Session::load(path);
  fs::remove(path);
  for (ExportView v : {ExportView::Fusion, ExportView::Plan}) (void)exportView(back, v, "json");
  if (!back.trace().kernels.empty() && back.kernelSource(0, "default").find("__kernel") == std::string::npos)
    throw Error(ErrorCode::Internal, "no kernel source");
}

}  // namespace ks::testing::deep
