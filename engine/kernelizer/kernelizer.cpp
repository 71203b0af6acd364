// The kernelizer (seed 000): fill_gaps over regions between AOT kernels, then eager greedy fusion
// of each region with reference counts, one output slot per remaining consumer and a recorded
// FusionStep for every decision.
#include "engine/kernelizer/kernelizer.h"

#include <unordered_set>

#include <algorithm>
#include <numeric>

#include "engine/kernel/schedule.h"
#include "engine/kernelizer/gap_filler.h"

namespace ks {

namespace {
// The most ops one fused kernel takes before its value is stored (a bound on each step's cost, and
// on the size of the OpenCL C a device compiler gets).
constexpr std::size_t kMaxKernelOps = 512;
// How many times the class invariants are checked over a region larger than this many classes.
constexpr std::size_t kClassChecks = 256;

bool contains(const std::vector<ClassId>& v, ClassId c) { return std::find(v.begin(), v.end(), c) != v.end(); }

// Removes one slot of `c` from an output list (a multiset: one slot per remaining consumer). The
// newest slot goes: a class read by every term of a chain holds a slot per term at the front of
// the list, and erasing from there would move the whole list once per term.
bool removeOne(std::vector<ClassId>& v, ClassId c) {
  auto it = std::find(v.rbegin(), v.rend(), c);
  if (it == v.rend()) return false;
  v.erase(std::next(it).base());
  return true;
}

std::string kname(int32_t kid) { return "K" + std::to_string(kid); }

MoveKind moveKindOf(NodeKind k) {
  switch (k) {
    case NodeKind::Expand: return MoveKind::Expand;
    case NodeKind::Permute: return MoveKind::Permute;
    case NodeKind::Reshape: return MoveKind::Reshape;
    case NodeKind::Pad: return MoveKind::Pad;
    case NodeKind::Narrow: return MoveKind::Narrow;
    default: return MoveKind::Flip;
  }
}
}  // namespace

KernelizeResult kernelize(const Graph& g, const std::vector<ClassId>& outputs) { return Kernelizer(g).run(outputs); }

// ------------------------------------------------------------------------------------ driver

KernelizeResult Kernelizer::run(const std::vector<ClassId>& requested) {
  KernelizeResult r;
  try {
    // Outputs are a set (a class requested under two names is stored once).
    std::vector<ClassId> outputs;
    for (ClassId c : requested) {
      if (!c.valid() || c.v >= g_.classCount())
        throw Error(ErrorCode::Usage, "kernelizer: output class %" + std::to_string(c.v) + " is not in the graph");
      if (!contains(outputs, c)) outputs.push_back(c);
    }
    // AOT kernels reachable from the outputs, grouped by the device they run on.
    std::vector<ClassId> aot;
    std::map<uint32_t, std::vector<ClassId>> byDevice;
    for (ClassId c : g_.topoOrder(outputs, true)) {
      bool found = false;
      for (NodeId n : g_.eclass(c).nodes)
        if (g_.node(n).kind == NodeKind::Kernel) {
          if (!found) aot.push_back(c);
          if (!found || !contains(byDevice[g_.node(n).device], c)) byDevice[g_.node(n).device].push_back(c);
          found = true;
        }
    }
    fillGaps(aot, outputs, "pass 1");
    // Pass 2 gives single-device alternatives; with one device it would repeat pass 1 exactly.
    if (byDevice.size() > 1)
      for (const auto& [device, classes] : byDevice) fillGaps(classes, outputs, "pass 2, device " + std::to_string(device));
    checkLoadsProduced();
  } catch (const Error& e) {
    r.error = e;
  } catch (const std::exception& e) {
    r.error = Error(ErrorCode::Internal, std::string("kernelizer: ") + e.what());
  }
  if (r.error) {
    trace_.error = r.error->what();
    trace_.errorStep = static_cast<int32_t>(trace_.steps.size());
    // Keep the trace and the returned kernels consistent: flush changes not yet recorded.
    if (!dirty_.empty()) record(FusionAction::RemoveKernel, {"error", "state when the kernelizer stopped"}, {});
  }
  for (const auto& [id, w] : kernels_) {
    FusedKernel f;
    f.id = id;
    f.kernel = w.k;
    f.loads = w.loads;
    f.stores = w.stores;
    f.phase = w.phase;
    for (ClassId c : w.opClass)
      if (c.valid() && !contains(f.classes, c)) f.classes.push_back(c);
    r.kernels.push_back(std::move(f));
  }
  r.trace = std::move(trace_);
  return r;
}

void Kernelizer::fillGaps(const std::vector<ClassId>& activeAot, const std::vector<ClassId>& outputs,
                          const std::string& pass) {
  const std::vector<GapRegion> regions = findGapRegions(g_, activeAot, outputs);
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const GapRegion& region = regions[i];
    phase_ = pass + ", region " + std::to_string(i + 1);
    cur_ = region.outputs.front();
    curLabel_ = "region";
    std::string what = std::to_string(region.classes.size()) + " classes, inputs [";
    for (std::size_t k = 0; k < region.inputs.size(); ++k) what += (k ? ", " : "") + cls(region.inputs[k]);
    what += "], outputs [";
    for (std::size_t k = 0; k < region.outputs.size(); ++k) what += (k ? ", " : "") + cls(region.outputs[k]);
    record(FusionAction::BeginRegion, {"fill-gaps", what + "]"}, {});
    std::unordered_set<ClassId> inputs(region.inputs.begin(), region.inputs.end());
    std::unordered_set<ClassId> allowed(region.allowed.begin(), region.allowed.end());
    kernelizeRegion(inputs, region.outputs, allowed);
  }
}

