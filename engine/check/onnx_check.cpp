// ONNX test-folder checking: discovery, data binding, deadline-bounded runs, comparison.
#include "engine/check/onnx_check.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <memory>
#include <sstream>
#include <thread>

#include "engine/core/error.h"
#include "engine/devices/device_info.h"
#include "engine/eval/host_executor.h"
#include "engine/io/onnx_importer.h"
#include "engine/io/tensor_file.h"
#include "engine/session/session.h"

namespace fs = std::filesystem;

namespace ks {

OnnxRunner onnxRunnerFor(const std::string& device, TuneLevel tune, const std::string& cache, const RuleSelection& rewrite) {
  if (device == "host")
    return [](const Program& p, const std::vector<std::pair<std::string, HostTensor>>&, const std::vector<HostTensor>& leaves) {
      return HostExecutor::run(p.graph, p.outputClasses(), leaves);
    };
  selectDevices(device, discoverDevices());  // unknown names fail here, before any model runs
  return [device, tune, cache, rewrite](const Program& p, const std::vector<std::pair<std::string, HostTensor>>& inputs,
                                        const std::vector<HostTensor>&) {
    SessionOptions so;
    so.devices = device;
    so.tune = tune;
    so.cache = cache;
    so.rewrite = rewrite;
    Session s(p, so);
    const RunRecord& rec = s.run(inputs, false);
    std::vector<HostTensor> out;
    for (const auto& o : rec.outputs) out.push_back(o.value);
    return out;
  };
}

std::vector<std::string> findOnnxTestDirs(const std::vector<std::string>& roots) {
  std::vector<std::string> r;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw Error(ErrorCode::Io, "not a folder", {root});
    if (fs::exists(fs::path(root) / "model.onnx", ec)) {
      r.push_back(root);
      continue;
    }
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->is_directory(ec) && fs::exists(it->path() / "model.onnx", ec)) {
        r.push_back(it->path().string());
        it.disable_recursion_pending();
      }
    }
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

// Files prefix_<k>.pb of a data-set folder, ordered by k.
std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> v;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) != 0 || e.path().extension() != ".pb") continue;
    const std::string k = e.path().stem().string().substr(prefix.size());
    int index = 0;
    const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), index);
    if (k.empty() || ec != std::errc{} || end != k.data() + k.size()) continue;  // not a numbered tensor: not ONNX's
    v.push_back({index, e.path()});
  }
  std::sort(v.begin(), v.end());
  std::vector<fs::path> r;
  for (auto& [k, p] : v) r.push_back(p);
  return r;
}

// One data set: import with its inputs, run on every device, compare. Throws on errors.
void runDataSet(const std::string& model, const fs::path& set, const OnnxCheckOptions& o) {
  const std::vector<std::string> names = onnxModelInputs(model);
  OnnxImportOptions io;
  const auto inputs = numbered(set, "input_");
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    std::string tname;
    HostTensor t = readOnnxTensorFile(inputs[k].string(), &tname);
    const bool named = std::find(names.begin(), names.end(), tname) != names.end();
    if (!named && k >= names.size())
      throw Error(ErrorCode::Usage, "test data has more inputs than the model", {inputs[k].string()});
    io.inputData[named ? tname : names[k]] = std::move(t);
  }
  OnnxImportResult imp = importOnnxModel(model, io);
  std::vector<std::pair<std::string, HostTensor>> given;
  for (const auto& in : imp.program.inputs) {
    auto it = io.inputData.find(in.name);
    if (it == io.inputData.end()) throw Error(ErrorCode::Usage, "no test data for input '" + in.name + "'", {set.string()});
    given.push_back({in.name, it->second});
  }
  const std::vector<HostTensor> leaves = bindLeaves(imp.program, given, 0);
  const auto outputs = numbered(set, "output_");
  if (outputs.size() != imp.program.outputs.size())
    throw Error(ErrorCode::Usage, "test data has " + std::to_string(outputs.size()) + " outputs, the model " +
                                      std::to_string(imp.program.outputs.size()), {set.string()});
  std::vector<HostTensor> expected;
  for (const auto& p : outputs) expected.push_back(readOnnxTensorFile(p.string()));
  for (const std::string& dev : o.devices) {
    const std::vector<HostTensor> got = onnxRunnerFor(dev, o.tune, o.cache, o.rewrite)(imp.program, given, leaves);
    if (got.size() != expected.size())
      throw Error(ErrorCode::Internal, "the run on " + dev + " gave " + std::to_string(got.size()) + " outputs", {set.string()});
    for (std::size_t k = 0; k < expected.size(); ++k) {
      const std::string diff = compareOnnxOutput(got.at(k), expected[k], o.rtol, o.atol);
      if (!diff.empty())
        throw Error(ErrorCode::Internal, "output '" + imp.program.outputs[k].name + "' on " + dev + ": " + diff,
                    {set.filename().string()}, "mismatch");
    }
  }
}

}  // namespace

