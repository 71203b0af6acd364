// Program metadata helpers: output classes, parameter initializers, leaf binding.
#include "engine/program/program.h"

#include <sstream>

#include "engine/program/random.h"

namespace ks {

std::string ParamInit::str() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::Zeros: return "zeros";
    case Kind::Ones: return "ones";
    case Kind::Full: os << "full(" << a << ")"; break;
    case Kind::Arange: os << "arange(start=" << a << ", step=" << b << ")"; break;
    case Kind::Uniform: os << "uniform(" << a << ", " << b << ", seed=" << seed << ")"; break;
    case Kind::Normal: os << "normal(mean=" << a << ", std=" << b << ", seed=" << seed << ")"; break;
    case Kind::Data: return "data";
  }
  return os.str();
}

std::vector<ClassId> Program::outputClasses() const {
  std::vector<ClassId> r;
  for (auto& o : outputs) r.push_back(o.cls.valid() ? graph.find(o.cls) : o.cls);  // canonical after merges
  return r;
}

std::vector<ClassId> Program::resultClasses() const {
  std::vector<ClassId> r = outputClasses();
  for (auto& u : updates) r.push_back(u.value);
  return r;
}

HostTensor Program::paramValue(std::size_t i) const {
  const ProgramParam& p = params.at(i);
  const LeafInfo& leaf = graph.leaf(p.leaf);
  if (p.init.kind == ParamInit::Kind::Data) return p.init.data->castTo(leaf.dtype);
  HostTensor t(leaf.dtype, leaf.shape);
  const int64_t n = t.numel();
  Random rng(p.init.seed);
  for (int64_t k = 0; k < n; ++k) {
    double v = 0.0;
    switch (p.init.kind) {
      case ParamInit::Kind::Zeros: v = 0.0; break;
      case ParamInit::Kind::Ones: v = 1.0; break;
      case ParamInit::Kind::Full: v = p.init.a; break;
      case ParamInit::Kind::Arange: v = p.init.a + p.init.b * static_cast<double>(k); break;
      case ParamInit::Kind::Uniform: v = rng.uniform(p.init.a, p.init.b); break;
      case ParamInit::Kind::Normal: v = rng.normal(p.init.a, p.init.b); break;
      case ParamInit::Kind::Data: break;
    }
    t.setDouble(k, v);
  }
  return t;
}

namespace {
// Runs `make`; a tensor it cannot allocate is named (`what`: "input 'x'").
template <class F> HostTensor named(const std::string& what, F make) {
  try {
    return make();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Allocation) throw;
    throw Error(ErrorCode::Allocation, what + ": " + e.message(), e.where(), e.op());
  }
}
}  // namespace

std::vector<HostTensor> bindLeaves(const Program& p, const std::vector<std::pair<std::string, HostTensor>>& given,
                                   uint64_t seed) {
  std::vector<HostTensor> leaves(p.graph.leaves().size());
  for (std::size_t i = 0; i < p.graph.leaves().size(); ++i) {
    const LeafInfo& l = p.graph.leaves()[i];
    if (l.kind == LeafKind::Constant) leaves[i] = *l.data;
  }
  for (std::size_t i = 0; i < p.params.size(); ++i)
    leaves[p.params[i].leaf] = named("param '" + p.params[i].name + "'", [&] { return p.paramValue(i); });
  bindInputs(p, given, seed, leaves);
  return leaves;
}

void bindInputs(const Program& p, const std::vector<std::pair<std::string, HostTensor>>& given, uint64_t seed,
                std::vector<HostTensor>& leaves) {
  leaves.resize(p.graph.leaves().size());
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const ProgramInput& in = p.inputs[k];
    const LeafInfo& l = p.graph.leaf(in.leaf);
    bool found = false;
    for (auto& [name, t] : given) {
      if (name != in.name) continue;
      if (t.shape() != l.shape)
        throw Error(ErrorCode::Shape, "input '" + name + "' has shape " + shapeStr(t.shape()) + ", expected " + shapeStr(l.shape));
      leaves[in.leaf] = t.castTo(l.dtype);
      found = true;
    }
    if (found) continue;
    HostTensor t = named("input '" + in.name + "'", [&] { return HostTensor(l.dtype, l.shape); });
    Random rng(seed * 1000003ull + k);
    for (int64_t e = 0; e < t.numel(); ++e) {
      if (isFloat(l.dtype)) t.setDouble(e, rng.uniform(-1.0, 1.0));
      else if (l.dtype == DType::Bool) t.setInt(e, rng.next() >> 63);
      else t.setInt(e, static_cast<int64_t>(rng.next() % 10));
    }
    leaves[in.leaf] = std::move(t);
  }
  for (auto& [name, t] : given) {
    bool known = false;
    for (auto& in : p.inputs) known = known || in.name == name;
    if (!known) throw Error(ErrorCode::Usage, "the program has no input named '" + name + "'");
  }
}

}  // namespace ks