void Kernelizer::kernelizeRegion(const std::unordered_set<ClassId>& inputs, const std::vector<ClassId>& outputs,
                                 const std::unordered_set<ClassId>& allowed) {
  inputs_ = &inputs;
  outputSet_ = std::unordered_set<ClassId>(outputs.begin(), outputs.end());
  rcs_.clear();
  visited_.clear();
  replayable_.clear();
  processed_.clear();
  for (ClassId c : outputs)
    if (inputs.count(c)) fail("inputs are not outputs", cls(c) + " is both a region input and a region output");

  const std::vector<ClassId> order = g_.topoOrder(outputs, false, &inputs, &allowed);
  // Reference counts: one per operand use (a class used twice by one node counts twice), plus
  // one per requested output. Boundary inputs do not count their own operands.
  for (ClassId c : order) {
    rcs_.emplace(c, 0);
    if (inputs.count(c)) continue;
    for (ClassId p : g_.structural(c).in) ++rcs_[p];
  }
  for (ClassId c : outputs) ++rcs_[c];

  for (ClassId c : order) {
    cur_ = c;
    curLabel_ = g_.structural(c).label();
    processClass(c);
    storeIfAot(c);
    storeIfOutput(c);
    processed_.push_back(c);
    checkInvariants();
  }
  checkRegionEnd();
  fuseRowNormalizations();
  checkInvariants();
}

void Kernelizer::fuseRowNormalizations() {
  curLabel_ = "row normalization";
  for (bool changed = true; changed;) {
    changed = false;
    // Counts taken once per round: a merge only lowers them (shared loads), so a stale count can
    // only postpone a merge to the next round.
    std::unordered_map<ClassId, int> loaders;
    std::unordered_map<ClassId, int32_t> producer;
    std::vector<int32_t> ids;
    for (const auto& [kid, w] : kernels_) {
      ids.push_back(kid);
      for (ClassId l : w.loads) ++loaders[l];
      if (w.phase == phase_ && w.stores.size() == 1 && w.k.isReduce()) producer[w.stores[0]] = kid;
    }
    for (int32_t qid : ids) {
      if (!kernels_.count(qid) || get(qid).phase != phase_) continue;
      const std::vector<ClassId> loads = get(qid).loads;
      for (ClassId c : loads) {
        auto p = producer.find(c);
        if (p == producer.end() || p->second == qid || !kernels_.count(p->second) || loaders[c] != 1 || outputSet_.count(c))
          continue;
        if (inlineProducer(p->second, qid, c)) {
          producer.erase(p);
          changed = true;
          break;
        }
      }
    }
  }
}

// The consumer with the producer's ops in front and its load of `c` replaced by the value the
// producer stored; loads of one class are shared, and so are the ops both computed.
bool Kernelizer::inlineProducer(int32_t producer, int32_t consumer, ClassId c) {
  const Work& p = get(producer);
  const Work& q = get(consumer);
  Work m;
  m.phase = q.phase;
  m.stores = q.stores;
  std::map<uint32_t, int32_t> paramOf;  // class -> Read param in m
  int32_t stored = -1;                  // the producer's stored value in m
  auto copy = [&](const Work& w, bool isProducer) {
    std::vector<int32_t> map(w.k.size(), -1);
    std::size_t read = 0;
    for (std::size_t i = 0; i < w.k.size(); ++i) {
      const KOp& o = w.k.ops[i];
      if (o.kind == KOpKind::Param && o.paramKind() == ParamKind::Read) {
        const ClassId l = w.loads.at(read++);
        if (!isProducer && l == c) {
          map[i] = stored;
        } else if (auto it = paramOf.find(l.v); it != paramOf.end()) {
          map[i] = it->second;
        } else {
          map[i] = paramOf[l.v] = m.k.push(o);
          m.loads.push_back(l);
          m.opClass.push_back(ClassId{});
        }
        continue;
      }
      if (isProducer && o.kind == KOpKind::Store) {
        stored = map[o.src[1]];
        continue;
      }
      if (isProducer && o.kind == KOpKind::Param) continue;  // the producer's ReadWrite param
      KOp n = o;
      for (int32_t& src : n.src) src = map[src];
      map[i] = m.k.push(std::move(n));
      m.opClass.push_back(w.opClass[i]);
    }
  };
  copy(p, true);
  copy(q, false);
  const std::vector<int32_t> shared = m.k.shareCommonOps();
  std::vector<ClassId> opClass(m.k.size());
  for (std::size_t i = 0; i < shared.size(); ++i)
    if (!opClass[shared[i]].valid()) opClass[shared[i]] = m.opClass[i];
  m.opClass = std::move(opClass);
  if (!verifyKernel(m.k).empty() || !rowSchedule(m.k, DeviceLimits{})) return false;
  const std::string pn = kname(producer), qn = kname(consumer);
  removeKernel(producer);
  mut(consumer) = std::move(m);
  record(FusionAction::Merge,
         {"row-normalization", pn + " reduces along the rows " + qn + " broadcasts " + cls(c) +
                                   " back over: one kernel per row computes the reduce and the elementwise work, the "
                                   "row kept in registers (" + cls(c) + " is no longer stored)"},
         {producer, consumer}, c);
  return true;
}

