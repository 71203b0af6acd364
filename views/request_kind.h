// The kinds of work a view or the controller asks the workers for. A new request replaces a
// queued or running one of the same kind only: a device comparison does not cancel a compile.
#pragma once
#include <cstdint>

namespace ks {

enum class RequestKind : uint8_t {
  Program,       // load or compile the program (the shown session)
  Comparison,    // compile and run on other device selections
  KernelSource,  // lowered IR and OpenCL C of a kernel under a schedule
  Explanation,   // why two classes are in different kernels
  Ablation,      // the shown program compiled again with one rewrite rule off
  PlanWhy,       // why the plan computes a class the way it does (an extraction run again)
  Diff,          // another session loaded or compiled, and diffed with the shown one
  FusionFrame,   // every fusion step's nodes in one picture, for a layout that stays put
  FusionStep,    // the kernels after one fusion step (a replay of the trace up to it)
};
inline constexpr int kNumRequestKinds = 9;

}  // namespace ks