std::string compareOnnxOutput(const HostTensor& got, const HostTensor& expected, double rtol, double atol) {
  if (got.dtype() != expected.dtype())
    return "dtype " + std::string(dtypeName(got.dtype())) + ", expected " + std::string(dtypeName(expected.dtype()));
  if (got.shape() != expected.shape()) return "shape " + shapeStr(got.shape()) + ", expected " + shapeStr(expected.shape());
  const int64_t n = got.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(got.dtype())) {
      const double a = got.getDouble(i), b = expected.getDouble(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;  // equal infinities
      if (std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= atol + rtol * std::fabs(b)) continue;
      return "mismatch at index " + std::to_string(i) + ": got " + num(a) + " expected " + num(b);
    }
    const int64_t a = got.getInt(i), b = expected.getInt(i);
    if (a != b) return "mismatch at index " + std::to_string(i) + ": got " + std::to_string(a) + " expected " + std::to_string(b);
  }
  return "";
}

OnnxCaseResult checkOnnxCase(const std::string& dir, const OnnxCheckOptions& o) {
  OnnxCaseResult r;
  r.dir = dir;
  r.name = fs::path(dir).filename().string();
  const std::string model = (fs::path(dir) / "model.onnx").string();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.opTypes = onnxModelOpTypes(model);
  } catch (const std::exception&) {
    // An unreadable model fails its run below, which reports why; the op list only feeds the
    // per-op summary.
  }
  // The work runs on its own thread with shared state, so an overrun can be abandoned: the thread
  // is detached and its result dropped (the process exit ends it).
  struct Shared {
    std::promise<std::pair<OnnxCaseResult::Status, std::string>> done;
  };
  auto shared = std::make_shared<Shared>();
  auto fut = shared->done.get_future();
  std::thread worker([shared, dir, model, o] {
    std::pair<OnnxCaseResult::Status, std::string> res{OnnxCaseResult::Status::Pass, ""};
    try {
      std::vector<fs::path> sets;
      for (const auto& e : fs::directory_iterator(dir))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
      std::sort(sets.begin(), sets.end());
      if (sets.empty()) throw Error(ErrorCode::Usage, "no test_data_set_* folder", {dir});
      for (const auto& s : sets) runDataSet(model, s, o);
    } catch (const Error& e) {
      res = {e.code() == ErrorCode::Unsupported ? OnnxCaseResult::Status::Unsupported : OnnxCaseResult::Status::Fail,
             e.op() == "mismatch" ? e.message() : e.what()};
    } catch (const std::exception& e) {
      res = {OnnxCaseResult::Status::Fail, std::string("error: ") + e.what()};
    } catch (...) {
      res = {OnnxCaseResult::Status::Fail, "error: unknown exception"};
    }
    shared->done.set_value(std::move(res));
  });
  const auto deadline = std::chrono::duration<double>(o.timeoutSeconds);
  if (fut.wait_for(deadline) == std::future_status::ready) {
    worker.join();
    auto res = fut.get();
    r.status = res.first;
    r.reason = res.second;
  } else {
    worker.detach();
    r.status = OnnxCaseResult::Status::Fail;
    r.reason = "timeout: still running after " + num(o.timeoutSeconds) + " s";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::map<std::string, std::pair<int, int>> onnxPassByOp(const std::vector<OnnxCaseResult>& results) {
  std::map<std::string, std::pair<int, int>> m;
  for (const auto& r : results)
    for (const auto& op : r.opTypes) {
      auto& [pass, total] = m[op];
      total++;
      if (r.status == OnnxCaseResult::Status::Pass) pass++;
    }
  return m;
}

}  // namespace ks