void Kernelizer::processClass(ClassId c) {
  const Node& n = g_.structural(c);
  const uint32_t rc = rcs_.at(c);
  if (inputs_->count(c)) {
    visited_[c] = newLoadKernel(c, rc, FusionAction::NewLoadKernel,
                                n.kind == NodeKind::Leaf
                                    ? Why{"leaf", "a graph input is loaded from memory"}
                                    : Why{"region-input", "an AOT kernel output (a region boundary) is loaded, never fused into"});
    return;
  }
  switch (n.kind) {
    case NodeKind::Leaf:
      visited_[c] = newLoadKernel(c, rc, FusionAction::NewLoadKernel, {"leaf", "a graph input is loaded from memory"});
      return;
    case NodeKind::Const: return;  // replayed into each consumer
    case NodeKind::Unary:
    case NodeKind::Cast:
    case NodeKind::Bitcast:
    case NodeKind::Binary:
    case NodeKind::Where: elementwise(c, n); return;
    case NodeKind::Reduce: reduce(c, n); return;
    case NodeKind::Expand:
    case NodeKind::Permute:
    case NodeKind::Reshape:
    case NodeKind::Pad:
    case NodeKind::Narrow:
    case NodeKind::Flip: addMove(c, n); return;
    case NodeKind::Contiguous: contiguous(c, n); return;
    case NodeKind::ToDevice: toDevice(c, n); return;
    case NodeKind::Kernel: fail("structural node", cls(c) + " has a Kernel node as its structural node");
  }
}

// AOT kernel classes are computed by their backend kernel: materialize the class so downstream
// ops start from the stored value instead of fusing into its structural form.
void Kernelizer::storeIfAot(ClassId c) {
  if (inputs_->count(c) || !hasKernelNode(c) || !visited_.count(c)) return;
  (void)addStore(c, visited_.at(c), {"aot-class-stored", "the class has an AOT kernel: its value is stored"});
}

void Kernelizer::storeIfOutput(ClassId c) {
  if (!outputSet_.count(c)) return;
  if (!visited_.count(c)) {
    // A constant requested as an output: give it a grid so it can be stored. From now on it is a
    // materialized value for its remaining consumers too.
    const int32_t kid = newKernel();
    const int32_t op = replay(kid, c);
    label(mut(kid), c);
    mut(kid).opClass[op] = c;
    pushOutputs(kid, c, rcs_.at(c));
    visited_[c] = {kid, op};
    replayable_[c] = false;
    record(FusionAction::NewKernel, {"replay-output", "a constant requested as output gets a kernel to be stored"}, {kid});
  }
  Slot s = visited_.at(c);
  // AOT classes are already in memory: storing their load kernel would copy a buffer onto itself.
  if (!hasKernelNode(c)) s = addStore(c, s, {"requested-output", "requested outputs are stored"});
  --rcs_.at(c);
  removeOne(mut(s.kid).outputs, c);
  if (rcs_.at(c) == 0) visited_.erase(c);
  const Work& w = get(s.kid);
  if (w.outputs.empty() && w.stores.empty()) {
    removeKernel(s.kid);
    record(FusionAction::RemoveKernel, {"unused-loader", "the load kernel has no consumer left"}, {s.kid});
  }
}

// ------------------------------------------------------------------------------------ arms

