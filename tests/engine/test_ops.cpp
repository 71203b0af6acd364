// Numeric cases for every program-builder op, run on the host reference executor and compared with
// values PyTorch/NumPy computed (tests/data/op_cases.json, made by tests/data/gen_op_cases.py).
#include <QElapsedTimer>
#include <QtTest>

#include <set>

#include "engine/devices/device_info.h"
#include "engine/session/session.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/eval/host_executor.h"
#include "engine/kernelizer/kernelizer.h"
#include "engine/program/builder.h"
#include "tests/engine/interpret_kernels.h"
#include "tests/require_opencl.h"

using json = nlohmann::json;
using namespace ks;

namespace {

using OpFn = std::function<std::vector<Value>(ProgramBuilder&, const std::vector<Value>&, const json&)>;

std::vector<int64_t> ints(const json& j) {
  std::vector<int64_t> r;
  for (const auto& v : j) r.push_back(v.get<int64_t>());
  return r;
}
std::optional<int64_t> optInt(const json& j) { return j.is_null() ? std::nullopt : std::optional<int64_t>(j.get<int64_t>()); }
std::optional<double> optDouble(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<double>();
}
double number(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return v.get<double>();
}

DType dtypeOf(const json& t) {
  auto d = parseDType(t["dtype"].get<std::string>());
  if (!d) throw std::runtime_error("unknown dtype " + t["dtype"].get<std::string>());
  return *d;
}

HostTensor tensorOf(const json& t) {
  HostTensor h(dtypeOf(t), Shape(ints(t["shape"])));
  const json& data = t["data"];
  for (int64_t i = 0; i < h.numel(); ++i) {
    if (isFloat(h.dtype())) h.setDouble(i, number(data[i]));
    else h.setInt(i, data[i].get<int64_t>());
  }
  return h;
}

Operand scalarOf(const json& a) {
  if (a.value("scalar_float", false)) return Operand(a["scalar"].get<double>());
  return Operand(a["scalar"].get<int64_t>());
}

using UnaryFn = Value (*)(Value);
using BinaryFn = Value (*)(Operand, Operand);

std::map<std::string, OpFn> opTable() {
  std::map<std::string, OpFn> t;
  auto unary = [&](const char* name, UnaryFn f) {
    t[name] = [f](ProgramBuilder&, const std::vector<Value>& in, const json&) { return std::vector<Value>{f(in[0])}; };
  };
  unary("neg", op::neg);
  unary("abs", op::abs);
  unary("exp", op::exp);
  unary("exp2", op::exp2);
  unary("log", op::log);
  unary("log2", op::log2);
  unary("sqrt", op::sqrt);
  unary("rsqrt", op::rsqrt);
  unary("reciprocal", op::reciprocal);
  unary("sin", op::sin);
  unary("cos", op::cos);
  unary("tan", op::tan);
  unary("tanh", op::tanh);
  unary("erf", op::erf);
  unary("floor", op::floor);
  unary("ceil", op::ceil);
  unary("round", op::round);
  unary("sign", op::sign);
  unary("square", op::square);
  unary("logical_not", op::logicalNot);
  unary("isnan", op::isnan);
  unary("sigmoid", op::sigmoid);
  unary("relu", op::relu);
  unary("silu", op::silu);
  t["leaky_relu"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::leakyRelu(in[0], a["alpha"].get<double>())};
  };
  t["elu"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::elu(in[0], a["alpha"].get<double>())};
  };
  t["gelu"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::gelu(in[0], a["tanh"].get<bool>())};
  };
  t["softplus"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::softplus(in[0], a["beta"].get<double>(), a["threshold"].get<double>())};
  };
  t["cast"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::cast(in[0], *parseDType(a["dtype"].get<std::string>()))};
  };

  auto binary = [&](const char* name, BinaryFn f) {
    t[name] = [f](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
      if (a.contains("scalar")) {
        const Operand s = scalarOf(a);
        return std::vector<Value>{a["scalar_first"].get<bool>() ? f(s, in[0]) : f(in[0], s)};
      }
      return std::vector<Value>{f(in[0], in[1])};
    };
  };
  binary("add", op::add);
  binary("sub", op::sub);
  binary("mul", op::mul);
  binary("div", op::div);
  binary("pow", op::pow);
  binary("mod", op::mod);
  binary("fmod", op::fmod);
  binary("maximum", op::maximum);
  binary("minimum", op::minimum);
  binary("lt", op::lt);
  binary("le", op::le);
  binary("gt", op::gt);
  binary("ge", op::ge);
  binary("eq", op::eq);
  binary("ne", op::ne);
  binary("logical_and", op::logicalAnd);
  binary("logical_or", op::logicalOr);
  binary("logical_xor", op::logicalXor);
  t["where"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    const std::string pattern = a.value("pattern", "");
    if (pattern == "log_or_zero") return std::vector<Value>{op::where(op::gt(in[0], 0.0), op::log(in[0]), 0.0)};
    if (pattern == "gt_scalar") return std::vector<Value>{op::where(op::gt(in[0], 0.5), in[0], -1.0)};
    return std::vector<Value>{op::where(in[0], in[1], in[2])};
  };
  t["clamp"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::clamp(in[0], optDouble(a, "lo"), optDouble(a, "hi"))};
  };

  using ReduceFn = Value (*)(Value, std::vector<int64_t>, bool);
  auto reduce = [&](const char* name, ReduceFn f) {
    t[name] = [f](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
      return std::vector<Value>{f(in[0], ints(a["axes"]), a["keepdim"].get<bool>())};
    };
  };
  reduce("sum", op::sum);
  reduce("mean", op::mean);
  reduce("max", op::max);
  reduce("min", op::min);
  reduce("prod", op::prod);
  t["var"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::var(in[0], ints(a["axes"]), a["correction"].get<double>(), a["keepdim"].get<bool>())};
  };
  t["std"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::std(in[0], ints(a["axes"]), a["correction"].get<double>(), a["keepdim"].get<bool>())};
  };
  t["argmax"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::argmax(in[0], a["axis"].get<int64_t>(), a["keepdim"].get<bool>())};
  };
  t["argmin"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::argmin(in[0], a["axis"].get<int64_t>(), a["keepdim"].get<bool>())};
  };
  t["cumsum"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::cumsum(in[0], a["axis"].get<int64_t>())};
  };

  t["reshape"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::reshape(in[0], ints(a["shape"]))};
  };
  t["permute"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::permute(in[0], ints(a["axes"]))};
  };
  t["transpose"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::transpose(in[0], a["a"].get<int64_t>(), a["b"].get<int64_t>())};
  };
  t["expand"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::expand(in[0], ints(a["shape"]))};
  };
  t["pad"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    std::vector<std::pair<int64_t, int64_t>> pads;
    for (const auto& p : a["pads"]) pads.push_back({p[0].get<int64_t>(), p[1].get<int64_t>()});
    return std::vector<Value>{op::pad(in[0], pads, number(a["value"]))};
  };
  t["slice"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::slice(in[0], a["axis"].get<int64_t>(), optInt(a["start"]), optInt(a["stop"]),
                                        a["step"].get<int64_t>())};
  };
  t["narrow"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::narrow(in[0], a["axis"].get<int64_t>(), a["start"].get<int64_t>(), a["len"].get<int64_t>())};
  };
  t["flip"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::flip(in[0], ints(a["axes"]))};
  };
  t["concat"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::concat(in, a["axis"].get<int64_t>())};
  };
  t["stack"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::stack(in, a["axis"].get<int64_t>())};
  };
  t["split"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return op::split(in[0], ints(a["sizes"]), a["axis"].get<int64_t>());
  };
  t["chunk"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return op::chunk(in[0], a["chunks"].get<int64_t>(), a["axis"].get<int64_t>());
  };
  t["squeeze"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::squeeze(in[0], ints(a["axes"]))};
  };
  t["unsqueeze"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::unsqueeze(in[0], a["axis"].get<int64_t>())};
  };
  t["flatten"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::flatten(in[0], a["start"].get<int64_t>(), a["end"].get<int64_t>())};
  };
  t["repeat"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::repeat(in[0], ints(a["repeats"]))};
  };

  t["matmul"] = [](ProgramBuilder&, const std::vector<Value>& in, const json&) {
    return std::vector<Value>{op::matmul(in[0], in[1])};
  };
  t["linear"] = [](ProgramBuilder&, const std::vector<Value>& in, const json&) {
    return std::vector<Value>{op::linear(in[0], in[1], in.size() > 2 ? std::optional<Value>(in[2]) : std::nullopt)};
  };
  t["conv2d"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::conv2d(in[0], in[1], in.size() > 2 ? std::optional<Value>(in[2]) : std::nullopt,
                                         ints(a["stride"]), ints(a["padding"]), ints(a["dilation"]), a["groups"].get<int64_t>())};
  };
  t["max_pool2d"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::maxPool2d(in[0], ints(a["kernel"]), ints(a["stride"]), ints(a["padding"]), ints(a["dilation"]))};
  };
  t["avg_pool2d"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::avgPool2d(in[0], ints(a["kernel"]), ints(a["stride"]), ints(a["padding"]),
                                            a["count_include_pad"].get<bool>())};
  };
  t["softmax"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::softmax(in[0], a["axis"].get<int64_t>())};
  };
  t["log_softmax"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::logSoftmax(in[0], a["axis"].get<int64_t>())};
  };
  t["layer_norm"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    std::size_t i = 1;
    std::optional<Value> w, b;
    if (a["weight"].get<bool>()) w = in[i++];
    if (a["bias"].get<bool>()) b = in[i++];
    return std::vector<Value>{op::layerNorm(in[0], w, b, a["dims"].get<int64_t>(), a["eps"].get<double>())};
  };
  t["rms_norm"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    std::optional<Value> w;
    if (a["weight"].get<bool>()) w = in[1];
    return std::vector<Value>{op::rmsNorm(in[0], w, a["dims"].get<int64_t>(), a["eps"].get<double>())};
  };
  t["batch_norm"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    std::size_t i = 3;
    std::optional<Value> w, b;
    if (a["weight"].get<bool>()) w = in[i++];
    if (a["bias"].get<bool>()) b = in[i++];
    return std::vector<Value>{op::batchNorm(in[0], in[1], in[2], w, b, a["eps"].get<double>())};
  };
  t["sdpa"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::scaledDotProductAttention(in[0], in[1], in[2], a["causal"].get<bool>(), optDouble(a, "scale"))};
  };
  t["embedding"] = [](ProgramBuilder&, const std::vector<Value>& in, const json&) {
    return std::vector<Value>{op::embedding(in[0], in[1])};
  };
  t["one_hot"] = [](ProgramBuilder&, const std::vector<Value>& in, const json& a) {
    return std::vector<Value>{op::oneHot(in[0], a["num_classes"].get<int64_t>())};
  };
  t["cross_entropy"] = [](ProgramBuilder&, const std::vector<Value>& in, const json&) {
    return std::vector<Value>{op::crossEntropy(in[0], in[1])};
  };
  t["mse"] = [](ProgramBuilder&, const std::vector<Value>& in, const json&) {
    return std::vector<Value>{op::mse(in[0], in[1])};
  };
  return t;
}

