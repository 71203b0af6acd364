// Why the plan computes a class the way it does, with numbers: the chosen producer and its
// measured time, the runner-up and its time, and what the whole plan (DAG cost) would cost
// without the chosen producer. What `explain-plan` prints.
#pragma once
#include <limits>
#include <string>

#include "engine/session/session.h"

namespace ks {

struct PlanExplanation {
  ClassId asked;            // the class asked about, canonical
  ClassId decided;          // the class whose producer answers it: `asked`, or what its kernel stores
  std::string inside;       // "" or how `asked` is computed inside the kernel that stores `decided`
  NodeId chosen;
  std::string chosenLabel;  // "k3 exp_sum on opencl:0:0 (schedule ...)"
  double chosenNs = 0;      // its own measured time
  double chosenTreeNs = 0;  // with the producers of its operands (tree cost)
  NodeId runnerUp;          // the next lowest tree cost among the class's valid alternatives (invalid: none)
  std::string runnerUpLabel;
  double runnerUpNs = 0, runnerUpTreeNs = 0;
  std::size_t alternatives = 0;
  double dagNs = 0;         // the plan's DAG cost
  // The plan extracted again without the chosen node: its DAG cost (infinity: no plan without it)
  // and what the class is then produced by.
  double withoutNs = std::numeric_limits<double>::infinity();
  NodeId withoutChoice;
  std::string withoutLabel;
  std::string why;          // the extraction's reason for the choice
};

// A producer node in words: the kernel and device (and schedule), the GEMM, or the copy.
std::string producerLabel(const Session& s, NodeId n);
// Explains class `c` (a builder id is fine) of a session compiled up to its plan. Throws
// Error(Unsupported) when `c` is a leaf or the plan does not compute it, Error(Usage) when `c` is
// not a class or the session is not live.
PlanExplanation explainPlan(const Session& s, ClassId c);
// The explanation as lines of text (ms with three decimals).
std::string explanationText(const Session& s, const PlanExplanation& e);

}  // namespace ks