void Kernelizer::elementwise(ClassId c, const Node& n) {
  std::vector<ClassId> tensors;  // materialized operands, distinct, in operand order
  for (ClassId x : n.in)
    if (!isReplayable(x) && !contains(tensors, x)) tensors.push_back(x);
  if (tensors.empty()) {  // an expression of constants: replayed on demand
    for (ClassId x : n.in) --rcs_.at(x);
    return;
  }
  // A kernel stops growing at kMaxKernelOps: the operand is stored and the chain goes on in a
  // new kernel. Each step then costs at most a kernel's size, so a long chain fuses in linear time.
  for (ClassId x : tensors) {
    const Slot s = visited_.at(x);
    if (get(s.kid).k.size() >= kMaxKernelOps)
      (void)addStore(x, s, {"kernel-size-limit", kname(s.kid) + " holds " + std::to_string(get(s.kid).k.size()) +
                                                     " ops, the most one kernel takes: " + cls(x) + " is stored and the chain goes on"});
  }
  auto kernelsOf = [&] {
    std::vector<int32_t> ks;
    for (ClassId x : tensors)
      if (std::find(ks.begin(), ks.end(), visited_.at(x).kid) == ks.end()) ks.push_back(visited_.at(x).kid);
    return ks;
  };
  if (kernelsOf().size() > 1) {
    // A kernel with stores cannot take in more work: store such an operand and reload it.
    for (ClassId x : tensors) {
      const Slot s = visited_.at(x);
      if (get(s.kid).k.containsStores())
        (void)addStore(x, s, {"kernel-has-stores", "the operands live in different kernels and " + kname(s.kid) +
                                                       " already has stores: " + cls(x) + " is stored so they can merge"});
    }
    const std::vector<int32_t> ks = kernelsOf();
    // The reduce kernel is the merge destination: its grid is the smaller one, so pulling
    // elementwise work into it is safe, while the reverse would corrupt its grid.
    int32_t dst = ks.front();
    for (int32_t k : ks)
      if (get(k).k.isReduce()) {
        dst = k;
        break;
      }
    const bool intoReduce = get(dst).k.isReduce();
    for (int32_t k : ks)
      if (k != dst)
        mergeKernels(k, dst,
                     intoReduce ? Why{"merge-into-reduce", "operands in different kernels merge; the reduce kernel " +
                                                               kname(dst) + " is the destination"}
                                : Why{"merge-operands", "the operands of " + curLabel_ + " live in different kernels"});
  }
  const int32_t kid = visited_.at(tensors.front()).kid;
  std::vector<int32_t> args;
  for (ClassId x : n.in) args.push_back(isReplayable(x) ? replay(kid, x) : visited_.at(x).op);
  for (ClassId x : n.in) {
    if (isReplayable(x)) --rcs_.at(x);
    else consume(x, kid);
  }
  Work& w = mut(kid);
  int32_t op = -1;
  switch (n.kind) {
    case NodeKind::Unary: op = w.k.unary(args[0], n.unaryOp()); break;
    case NodeKind::Cast: op = w.k.cast(args[0], n.dtype); break;
    case NodeKind::Bitcast: op = w.k.bitcast(args[0], n.dtype); break;
    case NodeKind::Binary: op = w.k.binary(args[0], args[1], n.binaryOp()); break;
    default: op = w.k.where(args[0], args[1], args[2]); break;
  }
  label(w, ClassId{});
  w.opClass[op] = c;
  pushOutputs(kid, c, rcs_.at(c));
  visited_[c] = {kid, op};
  record(FusionAction::AppendOp, {"elementwise", "elementwise op appended to the kernel of its operands"}, {kid});
}

void Kernelizer::reduce(ClassId c, const Node& n) {
  const ClassId x = n.in[0];
  Slot s;
  if (isReplayable(x)) {
    s = freshReplayKernel(x);
  } else {
    s = visited_.at(x);
    // A reduce of a value a reduce computed in the same kernel would nest the loops: each output
    // of the outer reduce runs every inner reduction it covers, one after the other, so the
    // kernel's parallelism shrinks to the outer grid (ResNet's last convolution fused into its
    // global average pool: 512 work-items doing 49 x 4608 multiply-adds each, 10 ms on an H200
    // that needs ~10^5 items in flight). Storing the inner result costs one buffer and a launch.
    const bool nested = get(s.kid).k.isPrecededByReduce(s.op);
    s = duplicateOrStore(x, s, nested,
                         {"reduce-stores-reduced", cls(x) + " is computed by a reduce: it is stored before " + curLabel_ +
                                                       " reduces it, so no kernel nests one reduction inside another"});
    consume(x, s.kid);
  }
  Work& w = mut(s.kid);
  const int64_t rank = static_cast<int64_t>(g_.shape(x).size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(n.attr.begin(), n.attr.end(), i) == n.attr.end()) perm.push_back(i);
  perm.insert(perm.end(), n.attr.begin(), n.attr.end());
  int32_t op = s.op;
  std::vector<int64_t> identity(static_cast<std::size_t>(rank));
  std::iota(identity.begin(), identity.end(), 0);
  if (perm != identity) op = w.k.move(op, MoveKind::Permute, perm);
  for (std::size_t i = 0; i < n.attr.size(); ++i) op = w.k.reduce(op, n.reduceOp());
  label(w, c);
  pushOutputs(s.kid, c, rcs_.at(c));
  visited_[c] = {s.kid, op};
  record(FusionAction::AppendOp,
         {"reduce", "reduced axes are permuted last, then one trailing-axis reduce per axis"}, {s.kid});
}

void Kernelizer::addMove(ClassId c, const Node& n) {
  const ClassId x = n.in[0];
  Slot s;
  if (isReplayable(x)) {
    s = freshReplayKernel(x);
  } else {
    s = visited_.at(x);
    // The seed's fix: an expand of a computed value stores it first, so no kernel recomputes it
    // once per expanded element (zyx's own check looked for a lowered op and never fired).
    const bool expand = n.kind == NodeKind::Expand && get(s.kid).k.isPrecededByCompute(s.op);
    // A pad of a reduced value would make the reduce's kernel run over the padded grid: border
    // items that reduce nothing, and a movement after the reduce that rules out cooperative
    // schedules (a convolution's output padded for the next one: the next kernel pads on load).
    const bool pad = n.kind == NodeKind::Pad && get(s.kid).k.isPrecededByReduce(s.op);
    s = duplicateOrStore(x, s, expand || pad,
                         expand ? Why{"expand-stores-computed",
                                      "expand of a computed value: it is stored first, so no kernel recomputes it per expanded element"}
                                : Why{"pad-stores-reduced", "pad of a reduced value: it is stored first, so the reduce's kernel "
                                                            "runs over its own elements, not the padded border"});
    consume(x, s.kid);
  }
  Work& w = mut(s.kid);
  const int32_t op = w.k.move(s.op, moveKindOf(n.kind), n.attr, n.value);
  label(w, c);
  pushOutputs(s.kid, c, rcs_.at(c));
  visited_[c] = {s.kid, op};
  record(FusionAction::AppendOp, {"movement", "movement op appended to the single-output kernel of its operand"},
         {s.kid});
}