// DESIGN.md §2.1: f32 (and f64) |a-b| <= 1e-5 + 1e-4|b| * max(1, sqrt(K)/4); f16 1e-3 + 1e-3|b|.
bool close(double got, double want, DType t, int64_t k) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  if (t == DType::F16) return std::fabs(got - want) <= 1e-3 + 1e-3 * std::fabs(want);
  const double rel = 1e-4 * std::max(1.0, std::sqrt(static_cast<double>(k)) / 4.0);
  return std::fabs(got - want) <= 1e-5 + rel * std::fabs(want);
}

std::string valueStr(const HostTensor& h, int64_t i) {
  return isFloat(h.dtype()) ? std::to_string(h.getDouble(i)) : std::to_string(h.getInt(i));
}


}  // namespace

class TestOps : public QObject {
  Q_OBJECT

 private:
  json cases_;
  std::map<std::string, OpFn> table_;
  std::map<std::string, std::map<std::string, int>> coverage_;  // op -> dtype class -> cases passed

  // The case's program in `b`; fills `leaves` (by leaf index) and returns the output classes.
  std::vector<ClassId> buildCase(const json& c, ProgramBuilder& b, std::vector<HostTensor>& leaves) {
    std::vector<Value> ins;
    std::vector<HostTensor> data;
    for (std::size_t i = 0; i < c["inputs"].size(); ++i) {
      data.push_back(tensorOf(c["inputs"][i]));
      ins.push_back(b.input("in" + std::to_string(i), data.back().dtype(), data.back().shape()));
    }
    const std::vector<Value> outs = table_.at(c["op"].get<std::string>())(b, ins, c["args"]);
    leaves = bindLeaves(b.program(), {}, 0);
    for (std::size_t i = 0; i < ins.size(); ++i) leaves[b.program().inputs[i].leaf] = data[i];
    std::vector<ClassId> ids;
    for (const Value& v : outs) ids.push_back(v.id());
    return ids;
  }

