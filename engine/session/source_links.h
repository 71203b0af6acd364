// Source links: the classes a plan step or a fused kernel computes, and the program lines those
// classes came from (the program's Provenance), so that a step, a kernel or a class can point at
// the `.ks` lines it implements and a line at what implements it.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/session/session.h"

namespace ks {

// Classes computed by fused kernel `k` (an index into trace().kernels); empty when out of range.
std::vector<ClassId> classesOfKernel(const Session& s, std::size_t k);
// Classes a plan step computes or moves: a fused launch's kernel classes, a GEMM's outputs, a
// copy's input.
std::vector<ClassId> classesOfStep(const Session& s, std::size_t step);
// The fused kernel (an index into trace().kernels) that the plan launches to compute class c,
// if one does (a GEMM or a leaf has none).
std::optional<std::size_t> kernelComputing(const Session& s, ClassId c);
// The program lines of `classes`, ascending (empty for ONNX programs and old session files).
std::vector<int> sourceLines(const Session& s, const std::vector<ClassId>& classes);
// "line 5", "lines 5-7, 9" ("" for none).
std::string linesText(const std::vector<int>& lines);

}  // namespace ks