void Kernelizer::contiguous(ClassId c, const Node& n) {
  const ClassId x = n.in[0];
  Slot s;
  if (isReplayable(x)) {
    s = freshReplayKernel(x);
  } else {
    s = visited_.at(x);
    consume(x, s.kid);
  }
  // A same-dtype cast gives the class an op (and so a buffer) of its own.
  Work& w = mut(s.kid);
  const int32_t op = w.k.cast(s.op, g_.dtype(c));
  label(w, c);
  pushOutputs(s.kid, c, rcs_.at(c));
  visited_[c] = {s.kid, op};
  record(FusionAction::AppendOp, {"contiguous", "contiguous copies its operand into a buffer of its own"}, {s.kid});
  (void)addStore(c, {s.kid, op}, {"contiguous", "contiguous materializes its value"});
}

void Kernelizer::toDevice(ClassId c, const Node& n) {
  const ClassId x = n.in[0];
  if (isReplayable(x)) throw Error(ErrorCode::Unsupported, "kernelizer: a device copy of a constant", {}, n.label());
  const Slot s = visited_.at(x);
  consume(x, s.kid);
  // The copy itself is not a kernel: its source must be in memory, and consumers load the copy.
  const Slot st = addStore(x, s, {"device-copy-source", "the source of a device copy must be in memory"});
  if (kernels_.count(st.kid) && get(st.kid).outputs.empty() && get(st.kid).stores.empty()) {
    removeKernel(st.kid);
    record(FusionAction::RemoveKernel, {"unused-loader", "the load kernel has no consumer left"}, {st.kid});
  }
  visited_[c] = newLoadKernel(c, rcs_.at(c), FusionAction::NewLoadKernel,
                              {"device-copy", "the copied value is loaded from the target device's memory"});
}

// ------------------------------------------------------------------------------------ building blocks

Kernelizer::Slot Kernelizer::newLoadKernel(ClassId c, uint32_t rc, FusionAction action, const Why& why) {
  const int32_t kid = newKernel();
  Work& w = mut(kid);
  const int32_t op = w.k.param(ParamKind::Read, g_.dtype(c), g_.shape(c));
  label(w, ClassId{});
  w.loads = {c};
  w.outputs.assign(rc, c);
  record(action, why, {kid}, c);
  return {kid, op};
}

Kernelizer::Slot Kernelizer::freshReplayKernel(ClassId x) {
  --rcs_.at(x);
  const int32_t kid = newKernel();
  const int32_t op = replay(kid, x);
  record(FusionAction::NewKernel, {"replay-scalar", "the operand is a constant: a fresh kernel replays it"}, {kid});
  return {kid, op};
}

Kernelizer::Slot Kernelizer::addStore(ClassId c, Slot s, const Why& why) {
  const uint32_t rc = rcs_.count(c) ? rcs_.at(c) : 0;
  Work& w = mut(s.kid);
  if (contains(w.loads, c) && !w.k.containsStores()) {
    // The kernel only loads c: nothing to write. Point the remaining consumers at a fresh loader.
    w.outputs.erase(std::remove(w.outputs.begin(), w.outputs.end(), c), w.outputs.end());
    if (rc == 0) return s;
    const Slot fresh = newLoadKernel(c, rc, FusionAction::NewLoadKernel,
                                     {why.rule, why.reason + " (" + cls(c) + " is already in memory: fresh loader)"});
    visited_[c] = fresh;
    if (get(s.kid).outputs.empty()) {
      removeKernel(s.kid);
      record(FusionAction::RemoveKernel, {"unused-loader", "the old load kernel has no consumer left"}, {s.kid});
    }
    return fresh;
  }
  const bool alreadyInMemory = contains(w.loads, c);
  if (!alreadyInMemory) {
    const KOp& v = w.k.at(s.op);
    const int32_t p = w.k.param(ParamKind::ReadWrite, v.dtype, v.shape);
    w.k.store(p, s.op);
    label(w, ClassId{});
    w.stores.push_back(c);
    visited_.erase(c);
  }
  const auto copies = std::count(w.outputs.begin(), w.outputs.end(), c);
  if (static_cast<uint32_t>(copies) != rc)
    fail("output count", cls(c) + " has " + std::to_string(copies) + " output slots in " + kname(s.kid) +
                             " but reference count " + std::to_string(rc) + " when stored");
  w.outputs.erase(std::remove(w.outputs.begin(), w.outputs.end(), c), w.outputs.end());
  if (!alreadyInMemory) record(FusionAction::StoreClass, why, {s.kid}, c);
  if (rc == 0) return s;
  // A class the kernel only loads is in memory already: its consumers just get a fresh loader.
  const Slot fresh = newLoadKernel(
      c, rc, FusionAction::NewLoadKernel,
      alreadyInMemory ? Why{why.rule, why.reason + " (" + cls(c) + " is already in memory: fresh loader)"}
                      : Why{"reload-stored", "the remaining consumers of " + cls(c) + " load the stored value"});
  visited_[c] = fresh;
  return fresh;
}

