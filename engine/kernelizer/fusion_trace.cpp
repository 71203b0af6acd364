// Replay, explanation and JSON form of the kernelizer's fusion trace.
#include "engine/kernelizer/fusion_trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/json_read.h"

namespace ks {

namespace {
// 2: kernels that only grew are written as what they gained ("grown"); 1 has whole states only.
constexpr int kTraceVersion = 2;

constexpr std::string_view kActionNames[kNumFusionActions] = {
    "begin region", "new load kernel", "new kernel", "append op", "merge",
    "store class", "duplicate chain", "split", "remove kernel",
};

bool has(const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<uint32_t> ids(const std::vector<ClassId>& v) {
  std::vector<uint32_t> r;
  r.reserve(v.size());
  for (ClassId c : v) r.push_back(c.v);
  return r;
}

// Kernel of `s` whose computed classes hold both a and b, or -1.
int32_t kernelHoldingBoth(const TraceState& s, uint32_t a, uint32_t b) {
  for (const auto& [id, k] : s)
    if (has(k.classes, a) && has(k.classes, b)) return id;
  return -1;
}

int32_t kernelHolding(const TraceState& s, uint32_t a) {
  for (const auto& [id, k] : s)
    if (has(k.classes, a)) return id;
  return -1;
}

std::string stepStr(const FusionStep& st) {
  return "step " + std::to_string(st.index) + " (" + std::string(fusionActionName(st.action)) + ", rule " + st.rule +
         "): " + st.reason;
}

using nlohmann::json;

json stateJson(const KernelState& k) {
  return json{{"classes", k.classes}, {"loads", k.loads}, {"stores", k.stores}, {"ops", k.opCount}};
}
KernelState stateFrom(const json& j) {
  KernelState k;
  k.classes = jsonGet<std::vector<uint32_t>>(j, "classes");
  k.loads = jsonGet<std::vector<uint32_t>>(j, "loads");
  k.stores = jsonGet<std::vector<uint32_t>>(j, "stores");
  k.opCount = jsonGet<int32_t>(j, "ops");
  return k;
}
bool startsWith(const std::vector<uint32_t>& v, const std::vector<uint32_t>& prefix) {
  return prefix.size() <= v.size() && std::equal(prefix.begin(), prefix.end(), v.begin());
}
// `v` without its first `n` elements.
std::vector<uint32_t> after(const std::vector<uint32_t>& v, std::size_t n) { return {v.begin() + static_cast<std::ptrdiff_t>(n), v.end()}; }
void append(std::vector<uint32_t>& v, const std::vector<uint32_t>& more) { v.insert(v.end(), more.begin(), more.end()); }

// A step's diff as written: a kernel that only grew (each of its lists extended, the usual append
// of an op) by what it gained over `before`, its state before the step ("grown"), any other by its
// whole state ("set"). A chain of appends then costs each class once, not once per later step.
json diffJson(const StepDiff& d, const TraceState& before) {
  json set = json::array(), grown = json::array();
  for (const auto& [id, k] : d.set) {
    const auto old = before.find(id);
    const bool grew = old != before.end() && startsWith(k.classes, old->second.classes) && startsWith(k.loads, old->second.loads) &&
                      startsWith(k.stores, old->second.stores);
    json e = grew ? stateJson({after(k.classes, old->second.classes.size()), after(k.loads, old->second.loads.size()),
                               after(k.stores, old->second.stores.size()), k.opCount})
                  : stateJson(k);
    e["id"] = id;
    (grew ? grown : set).push_back(std::move(e));
  }
  json j{{"set", std::move(set)}, {"removed", d.removed}};
  if (!grown.empty()) j["grown"] = std::move(grown);
  return j;
}

FusionStep stepFrom(const json& s, const TraceState& before) {
  FusionStep st;
  st.index = jsonGet<int32_t>(s, "index");
  st.cls = jsonGet<uint32_t>(s, "class");
  st.node = jsonGet<std::string>(s, "node");
  st.subject = jsonGet<uint32_t>(s, "subject", UINT32_MAX);
  const std::string action = jsonGet<std::string>(s, "action");
  const auto a = parseFusionAction(action);
  if (!a) {
    JsonPath at("action");
    throw Error(ErrorCode::Parse, "unknown fusion action '" + action + "'");
  }
  st.action = *a;
  st.rule = jsonGet<std::string>(s, "rule");
  st.reason = jsonGet<std::string>(s, "reason");
  st.kernels = jsonGet<std::vector<int32_t>>(s, "kernels");
  st.phase = jsonGet<std::string>(s, "phase");
  JsonPath diff("diff");
  const json& d = s.at("diff");
  jsonEach(d, "set", [&](const json& e) { st.diff.set[jsonGet<int32_t>(e, "id")] = stateFrom(e); });
  if (d.contains("grown")) jsonEach(d, "grown", [&](const json& e) {
    const int32_t id = jsonGet<int32_t>(e, "id");
    const auto old = before.find(id);
    if (old == before.end()) {
      JsonPath at("id");
      throw Error(ErrorCode::Parse, "expected a kernel an earlier step set, found K" + std::to_string(id));
    }
    const KernelState more = stateFrom(e);
    KernelState k = old->second;
    append(k.classes, more.classes);
    append(k.loads, more.loads);
    append(k.stores, more.stores);
    k.opCount = more.opCount;
    st.diff.set[id] = std::move(k);
  });
  st.diff.removed = jsonGet<std::vector<int32_t>>(d, "removed");
  return st;
}
}  // namespace

std::string_view fusionActionName(FusionAction a) { return kActionNames[static_cast<int>(a)]; }

std::optional<FusionAction> parseFusionAction(std::string_view s) {
  for (int i = 0; i < kNumFusionActions; ++i)
    if (kActionNames[i] == s) return static_cast<FusionAction>(i);
  return std::nullopt;
}

KernelState kernelStateOf(const FusedKernel& k) {
  return {ids(k.classes), ids(k.loads), ids(k.stores), static_cast<int32_t>(k.kernel.size())};
}

TraceState traceStateOf(const std::vector<FusedKernel>& kernels) {
  TraceState s;
  for (const FusedKernel& k : kernels) s[k.id] = kernelStateOf(k);
  return s;
}

void StepDiff::applyTo(TraceState& s) const {
  for (int32_t id : removed) s.erase(id);
  for (const auto& [id, k] : set) s[id] = k;
}

TraceState FusionTrace::stateAfter(std::size_t n) const {
  TraceState s;
  for (std::size_t i = 0; i < n && i < steps.size(); ++i) steps[i].diff.applyTo(s);
  return s;
}

namespace {
// Classes on a data path from `from` to `to` (both included), following structural operands.
std::vector<uint32_t> pathClasses(const Graph& g, ClassId from, ClassId to) {
  std::vector<int8_t> reaches(g.classCount(), -1);  // -1 unknown, 0 no, 1 yes
  std::vector<uint32_t> onPath;
  std::vector<std::pair<ClassId, std::size_t>> stack{{to, 0}};
  std::vector<bool> entered(g.classCount(), false);
  entered[to.v] = true;
  while (!stack.empty()) {
    auto& [c, next] = stack.back();
    const std::vector<ClassId>& in = g.structural(c).in;
    if (c == from) {
      reaches[c.v] = 1;
      onPath.push_back(c.v);
      stack.pop_back();
      continue;
    }
    if (next < in.size()) {
      const ClassId d = in[next++];
      if (!entered[d.v]) {
        entered[d.v] = true;
        stack.push_back({d, 0});
      }
      continue;
    }
    bool r = false;
    for (ClassId d : in) r = r || reaches[d.v] == 1;
    reaches[c.v] = r ? 1 : 0;
    if (r) onPath.push_back(c.v);
    stack.pop_back();
  }
  return onPath;
}
}  // namespace

Separation FusionTrace::explainSeparation(ClassId ca, ClassId cb, const Graph* g) const {
  const uint32_t a = ca.v, b = cb.v;
  Separation r;
  const std::string na = "%" + std::to_string(a), nb = "%" + std::to_string(b);
  if (a == b) {
    r.sameKernel = true;
    r.text = "it is the same class";
    return r;
  }
  TraceState s;
  bool together = false;
  int32_t splitAt = -1, splitKernel = -1, lastTogetherKernel = -1, joinedAt = -1;
  int32_t firstA = -1, firstB = -1;
  for (const FusionStep& st : steps) {
    st.diff.applyTo(s);
    const int32_t k = kernelHoldingBoth(s, a, b);
    if (k >= 0) {
      if (!together) joinedAt = st.index;
      together = true;
      lastTogetherKernel = k;
      splitAt = -1;
    } else if (together) {
      together = false;
      splitAt = st.index;
      splitKernel = lastTogetherKernel;
    }
    if (firstA < 0 && kernelHolding(s, a) >= 0) firstA = st.index;
    if (firstB < 0 && kernelHolding(s, b) >= 0) firstB = st.index;
  }
  if (const int32_t k = kernelHoldingBoth(s, a, b); k >= 0) {
    r.sameKernel = true;
    r.text = na + " and " + nb + " are computed in the same kernel K" + std::to_string(k);
    // Joined by a merge (operands, a reduce kernel, a row normalization): that step is the answer.
    if (joinedAt >= 0 && steps[joinedAt].action == FusionAction::Merge) {
      r.step = joinedAt;
      r.rule = steps[joinedAt].rule;
      r.text += ", since step " + std::to_string(joinedAt) + ": " + steps[joinedAt].reason;
    }
    return r;
  }
  if (splitAt >= 0) {
    const FusionStep& st = steps[splitAt];
    r.step = splitAt;
    r.rule = st.rule;
    r.text = na + " and " + nb + " were computed together in kernel K" + std::to_string(splitKernel) +
             " until " + stepStr(st);
    return r;
  }
  // Never together and one feeds the other: the first store on the data path between them.
  if (g && ca.v < g->classCount() && cb.v < g->classCount()) {
    for (auto [from, to] : {std::pair{ca, cb}, std::pair{cb, ca}}) {
      const std::vector<uint32_t> path = pathClasses(*g, from, to);
      if (path.empty()) continue;
      for (const FusionStep& st : steps) {
        const bool cut = st.action == FusionAction::StoreClass ||
                         ((st.action == FusionAction::NewLoadKernel || st.action == FusionAction::Split) &&
                          st.rule != "reload-stored" && st.rule != "leaf" && st.rule != "region-input");
        if (!cut || !has(path, st.subject) || st.subject == to.v) continue;
        r.step = st.index;
        r.rule = st.rule;
        r.text = "%" + std::to_string(st.subject) + " lies on the data path from %" + std::to_string(from.v) + " to %" +
                 std::to_string(to.v) + " and was " + (st.action == FusionAction::StoreClass ? "stored" : "given a fresh loader") + " at " + stepStr(st) +
                 "; the consumers after it load it";
        return r;
      }
    }
  }
  // Never together: name the class that is not computed anywhere, or the step that created the
  // kernel the later of the two was placed in.
  for (auto [c, first] : {std::pair{a, firstA}, std::pair{b, firstB}}) {
    if (first >= 0) continue;
    bool loaded = false;
    for (const auto& [id, k] : s) loaded = loaded || has(k.loads, c);
    r.text = "%" + std::to_string(c) +
             (loaded ? " is not computed by a fused kernel: it is a kernel input (leaf, region input or AOT "
                       "kernel output) that kernels load"
                     : " is not computed by a fused kernel (a replayed constant, or not on an output path)");
    return r;
  }
  // The step that created the kernel each class was placed in; a kernel made by a decision
  // (duplicate, split, store and reload) explains more than a plain loader of an input.
  const bool bLater = firstB >= firstA;
  const std::pair<uint32_t, int32_t> order[2] = {bLater ? std::pair{b, firstB} : std::pair{a, firstA},
                                                 bLater ? std::pair{a, firstA} : std::pair{b, firstB}};
  const FusionStep* fallback = nullptr;
  uint32_t fallbackClass = 0;
  int32_t fallbackKernel = -1;
  for (const auto& [c, placed] : order) {
    const int32_t k = kernelHolding(stateAfter(static_cast<std::size_t>(placed) + 1), c);
    const FusionStep* creator = nullptr;
    for (const FusionStep& st : steps) {
      if (st.index > placed) break;
      if (st.diff.set.count(k)) {
        creator = &st;
        break;
      }
    }
    if (!creator) continue;
    if (creator->rule == "reload-stored" && creator->index > 0 && steps[creator->index - 1].action == FusionAction::StoreClass)
      creator = &steps[creator->index - 1];
    const bool decision = creator->action == FusionAction::DuplicateChain || creator->action == FusionAction::Split ||
                          creator->action == FusionAction::StoreClass || creator->action == FusionAction::NewKernel;
    if (!fallback || decision) {
      fallback = creator;
      fallbackClass = c;
      fallbackKernel = k;
    }
    if (decision) break;
  }
  if (fallback) {
    r.step = fallback->index;
    r.rule = fallback->rule;
    r.text = "%" + std::to_string(fallbackClass) + " is computed in kernel K" + std::to_string(fallbackKernel) +
             ", which comes from " + stepStr(*fallback);
    return r;
  }
  r.text = na + " and " + nb + " were never in one kernel";
  return r;
}

std::string FusionTrace::toJson(int indent) const {
  json steps_ = json::array();
  TraceState state;  // before the step being written
  for (const FusionStep& st : steps) {
    json diff = diffJson(st.diff, state);
    st.diff.applyTo(state);
    steps_.push_back(json{{"index", st.index},
                          {"class", st.cls},
                          {"node", st.node},
                          {"subject", st.subject},
                          {"action", std::string(fusionActionName(st.action))},
                          {"rule", st.rule},
                          {"reason", st.reason},
                          {"kernels", st.kernels},
                          {"phase", st.phase},
                          {"diff", std::move(diff)}});
  }
  json j{{"format", "kernelscope-fusion-trace"}, {"version", kTraceVersion}, {"steps", std::move(steps_)}};
  if (!error.empty()) j["error"] = json{{"message", error}, {"step", errorStep}};
  return j.dump(indent);
}

FusionTrace FusionTrace::fromJson(const std::string& text) {
  const bool outermost = JsonPath::current().empty();
  try {
    const json j = parseJson(text);
    if (!j.is_object() || j.value("format", "") != "kernelscope-fusion-trace")
      throw Error(ErrorCode::Parse, "not a fusion trace (format field missing or different)");
    const int version = jsonGet<int>(j, "version", 1);
    if (version < 1 || version > kTraceVersion) {
      JsonPath at("version");
      throw Error(ErrorCode::Parse, "fusion trace version " + std::to_string(version) + " is not supported (1 or 2)");
    }
    FusionTrace t;
    TraceState state;  // before the step being read
    jsonEach(j, "steps", [&](const json& s) {
      t.steps.push_back(stepFrom(s, state));
      t.steps.back().diff.applyTo(state);
    });
    if (j.contains("error")) {
      JsonPath at("error");
      t.error = jsonGet<std::string>(j["error"], "message");
      t.errorStep = jsonGet<int32_t>(j["error"], "step");
    }
    return t;
  } catch (const json::exception& e) {
    throw Error(ErrorCode::Parse, readErrorText(e.what(), outermost));
  } catch (const Error& e) {
    throw Error(ErrorCode::Parse, readErrorText(e.message(), outermost));
  }
}

std::string traceStateStr(const TraceState& s) {
  std::ostringstream os;
  auto list = [&os](const char* name, const std::vector<uint32_t>& v) {
    os << " " << name << " [";
    for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
  };
  for (const auto& [id, k] : s) {
    os << "K" << id << " {";
    list("classes", k.classes);
    list("loads", k.loads);
    list("stores", k.stores);
    os << " ops " << k.opCount << "}\n";
  }
  return os.str();
}

}  // namespace ks
