// Numeric cases for every program-builder op, run on the host reference executor and compared with
// values PyTorch/NumPy computed (tests/data/op_cases.json, made by tests/data/gen_op_cases.py).
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/devices/host_executor.h"
#include "engine/program/builder.h"

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
    std::vector<Value> ins;
    std::vector<HostTensor> data;
    for (std::size_t i = 0; i < c["inputs"].size(); ++i) {
      data.push_back(tensorOf(c["inputs"][i]));
      ins.push_back(b.input("in" + std::to_string(i), data.back().dtype(), data.back().shape()));
    }
    std::vector<Value> outs;
    try {
      outs = it->second(b, ins, c["args"]);
    } catch (const Error& e) {
      QFAIL(("builder threw: " + std::string(e.what())).c_str());
    }
    std::vector<HostTensor> leaves(b.graph().leaves().size());
    for (std::size_t i = 0; i < ins.size(); ++i) leaves[b.program().inputs[i].leaf] = data[i];
    std::vector<ClassId> ids;
    for (const Value& v : outs) ids.push_back(v.id());
    std::vector<HostTensor> got;
    try {
      got = HostExecutor::run(b.graph(), ids, leaves);
    } catch (const Error& e) {
      QFAIL(("host executor threw: " + std::string(e.what())).c_str());
    }

    const json& expected = c["expected"];
    QCOMPARE(got.size(), expected.size());
    const int64_t k = c.value("k", int64_t{1});
    for (std::size_t o = 0; o < got.size(); ++o) {
      const HostTensor want = tensorOf(expected[o]);
      QCOMPARE(std::string(dtypeName(got[o].dtype())), std::string(dtypeName(want.dtype())));
      QCOMPARE(shapeStr(got[o].shape()), shapeStr(want.shape()));
      for (int64_t i = 0; i < want.numel(); ++i) {
        const bool ok = isFloat(want.dtype()) ? close(got[o].getDouble(i), want.getDouble(i), want.dtype(), k)
                                              : got[o].getInt(i) == want.getInt(i);
        if (!ok)
          QFAIL(("output " + std::to_string(o) + " element " + std::to_string(i) + ": got " + valueStr(got[o], i) +
                 ", expected " + valueStr(want, i))
                    .c_str());
      }
    }
    ++coverage_[opName][c["cls"].get<std::string>()];
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