void Kernelizer::mergeKernels(int32_t src, int32_t dst, const Why& why) {
  Work s = std::move(mut(src));
  removeKernel(src);
  Work& d = mut(dst);
  const std::vector<int32_t> map = d.k.append(s.k);
  d.opClass.insert(d.opClass.end(), s.opClass.begin(), s.opClass.end());
  d.loads.insert(d.loads.end(), s.loads.begin(), s.loads.end());
  d.stores.insert(d.stores.end(), s.stores.begin(), s.stores.end());
  d.outputs.insert(d.outputs.end(), s.outputs.begin(), s.outputs.end());
  for (auto& [c, slot] : visited_)
    if (slot.kid == src) slot = {dst, map.at(slot.op)};
  record(FusionAction::Merge, why, {src, dst});
}

// Movement and reduce need a kernel whose only output is the child: recompute the child's chain
// in a new kernel, or store it when a store is forced, the kernel already stores, or a reduce
// precedes it (recomputing a reduce per consumer would multiply its work).
Kernelizer::Slot Kernelizer::duplicateOrStore(ClassId child, Slot s, bool forceStore, const Why& forceWhy) {
  const Work& w = get(s.kid);
  const bool hasStores = w.k.containsStores();
  if (w.outputs.size() <= 1 && !forceStore && !hasStores) return s;
  if (forceStore || hasStores || w.k.isPrecededByReduce(s.op)) {
    const Why why = forceStore ? forceWhy
                    : hasStores
                        ? Why{"kernel-has-stores", kname(s.kid) + " already has stores: " + cls(child) +
                                                       " is stored before a movement/reduce takes it"}
                        : Why{"value-follows-reduce", cls(child) + " follows a reduce and has other consumers: it is "
                                                                   "stored rather than recomputed"};
    s = addStore(child, s, why);
    if (get(s.kid).outputs.size() > 1) {
      removeOne(mut(s.kid).outputs, child);
      s = newLoadKernel(child, 1, FusionAction::Split,
                        {"single-output-loader", "a movement/reduce needs a loader of its own for " + cls(child)});
    }
    return s;
  }
  return duplicateChain(child, s);
}

// The ops of `w` that `keep` flags, with their classes and loads; `map` receives old -> new op.
Kernelizer::Work Kernelizer::subsetOf(const Work& w, const std::vector<bool>& keep, std::vector<int32_t>& map) {
  Kernel::Subset sub = w.k.subset(keep);
  Work r;
  r.k = std::move(sub.kernel);
  for (std::size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) r.opClass.push_back(w.opClass[i]);
  for (int32_t p : sub.readParams) r.loads.push_back(w.loads.at(p));
  map = std::move(sub.map);
  return r;
}

Kernelizer::Slot Kernelizer::duplicateChain(ClassId child, Slot s) {
  Work& w = mut(s.kid);
  removeOne(w.outputs, child);
  // The child's chain, copied into a new kernel.
  std::vector<int32_t> map;
  Work nw = subsetOf(w, w.k.dependencies({s.op}), map);
  nw.outputs = {child};
  // If that was the child's last use here, its chain is orphaned in the original: prune it,
  // keeping what the stores and the remaining outputs need.
  if (!contains(w.outputs, child)) {
    std::vector<int32_t> roots = w.k.storeOps();
    for (ClassId c : w.outputs) roots.push_back(visited_.at(c).op);
    std::vector<int32_t> pmap;
    Work pruned = subsetOf(w, w.k.dependencies(roots), pmap);
    pruned.stores = w.stores;
    pruned.outputs = w.outputs;
    pruned.phase = w.phase;
    // outputs holds one slot per remaining consumer: remap each class once, not once per slot.
    std::unordered_set<ClassId> remapped;
    for (ClassId c : w.outputs)
      if (remapped.insert(c).second) visited_.at(c).op = pmap[visited_.at(c).op];
    w = std::move(pruned);
  }
  const int32_t kid = newKernel();
  nw.phase = phase_;
  mut(kid) = std::move(nw);
  record(FusionAction::DuplicateChain,
         {"recompute-chain", cls(child) + " has other consumers in " + kname(s.kid) +
                                 " and no reduce precedes it: its chain is recomputed in a new kernel instead of stored"},
         {kid, s.kid}, child);
  return {kid, map[s.op]};
}

void Kernelizer::consume(ClassId c, int32_t kid) {
  uint32_t& rc = rcs_.at(c);
  if (rc == 0) fail("reference count", cls(c) + " consumed more often than it is used");
  --rc;
  if (!removeOne(mut(kid).outputs, c))
    fail("output count", cls(c) + " consumed from " + kname(kid) + ", which holds no output slot for it");
  if (rc == 0) visited_.erase(c);
}

void Kernelizer::pushOutputs(int32_t kid, ClassId c, uint32_t n) { mut(kid).outputs.insert(mut(kid).outputs.end(), n, c); }