  // "" when `got` matches the case's expected values (dtype, shape, values within the op's
  // tolerance), otherwise the first difference.
  static std::string mismatch(const json& c, const std::vector<HostTensor>& got) {
    const json& expected = c["expected"];
    if (got.size() != expected.size()) return "got " + std::to_string(got.size()) + " outputs, expected " + std::to_string(expected.size());
    const int64_t k = c.value("k", int64_t{1});
    for (std::size_t o = 0; o < got.size(); ++o) {
      const HostTensor want = tensorOf(expected[o]);
      if (got[o].dtype() != want.dtype() || got[o].shape() != want.shape())
        return "output " + std::to_string(o) + " is " + std::string(dtypeName(got[o].dtype())) + shapeStr(got[o].shape()) +
               ", expected " + std::string(dtypeName(want.dtype())) + shapeStr(want.shape());
      for (int64_t i = 0; i < want.numel(); ++i) {
        const bool ok = isFloat(want.dtype()) ? close(got[o].getDouble(i), want.getDouble(i), want.dtype(), k)
                                              : got[o].getInt(i) == want.getInt(i);
        if (!ok)
          return "output " + std::to_string(o) + " element " + std::to_string(i) + ": got " + valueStr(got[o], i) +
                 ", expected " + valueStr(want, i);
      }
    }
    return "";
  }

