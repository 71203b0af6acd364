// A tensor program: an e-graph plus its named inputs, parameters (with initializers), constants
// and outputs. Built by ProgramBuilder, the .ks parser or the ONNX importer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/host_tensor.h"
#include "engine/graph/graph.h"
#include "engine/program/onnx_node_info.h"
#include "engine/program/provenance.h"

namespace ks {

// How a parameter gets its values. Random kinds draw from one generator (see random.h): the same
// program gives the same numbers everywhere.
struct ParamInit {
  enum class Kind : uint8_t { Zeros, Ones, Full, Arange, Uniform, Normal, Data } kind = Kind::Zeros;
  double a = 0.0;  // Full: value; Arange: start; Uniform: low; Normal: mean
  double b = 1.0;  // Arange: step; Uniform: high; Normal: std
  uint64_t seed = 0;
  std::shared_ptr<const HostTensor> data;  // Data
  std::string str() const;  // "normal(mean=0, std=0.05, seed=1)" in .ks syntax
};

struct ProgramInput {
  std::string name;
  ClassId cls;
  uint32_t leaf = 0;
};
struct ProgramParam {
  std::string name;
  ClassId cls;
  uint32_t leaf = 0;
  ParamInit init;
};
struct ProgramOutput {
  std::string name;
  ClassId cls;
};

// `param <- value`: the value the param takes for the next step. Reads of the param in the same
// program see the old value; the write happens after all of them.
struct ProgramUpdate {
  std::size_t param = 0;  // index into Program::params
  ClassId value;          // of the param's shape and dtype
  SourceLoc where;        // of the update statement, when it came from text
};

struct Program {
  std::string name;    // file stem or sample name
  std::string source;  // original text (.ks) if any; empty for ONNX / built programs
  Graph graph;
  std::vector<ProgramInput> inputs;
  std::vector<ProgramParam> params;
  std::vector<ProgramOutput> outputs;
  std::vector<ProgramUpdate> updates;
  Provenance places;  // where each class came from in `source` (or the ONNX model); may be empty
  // The ONNX nodes an imported model was made of, in model order (empty for .ks and built
  // programs): the model as its author wrote it, for the views and `print --onnx-nodes`.
  std::vector<OnnxNodeInfo> onnxNodes;

  bool trains() const { return !updates.empty(); }

  std::vector<ClassId> outputClasses() const;
  // What a compiled step computes: the outputs, then the new value of each updated param.
  std::vector<ClassId> resultClasses() const;
  // Values of a parameter from its initializer (deterministic).
  HostTensor paramValue(std::size_t i) const;
  uint64_t cacheKey() const { return graph.cacheKey(resultClasses()); }
};

// Binds every leaf of a program: inputs from `given` by name, the rest random from `seed`
// (uniform in [-1, 1) for floats, [0, 10) for ints, coin flips for bool); parameters from their
// initializers; constants from their data. Result is indexed by leaf index.
std::vector<HostTensor> bindLeaves(const Program& p, const std::vector<std::pair<std::string, HostTensor>>& given,
                                   uint64_t seed);
// The input part of bindLeaves: sets only the inputs' entries of `leaves` (sized to every leaf).
void bindInputs(const Program& p, const std::vector<std::pair<std::string, HostTensor>>& given, uint64_t seed,
                std::vector<HostTensor>& leaves);

}  // namespace ks