int32_t Kernelizer::replay(int32_t kid, ClassId c) {
  const Node& n = g_.structural(c);
  std::vector<int32_t> args;
  if (n.kind != NodeKind::Const)
    for (ClassId x : n.in) args.push_back(replay(kid, x));
  Work& w = mut(kid);
  int32_t op = -1;
  switch (n.kind) {
    case NodeKind::Const: op = w.k.constant(n.value); break;
    case NodeKind::Unary: op = w.k.unary(args[0], n.unaryOp()); break;
    case NodeKind::Cast: op = w.k.cast(args[0], n.dtype); break;
    case NodeKind::Bitcast: op = w.k.bitcast(args[0], n.dtype); break;
    case NodeKind::Binary: op = w.k.binary(args[0], args[1], n.binaryOp()); break;
    case NodeKind::Where: op = w.k.where(args[0], args[1], args[2]); break;
    default: fail("replay", cls(c) + " (" + n.label() + ") is not a constant expression and cannot be replayed");
  }
  label(w, ClassId{});
  return op;
}

bool Kernelizer::isReplayable(ClassId c) {
  if (auto it = replayable_.find(c); it != replayable_.end()) return it->second;
  bool r = false;
  if (!inputs_->count(c)) {
    const Node& n = g_.structural(c);
    if (n.kind == NodeKind::Const) {
      r = true;
    } else if (n.kind == NodeKind::Unary || n.kind == NodeKind::Cast || n.kind == NodeKind::Bitcast || n.kind == NodeKind::Binary ||
               n.kind == NodeKind::Where) {
      r = true;
      for (ClassId x : n.in) r = r && isReplayable(x);
    }
  }
  replayable_[c] = r;
  return r;
}

bool Kernelizer::hasKernelNode(ClassId c) const {
  for (NodeId n : g_.eclass(c).nodes)
    if (g_.node(n).kind == NodeKind::Kernel) return true;
  return false;
}

// ------------------------------------------------------------------------------------ storage

int32_t Kernelizer::newKernel() {
  const int32_t kid = nextId_++;
  kernels_[kid].phase = phase_;
  dirty_.insert(kid);
  unchecked_.insert(kid);
  return kid;
}

void Kernelizer::removeKernel(int32_t kid) {
  kernels_.erase(kid);
  dirty_.insert(kid);
  unchecked_.erase(kid);
}

const Kernelizer::Work& Kernelizer::get(int32_t kid) const {
  auto it = kernels_.find(kid);
  if (it == kernels_.end()) fail("kernel exists", kname(kid) + " was used after it was removed");
  return it->second;
}

Kernelizer::Work& Kernelizer::mut(int32_t kid) {
  auto it = kernels_.find(kid);
  if (it == kernels_.end()) fail("kernel exists", kname(kid) + " was used after it was removed");
  dirty_.insert(kid);
  unchecked_.insert(kid);
  return it->second;
}

KernelState Kernelizer::stateOf(const Work& w) const {
  KernelState s;
  std::unordered_set<uint32_t> seen;
  for (ClassId c : w.opClass)
    if (c.valid() && seen.insert(c.v).second) s.classes.push_back(c.v);
  for (ClassId c : w.loads) s.loads.push_back(c.v);
  for (ClassId c : w.stores) s.stores.push_back(c.v);
  s.opCount = static_cast<int32_t>(w.k.size());
  return s;
}

// ------------------------------------------------------------------------------------ trace, checks

void Kernelizer::record(FusionAction a, const Why& why, std::vector<int32_t> kernels, ClassId subject) {
  FusionStep st;
  st.index = static_cast<int32_t>(trace_.steps.size());
  st.cls = cur_.v;
  st.node = curLabel_;
  st.subject = subject.valid() ? subject.v : cur_.v;
  st.action = a;
  st.rule = why.rule;
  st.reason = why.reason;
  st.kernels = std::move(kernels);
  st.phase = phase_;
  for (int32_t kid : dirty_) {
    auto it = kernels_.find(kid);
    if (it == kernels_.end()) {
      if (lastState_.erase(kid)) st.diff.removed.push_back(kid);
      continue;
    }
    KernelState ks = stateOf(it->second);
    auto old = lastState_.find(kid);
    if (old != lastState_.end() && old->second == ks) continue;
    lastState_[kid] = ks;
    st.diff.set.emplace(kid, std::move(ks));
  }
  dirty_.clear();
  trace_.steps.push_back(std::move(st));
}

void Kernelizer::fail(const std::string& invariant, const std::string& detail) const {
  throw Error(ErrorCode::Invariant, "kernelizer step " + std::to_string(trace_.steps.size()) + " (" + phase_ +
                                        ", class " + cls(cur_) + " '" + curLabel_ + "'): invariant '" + invariant +
                                        "' violated: " + detail);
}