 private slots:
  void initTestCase() {
    const char* env = std::getenv("KS_SOURCE_DIR");
    const std::string root = env ? env : KS_SOURCE_DIR;
    std::ifstream f(root + "/tests/data/op_cases.json");
    QVERIFY2(f.good(), "tests/data/op_cases.json not found (KS_SOURCE_DIR)");
    cases_ = json::parse(f)["cases"];
    table_ = opTable();
    QVERIFY2(cases_.size() >= 300, "the op suite needs at least 300 cases");
  }

  void cases_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases_.size(); ++i)
      QTest::newRow(cases_[i]["name"].get<std::string>().c_str()) << static_cast<int>(i);
  }

  void cases() {
    QFETCH(int, index);
    const json& c = cases_[index];
    const std::string opName = c["op"].get<std::string>();
    auto it = table_.find(opName);
    QVERIFY2(it != table_.end(), ("no builder entry for op " + opName).c_str());

    ProgramBuilder b(c["name"].get<std::string>());
    std::vector<HostTensor> leaves;
    std::vector<ClassId> ids;
    try {
      ids = buildCase(c, b, leaves);
    } catch (const Error& e) {
      QFAIL(("builder threw: " + std::string(e.what())).c_str());
    }
    std::vector<HostTensor> got;
    try {
      got = HostExecutor::run(b.graph(), ids, leaves);
    } catch (const Error& e) {
      QFAIL(("host executor threw: " + std::string(e.what())).c_str());
    }
    const std::string bad = mismatch(c, got);
    QVERIFY2(bad.empty(), bad.c_str());
    ++coverage_[opName][c["cls"].get<std::string>()];
  }

  // Every case once more through the kernelizer and both IR interpreters (the unlowered kernel,
  // and the kernel lowered under the schedule --tune none picks), kernel after kernel from the case's
  // inputs, never through the host executor. The interpreters share the host executor's scalar
  // semantics (eval/scalar_ops.h), so PyTorch's values are what checks that code independently.
  void casesOnInterpreters() {
    int checked = 0;
    for (const json& c : cases_) {
      ProgramBuilder b(c["name"].get<std::string>());
      std::vector<HostTensor> leaves;
      const std::vector<ClassId> ids = buildCase(c, b, leaves);
      const KernelizeResult kr = kernelize(b.graph(), ids);
      if (kr.error) QFAIL((c["name"].get<std::string>() + ": " + kr.error->what()).c_str());
      for (bool lowered : {false, true}) {
        std::string bad;
        try {
          bad = mismatch(c, interpretKernels(b.graph(), kr.kernels, ids, leaves, lowered));
        } catch (const Error& e) {
          bad = e.what();
        }
        QVERIFY2(bad.empty(), (c["name"].get<std::string>() + (lowered ? " (lowered): " : " (unlowered): ") + bad).c_str());
        ++checked;
      }
    }
    QCOMPARE(checked, 2 * static_cast<int>(cases_.size()));
  }

  // The cases once more through the whole pipeline on an OpenCL device (PoCL here), as outputs of
  // ONE program, so the kernelizer sees them together and the device builds one program. Each
  // output is compared with the same expected values as on host. The default suite takes the
  // first case of every (op, dtype class); KS_OP_CASES=all (the `long` ctest) takes all of them.
  void allCasesOnOpenCL() {
    const char* which = std::getenv("KS_OP_CASES");
    const bool all = which && std::string(which) == "all";
    std::set<std::pair<std::string, std::string>> taken;
    std::string device;
    for (const DeviceInfo& d : discoverDevices())
      if (d.compiles() && device.empty()) device = d.name;
    if (device.empty()) KS_SKIP_WITHOUT_OPENCL();
    ProgramBuilder b("all_op_cases");
    std::vector<std::pair<std::string, HostTensor>> inputs;
    struct Out {
      std::size_t caseIndex, output;
    };
    std::vector<Out> outs;
    for (std::size_t ci = 0; ci < cases_.size(); ++ci) {
      const json& c = cases_[ci];
      if (!all && !taken.insert({c["op"].get<std::string>(), c["cls"].get<std::string>()}).second) continue;
      std::vector<Value> ins;
      for (std::size_t i = 0; i < c["inputs"].size(); ++i) {
        HostTensor t = tensorOf(c["inputs"][i]);
        const std::string name = "c" + std::to_string(ci) + "_in" + std::to_string(i);
        ins.push_back(b.input(name, t.dtype(), t.shape()));
        inputs.push_back({name, std::move(t)});
      }
      const std::vector<Value> vs = table_.at(c["op"].get<std::string>())(b, ins, c["args"]);
      for (std::size_t o = 0; o < vs.size(); ++o) {
        b.output("c" + std::to_string(ci) + "_out" + std::to_string(o), vs[o]);
        outs.push_back({ci, o});
      }
    }
    SessionOptions opts;
    opts.devices = device;
    opts.tune = TuneLevel::None;
    opts.cache = "none";
    Session session(b.finish(), opts);
    const RunRecord& r = session.run(inputs, false);
    QCOMPARE(r.outputs.size(), outs.size());
    int failed = 0;
    std::set<std::string> ops;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const json& c = cases_[outs[i].caseIndex];
      const HostTensor want = tensorOf(c["expected"][outs[i].output]);
      const HostTensor& got = r.outputs[i].value;
      const int64_t k = c.value("k", int64_t{1});
      bool ok = got.dtype() == want.dtype() && got.shape() == want.shape();
      std::string first;
      for (int64_t e = 0; ok && e < want.numel(); ++e) {
        ok = isFloat(want.dtype()) ? close(got.getDouble(e), want.getDouble(e), want.dtype(), k) : got.getInt(e) == want.getInt(e);
        if (!ok) first = "element " + std::to_string(e) + ": got " + valueStr(got, e) + ", expected " + valueStr(want, e);
      }
      if (!ok) {
        ++failed;
        qWarning("%s on %s: %s", c["name"].get<std::string>().c_str(), device.c_str(), first.c_str());
      } else {
        ops.insert(c["op"].get<std::string>());
      }
    }
    qInfo("%zu op cases (%zu ops) through kernelizer + lowering + OpenCL on %s: %d failed; %zu fused kernels, %zu launches",
          outs.size(), ops.size(), device.c_str(), failed, session.trace().kernels.size(), session.trace().plan.steps.size());
    QCOMPARE(failed, 0);
  }

  // ---- the host executor's own semantics, hand-worked (primitives the builder does not reach)

  void hostF16RoundsHalfToEvenOnStore() {
    Graph g;
    const ClassId a = g.addLeaf({"a", LeafKind::Input, DType::F16, {3}, nullptr});
    const ClassId b = g.addLeaf({"b", LeafKind::Input, DType::F16, {3}, nullptr});
    Node n;
    n.kind = NodeKind::Binary;
    n.op = static_cast<uint8_t>(BinaryOp::Add);
    n.in = {a, b};
    const ClassId sum = g.add(n);
    HostTensor ta(DType::F16, {3}), tb(DType::F16, {3});
    const double av[] = {1.0, 2048.0, 1.0}, bv[] = {std::ldexp(1.0, -11), 1.0, 3 * std::ldexp(1.0, -11)};
    for (int i = 0; i < 3; ++i) {
      ta.setDouble(i, av[i]);
      tb.setDouble(i, bv[i]);
    }
    const HostTensor r = HostExecutor::run(g, {sum}, {ta, tb})[0];
    QCOMPARE(r.dtype(), DType::F16);
    QCOMPARE(r.getDouble(0), 1.0);                            // 1 + 2^-11: tie, even is 1
    QCOMPARE(r.getDouble(1), 2048.0);                         // 2049: tie between 2048 and 2050
    QCOMPARE(r.getDouble(2), 1.0 + std::ldexp(1.0, -9));      // tie, even is 1 + 2^-9
  }

  void hostSumAccumulatesInFloatSequentially() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4});
    HostTensor t(DType::F32, {4});
    const double v[] = {1e8, 1.0, -1e8, 1.0};
    for (int i = 0; i < 4; ++i) t.setDouble(i, v[i]);
    // float: (1e8 + 1) rounds to 1e8, minus 1e8 is 0, plus 1 is 1 (a double accumulator gives 2)
    QCOMPARE(HostExecutor::run(b.graph(), {op::sum(x).id()}, {t})[0].getDouble(0), 1.0);
    Value e = b.input("e", DType::F32, {2, 0});
    HostTensor te(DType::F32, {2, 0});
    const auto empty = HostExecutor::run(b.graph(), {op::sum(e, {1}).id(), op::prod(e, {1}).id()}, {t, te});
    QCOMPARE(empty[0].getDouble(1), 0.0);  // empty sum
    QCOMPARE(empty[1].getDouble(1), 1.0);  // empty product
  }

  void hostMovementViewsCompose() {
    ProgramBuilder b;
    Value x = b.input("x", DType::I32, {6});
    HostTensor t(DType::I32, {6});
    for (int i = 0; i < 6; ++i) t.setInt(i, i + 1);
    Value fl = op::narrow(op::flip(x, {0}), 0, 1, 3);                   // [5, 4, 3]
    Value pd = op::pad(x, {{-1, 2}}, 9.0);                               // [2, 3, 4, 5, 6, 9, 9]
    Value tr = op::reshape(op::transpose(op::reshape(x, {2, 3})), {6});  // [1, 4, 2, 5, 3, 6]
    Value ex = op::sum(op::expand(op::reshape(fl, {3, 1}), {3, 4}), {1});  // [20, 16, 12]
    Value id = op::contiguous(tr);
    const auto r = HostExecutor::run(b.graph(), {fl.id(), pd.id(), tr.id(), ex.id(), id.id()}, {t});
    auto ints = [](const HostTensor& h) {
      std::vector<int64_t> v;
      for (int64_t i = 0; i < h.numel(); ++i) v.push_back(h.getInt(i));
      return v;
    };
    QCOMPARE(ints(r[0]), (std::vector<int64_t>{5, 4, 3}));
    QCOMPARE(ints(r[1]), (std::vector<int64_t>{2, 3, 4, 5, 6, 9, 9}));
    QCOMPARE(ints(r[2]), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
    QCOMPARE(ints(r[3]), (std::vector<int64_t>{20, 16, 12}));
    QCOMPARE(ints(r[4]), ints(r[2]));
  }

  void hostCastsBitcastsAndIntEdges() {
    Graph g;
    const ClassId f = g.addLeaf({"f", LeafKind::Input, DType::F32, {4}, nullptr});
    const ClassId i = g.addLeaf({"i", LeafKind::Input, DType::I32, {4}, nullptr});
    auto unaryNode = [&](NodeKind k, ClassId x, DType t) {
      Node n;
      n.kind = k;
      n.in = {x};
      n.dtype = t;
      return g.add(n);
    };
    auto binaryNode = [&](BinaryOp op, ClassId x, ClassId y) {
      Node n;
      n.kind = NodeKind::Binary;
      n.op = static_cast<uint8_t>(op);
      n.in = {x, y};
      return g.add(n);
    };
    const ClassId bits = unaryNode(NodeKind::Bitcast, f, DType::I32);
    const ClassId sat = unaryNode(NodeKind::Cast, f, DType::U8);
    const ClassId asBool = unaryNode(NodeKind::Cast, f, DType::Bool);
    const ClassId zero = g.addConst(Scalar::ofInt(DType::I32, 0));
    const ClassId divZero = binaryNode(BinaryOp::Div, i, zero);
    const ClassId modZero = binaryNode(BinaryOp::Mod, i, zero);
    const ClassId minusOne = g.addConst(Scalar::ofInt(DType::I32, -1));
    const ClassId divMinusOne = binaryNode(BinaryOp::Div, i, minusOne);
    const ClassId negPow = binaryNode(BinaryOp::Pow, i, minusOne);
    HostTensor tf(DType::F32, {4}), ti(DType::I32, {4});
    const double fv[] = {1.0, -0.0, 300.0, std::nan("")};
    const int64_t iv[] = {7, -2147483648LL, 1, -1};
    for (int k = 0; k < 4; ++k) {
      tf.setDouble(k, fv[k]);
      ti.setInt(k, iv[k]);
    }
    const auto r = HostExecutor::run(g, {bits, sat, asBool, divZero, modZero, divMinusOne, negPow}, {tf, ti});
    QCOMPARE(r[0].getInt(0), int64_t{0x3f800000});      // bits of 1.0f
    QCOMPARE(r[0].getInt(1), int64_t{-2147483648LL});   // bits of -0.0f
    QCOMPARE(r[1].getInt(2), int64_t{255});             // float -> u8 saturates
    QCOMPARE(r[1].getInt(1), int64_t{0});
    QCOMPARE(r[1].getInt(3), int64_t{0});               // NaN -> 0
    QCOMPARE(r[2].getInt(3), int64_t{1});               // NaN -> true
    QCOMPARE(r[2].getInt(1), int64_t{0});               // -0.0 -> false
    for (int k = 0; k < 4; ++k) {
      QCOMPARE(r[3].getInt(k), int64_t{0});  // x / 0 = 0 (documented)
      QCOMPARE(r[4].getInt(k), int64_t{0});  // x mod 0 = 0
    }
    QCOMPARE(r[5].getInt(1), int64_t{-2147483648LL});  // INT_MIN / -1 wraps
    QCOMPARE(r[5].getInt(0), int64_t{-7});
    QCOMPARE(r[6].getInt(0), int64_t{0});   // 7^-1 = 0
    QCOMPARE(r[6].getInt(2), int64_t{1});   // 1^-1 = 1
    QCOMPARE(r[6].getInt(3), int64_t{-1});  // (-1)^-1 = -1
  }

  void hostIgnoresAlternativesAndRejectsBadOutputs() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2});
    Value y = op::mul(x, 3.0);
    Node k;
    k.kind = NodeKind::Kernel;
    k.in = {x.id()};
    k.out = {y.id()};
    b.graph().addAlternative(y.id(), k);
    const ClassId moved = b.graph().addToDevice(y.id(), 1, 10.0);
    HostTensor t(DType::F32, {2});
    t.setDouble(0, 1.5);
    t.setDouble(1, -2.0);
    const auto r = HostExecutor::run(b.graph(), {moved}, {t});
    QCOMPARE(r[0].getDouble(0), 4.5);
    QCOMPARE(r[0].getDouble(1), -6.0);
    QVERIFY_THROWS_EXCEPTION(Error, HostExecutor::run(b.graph(), {ClassId(9999)}, {t}));
  }

  // Matmul at realistic K against a plain double loop (independent of the builder's lowering).
  void largeMatmulAgainstNaiveLoop_data() {
    QTest::addColumn<QString>("aShape");
    QTest::addColumn<QString>("bShape");
    QTest::newRow("3x64x256 @ 256x48") << "3,64,256" << "256,48";
    QTest::newRow("2x1x8x1024 @ 3x1024x4 (batch broadcast)") << "2,1,8,1024" << "3,1024,4";
    QTest::newRow("512 @ 512x8 (vector)") << "512" << "512,8";
  }
  void largeMatmulAgainstNaiveLoop() {
    QFETCH(QString, aShape);
    QFETCH(QString, bShape);
    auto parse = [](const QString& s) {
      Shape r;
      for (const QString& p : s.split(',')) r.push_back(p.toLongLong());
      return r;
    };
    const Shape sa = parse(aShape), sb = parse(bShape);
    ProgramBuilder b;
    Value a = b.input("a", DType::F32, sa), w = b.input("b", DType::F32, sb);
    Value y = op::matmul(a, w);
    uint64_t state = 12345;
    auto fill = [&](HostTensor& t) {
      for (int64_t i = 0; i < t.numel(); ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        t.setDouble(i, static_cast<double>((state >> 40) % 2001) / 1000.0 - 1.0);
      }
    };
    HostTensor ta(DType::F32, sa), tb(DType::F32, sb);
    fill(ta);
    fill(tb);
    const HostTensor r = HostExecutor::run(b.graph(), {y.id()}, {ta, tb})[0];
    // Reference: NumPy matmul semantics written out with explicit batch broadcasting.
    Shape a2 = sa, b2 = sb;
    const bool aVec = a2.size() == 1, bVec = b2.size() == 1;
    if (aVec) a2.insert(a2.begin(), 1);
    if (bVec) b2.push_back(1);
    const int64_t m = a2[a2.size() - 2], k = a2.back(), n = b2.back();
    const Shape ba(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
    const Shape batch = broadcastShapes(ba, bb, "test");
    const int64_t nb = numel(batch);
    QCOMPARE(r.numel(), nb * m * n);
    auto batchOffset = [&](const Shape& own, int64_t flat) {  // broadcast index into own batch dims
      int64_t off = 0, stride = 1;
      for (int d = static_cast<int>(batch.size()) - 1, o = static_cast<int>(own.size()) - 1; d >= 0; --d, --o) {
        const int64_t idx = flat % batch[d];
        flat /= batch[d];
        if (o >= 0) {
          if (own[o] != 1) off += idx * stride;
          stride *= own[o];
        }
      }
      return off;
    };
    const double rel = 1e-4 * std::max(1.0, std::sqrt(static_cast<double>(k)) / 4.0);
    for (int64_t bi = 0; bi < nb; ++bi) {
      const int64_t oa = batchOffset(ba, bi) * m * k, ob = batchOffset(bb, bi) * k * n;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t q = 0; q < k; ++q) acc += ta.getDouble(oa + i * k + q) * tb.getDouble(ob + q * n + j);
          const double got = r.getDouble((bi * m + i) * n + j);
          if (std::fabs(got - acc) > 1e-5 + rel * std::fabs(acc))
            QFAIL(("batch " + std::to_string(bi) + " (" + std::to_string(i) + ", " + std::to_string(j) + "): got " +
                   std::to_string(got) + ", expected " + std::to_string(acc)).c_str());
        }
    }
  }

  // A 128x256 pre-norm transformer block: the oracle must stay fast enough for every later suite.
  void transformerBlockRunsQuickly() {
    ProgramBuilder b;
    const int64_t t = 128, d = 256, heads = 4, dh = d / heads;
    Value x = b.input("x", DType::F32, {t, d});
    auto param = [&](const char* name, Shape s, uint64_t seed) {
      return b.param(name, DType::F32, s, {ParamInit::Kind::Normal, 0.0, 0.05, seed, nullptr});
    };
    Value wq = param("wq", {d, d}, 1), wk = param("wk", {d, d}, 2), wv = param("wv", {d, d}, 3), wo = param("wo", {d, d}, 4);
    Value w1 = param("w1", {d, 4 * d}, 5), w2 = param("w2", {4 * d, d}, 6);
    auto headsOf = [&](Value v) { return op::permute(op::reshape(v, {t, heads, dh}), {1, 0, 2}); };
    Value h = op::layerNorm(x, std::nullopt, std::nullopt);
    Value att = op::scaledDotProductAttention(headsOf(op::matmul(h, wq)), headsOf(op::matmul(h, wk)),
                                              headsOf(op::matmul(h, wv)), true);
    Value merged = op::reshape(op::permute(att, {1, 0, 2}), {t, d});
    Value h2 = op::add(x, op::matmul(merged, wo));
    Value y = op::add(h2, op::matmul(op::gelu(op::matmul(op::layerNorm(h2, std::nullopt, std::nullopt), w1)), w2));
    b.output("y", y);
    Program p = b.finish();
    const auto leaves = bindLeaves(p, {}, 7);
    QElapsedTimer timer;
    timer.start();
    const auto r = HostExecutor::run(p.graph, p.outputClasses(), leaves);
    const qint64 ms = timer.elapsed();
    std::printf("host executor: 128x256 transformer block in %lld ms\n", static_cast<long long>(ms));
    QCOMPARE(shapeStr(r[0].shape()), std::string("[128, 256]"));
    for (int64_t i = 0; i < r[0].numel(); ++i) QVERIFY(std::isfinite(r[0].getDouble(i)));
#if defined(__SANITIZE_ADDRESS__)
    std::printf("(built with sanitizers: no time limit)\n");
#else
    QVERIFY2(ms < 3000, "the host executor is far slower than expected (target: well under a second)");
#endif
  }

  // The op x dtype-class table of the cases that passed.
  void cleanupTestCase() {
    const char* classes[] = {"float", "signed", "unsigned", "bool"};
    std::printf("\nop coverage (passed cases per dtype class)\n%-16s %7s %7s %9s %5s\n", "op", "float", "signed",
                "unsigned", "bool");
    int total = 0;
    for (const auto& [name, per] : coverage_) {
      std::printf("%-16s", name.c_str());
      for (const char* cls : classes) {
        auto it = per.find(cls);
        const int n = it == per.end() ? 0 : it->second;
        total += n;
        std::printf(" %*s", cls == std::string("unsigned") ? 9 : (cls == std::string("bool") ? 5 : 7),
                    n ? std::to_string(n).c_str() : "-");
      }
      std::printf("\n");
    }
    std::printf("%d cases passed over %zu ops\n", total, coverage_.size());
  }
};

QTEST_GUILESS_MAIN(TestOps)
#include "test_ops.moc"