// The class invariants (1, 2) look at every class so far: they are checked after each class of a
// region of up to kClassChecks classes, and kClassChecks times spread over a larger one (rcs_ holds
// the region's classes), so that checking stays linear in the region's size. The kernel invariants
// (3) cost a changed kernel's size and are checked after every class.
void Kernelizer::checkInvariants() {
  const std::size_t every = std::max<std::size_t>(1, rcs_.size() / kClassChecks);
  if (processed_.size() % every == 0 || processed_.size() == rcs_.size()) {
    // 1. Output count and residency: copies == rc, all in one kernel, that kernel is visited's.
    std::unordered_map<ClassId, std::pair<uint32_t, int32_t>> seen;  // copies, kernel
    for (const auto& [kid, w] : kernels_)
      for (ClassId c : w.outputs) {
        auto& [count, where] = seen[c];
        if (count && where != kid)
          fail("a class lives in one kernel", cls(c) + " has output slots in " + kname(where) + " and " + kname(kid));
        ++count;
        where = kid;
      }
    for (const auto& [c, cw] : seen) {
      const uint32_t rc = rcs_.count(c) ? rcs_.at(c) : 0;
      if (cw.first != rc)
        fail("output count == rc", cls(c) + " has " + std::to_string(cw.first) + " output slots, rc " + std::to_string(rc));
      auto v = visited_.find(c);
      if (v == visited_.end() || v->second.kid != cw.second)
        fail("visited residency", cls(c) + " has output slots in " + kname(cw.second) + " but visited points elsewhere");
    }
    for (const auto& [c, slot] : visited_) {
      if (rcs_.at(c) == 0) fail("visited residency", cls(c) + " is visited with rc 0");
      if (!seen.count(c)) fail("output count == rc", cls(c) + " is visited with rc " + std::to_string(rcs_.at(c)) + " but has no output slot");
      if (slot.op < 0 || slot.op >= static_cast<int32_t>(get(slot.kid).k.size()))
        fail("visited residency", cls(c) + " points at a missing op of " + kname(slot.kid));
    }
    for (ClassId c : processed_)
      if (rcs_.at(c) > 0 && !isReplayable(c) && !visited_.count(c))
        fail("visited residency", cls(c) + " has rc " + std::to_string(rcs_.at(c)) + " but is not visited");
  }
  // 3. Per kernel (only those changed since the last check).
  for (int32_t kid : unchecked_) {
    auto it = kernels_.find(kid);
    if (it == kernels_.end()) continue;
    const Work& w = it->second;
    for (ClassId l : w.loads)
      if (contains(w.stores, l)) fail("no kernel loads what it stores", kname(kid) + " loads and stores " + cls(l));
    const std::vector<int32_t> reads = w.k.readParams(), stores = w.k.storeOps();
    if (reads.size() != w.loads.size())
      fail("loads parallel to Read params", kname(kid) + " has " + std::to_string(reads.size()) + " Read params and " +
                                                std::to_string(w.loads.size()) + " loads");
    if (stores.size() != w.stores.size())
      fail("stores parallel to Store ops", kname(kid) + " has " + std::to_string(stores.size()) + " Store ops and " +
                                               std::to_string(w.stores.size()) + " stores");
    for (std::size_t i = 0; i < reads.size(); ++i)
      if (w.k.at(reads[i]).shape != g_.shape(w.loads[i]) || w.k.at(reads[i]).dtype != g_.dtype(w.loads[i]))
        fail("loads parallel to Read params", kname(kid) + " reads " + cls(w.loads[i]) + " with the wrong shape or dtype");
    for (std::size_t i = 0; i < stores.size(); ++i)
      if (w.k.at(stores[i]).shape != g_.shape(w.stores[i]) || w.k.at(stores[i]).dtype != g_.dtype(w.stores[i]))
        fail("stores parallel to Store ops", kname(kid) + " stores " + cls(w.stores[i]) + " with the wrong shape or dtype");
    if (w.opClass.size() != w.k.size()) fail("op classes", kname(kid) + " lost track of which class an op computes");
    if (std::string v = verifyKernel(w.k); !v.empty()) fail("verifyKernel", kname(kid) + ": " + v);
  }
  unchecked_.clear();
}

// Every class a kernel loads is a leaf, an AOT kernel output, a device copy, or stored by a kernel.
void Kernelizer::checkLoadsProduced() {
  std::unordered_set<ClassId> stored;
  for (const auto& [kid, w] : kernels_) stored.insert(w.stores.begin(), w.stores.end());
  for (const auto& [kid, w] : kernels_)
    for (ClassId l : w.loads)
      if (!stored.count(l) && !g_.isLeaf(l) && !hasKernelNode(l) && g_.structural(l).kind != NodeKind::ToDevice)
        fail("every load is produced", kname(kid) + " loads " + cls(l) + ", which no kernel stores and which is no input");
}

void Kernelizer::checkRegionEnd() {
  curLabel_ = "end of region";
  for (auto it = kernels_.begin(); it != kernels_.end();) {
    const Work& w = it->second;
    // Fully consumed pure-value kernels (a replayed constant nobody stored) are dead.
    if (w.outputs.empty() && w.loads.empty() && w.stores.empty()) {
      dirty_.insert(it->first);
      it = kernels_.erase(it);
    } else {
      ++it;
    }
  }
  if (!dirty_.empty()) record(FusionAction::RemoveKernel, {"dead-kernel", "kernels without loads, stores or consumers are dropped"}, {});
  for (const auto& [c, rc] : rcs_)
    if (rc != 0) fail("all rc zero at the end", cls(c) + " still has rc " + std::to_string(rc));
  if (!visited_.empty()) fail("visited empty at the end", cls(visited_.begin()->first) + " is still visited");
  for (const auto& [kid, w] : kernels_) {
    if (!w.outputs.empty()) fail("no outputs at the end", kname(kid) + " still has output slots");
    if (w.stores.empty()) fail("every kernel ends with a store", kname(kid) + " stores nothing");
  }
}

}  // namespace ks
